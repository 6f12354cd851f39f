// Flow alerts to webhooks end to end: real Postgres, a real worker running the
// jobs, the executor ticking, and an in-process HTTP receiver that checks the
// HMAC signature the way a user's receiver would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import type { JobCatalog } from '../jobs';
import { startFlowsStack } from '../testing/flows-stack';
import { createConnection } from '../connections';
import { sendWebhook, verifySignature } from '../webhook';
import { createFlow, getFlowRun, startFlowRun } from './index';
import { waitFor } from '../testing/wait-for';

let catalog: JobCatalog;

const SECRET = 'flow-webhook-test-secret-0123456789';
const HMAC_KEY = 'whsec-test-key';

interface Received { body: string; headers: http.IncomingHttpHeaders; path: string }
let db: TestDatabase; let flows: Awaited<ReturnType<typeof startFlowsStack>>; let dataDir: string;
let server: http.Server; let base = '';
const received: Received[] = [];
/** Status codes to answer next (then 200). */
const script: number[] = [];

const jobsOf = async (kind: string, flowRunId: string) =>
  (await db.pool.query(`select status, result, error from job_runs where kind = $1 and params->>'flowRunId' = $2`, [kind, flowRunId])).rows;
/** A node that passes every check at save and fails when it runs: testing a connection whose server is not there. */
const failing = { kind: 'connections.test', params: { name: 'unreachable-db' } };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push({ body, headers: req.headers, path: req.url ?? '' });
      const status = script.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-webhook-'));
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_SECRET: SECRET } as unknown as NodeJS.ProcessEnv);
  const ctx = { pool: db.pool, keys: { secret: SECRET, dataDir } };
  await createConnection(ctx, { name: 'unreachable-db', kind: 'postgres', params: { host: '127.0.0.1', port: 1, database: 'x', user: 'x' } });
  await createConnection(ctx, { name: 'ops-hook', kind: 'webhook', params: {}, secrets: { url: `${base}/hooks/ops`, secret: HMAC_KEY } });
  await createConnection(ctx, { name: 'pager', kind: 'webhook', params: { format: 'pagerduty' }, secrets: { url: `${base}/v2/enqueue`, routing_key: 'R0UT1NG' } });
  flows = await startFlowsStack({ pool: db.pool, url: db.url, env });
  catalog = flows.catalog;
});

afterAll(async () => {
  await flows?.stop();
  await db?.drop();
  await new Promise((r) => server?.close(r));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('flow alerts to webhooks', () => {
  it('refuses a flow naming a missing or non-webhook connection, naming the field', async () => {
    await createConnection({ pool: db.pool, keys: { secret: SECRET, dataDir } }, { name: 'a-mail', kind: 'smtp', params: { host: '127.0.0.1', tls: 'none', from: 'x@y.test' } });
    const flow = { name: 'bad-hook', nodes: [{ id: 'a', kind: 'system.check', params: {} }] };
    await expect(createFlow(db.pool, catalog, { ...flow, alerts: { webhooks: ['nope'] } })).rejects.toMatchObject({ field: 'alerts.webhooks[0]' });
    await expect(createFlow(db.pool, catalog, { ...flow, alerts: { webhooks: ['ops-hook', 'a-mail'] } })).rejects.toThrow(/'a-mail' is a smtp connection, not webhook/);
  });

  it('a failed run posts one signed alert, retried after a 500, with the failed node and a link', async () => {
    const flow = await createFlow(db.pool, catalog, { name: 'hooked', nodes: [{ id: 'load', ...failing }], alerts: { onFailure: true, webhooks: ['ops-hook'] } });
    expect(flow.alerts.webhooks).toEqual(['ops-hook']);
    script.push(500);
    const before = received.length;
    const run = await startFlowRun(db.pool, 'hooked', 'test');
    const done = await waitFor('the webhook job to succeed', async () => (await jobsOf('webhook.send', run.id)).find((j) => j.status === 'succeeded'));
    const posts = received.slice(before).filter((r) => r.path === '/hooks/ops');
    expect(posts).toHaveLength(2); // one refused with 500, one accepted
    expect(done.result).toMatchObject({ connection: 'ops-hook', status: 200, attempts: 2 });
    for (const p of posts) {
      expect(verifySignature(HMAC_KEY, p.body, String(p.headers['x-tributary-timestamp']), String(p.headers['x-tributary-signature']))).toBe(true);
      expect(verifySignature('another-key', p.body, String(p.headers['x-tributary-timestamp']), String(p.headers['x-tributary-signature']))).toBe(false);
    }
    const body = JSON.parse(posts[1].body);
    expect(body).toMatchObject({
      source: 'tributary', event: 'failure', flow: { id: flow.id, name: 'hooked' },
      run: { id: run.id, url: `http://panel.test:8765/flows/${flow.id}/runs/${run.id}` },
      failedNode: { id: 'load', kind: 'connections.test' },
    });
    expect(body.text).toMatch(/^Flow hooked failed at node load/);
    expect(body.failedNode.error).toMatch(/unreachable-db is unreachable/);
    expect(body.nodes).toEqual([{ id: 'load', label: null, status: 'failed' }]);
    const r = await getFlowRun(db.pool, run.id);
    expect(r!.logs.map((l: { message: string }) => l.message).join('\n')).toMatch(/alert webhook delivered via ops-hook \(HTTP 200, try 2\)/);
    // Still exactly one job for this run's alert after more executor ticks (polled, not slept).
    expect((await jobsOf('webhook.send', run.id))).toHaveLength(1);
  });

  it('pagerduty format: a failure triggers an Events API v2 incident deduplicated per flow, a success resolves it', async () => {
    await createFlow(db.pool, catalog, { name: 'paged', nodes: [{ id: 'ok', kind: 'system.check', params: {} }], alerts: { onFailure: true, onSuccess: true, webhooks: ['pager'] } });
    const before = received.length;
    const run = await startFlowRun(db.pool, 'paged', 'test');
    await waitFor('the pagerduty job', async () => (await jobsOf('webhook.send', run.id)).find((j) => j.status === 'succeeded'));
    const post = received.slice(before).find((r) => r.path === '/v2/enqueue')!;
    const body = JSON.parse(post.body);
    expect(body).toMatchObject({ routing_key: 'R0UT1NG', event_action: 'resolve', payload: { source: 'tributary', component: 'paged' } });
    expect(body.dedup_key).toMatch(/^tributary-flow-/);
    expect(post.headers['x-tributary-signature']).toBeUndefined(); // no signing secret on this connection
  });

  it('a 4xx is final (a wrong URL or key will not change); a 503 is retried until the tries run out', async () => {
    const hook = { connection: 'direct', url: `${base}/direct`, format: 'json' as const, secret: null, routingKey: null };
    script.push(404);
    const before = received.length;
    await expect(sendWebhook(hook, { a: 1 }, { backoffMs: 1 })).rejects.toThrow(/not delivered to 'direct' after 1 try .*answered 404/);
    expect(received.length - before).toBe(1);
    script.push(503, 503, 503);
    await expect(sendWebhook(hook, { a: 1 }, { attempts: 3, backoffMs: 1 })).rejects.toThrow(/after 3 tries .*answered 503/);
    script.push(503);
    await expect(sendWebhook(hook, { a: 2 }, { attempts: 3, backoffMs: 1 })).resolves.toEqual({ status: 200, attempts: 2 });
  });
});
