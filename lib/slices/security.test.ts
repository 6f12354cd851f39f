import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { builtinConnections, createConnection, deleteConnection, listConnections, updateConnection } from '../connections';
import { AppError } from '../errors';
import { validateJob } from '../jobs/enqueue';
import type { JobContext } from '../jobs/types';
import { silentLogger } from '../log';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { resolveDataPath } from './data-path';
import { slicesJobs, slicesReconcileJob, slicesRunJob } from './jobs';
import { createJobRegistry } from '../jobs/registry';
import { splitJob } from './planning/jobs';

// #13: a job payload can never send a stored or environment credential to an
// address of its own choosing, and never reads or writes outside the data folder.
let db: TestDatabase;
let dataDir: string;
let outside: string;
let listener: http.Server;
let listenerUrl: string;
const received: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'slices-sec-data-'));
  outside = await fs.mkdtemp(path.join(os.tmpdir(), 'slices-sec-outside-'));
  await fs.writeFile(path.join(outside, 'secret.txt'), 'TOPSECRET-CONTENTS|x.y\n');
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(dataDir, 'link-out.txt'));
  await fs.mkdir(path.join(dataDir, 'q'));
  await fs.writeFile(path.join(dataDir, 'q', 'good.txt'), 'select 1|a.b\n');
  await fs.writeFile(path.join(dataDir, 'secret.key'), 'KEYMATERIAL|a.b\n');
  listener = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { received.push(`${req.method} ${req.url} ${body}`); res.end('{}'); });
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => listener.close(() => r()));
  await db?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(outside, { recursive: true, force: true });
});

// The worker's environment holds the Striim admin password.
const env = () => parseEnv({ TRIBUTARY_DATA_DIR: dataDir, STRIIM_ADMIN_USER: 'admin', STRIIM_ADMIN_PWD: 'worker-secret-pwd', STRIIM_NODE: '127.0.0.1:1' } as unknown as NodeJS.ProcessEnv);
const ctx = (): JobContext => ({
  jobs: createJobRegistry([]), runId: 'job-sec', pool: db.pool, logger: silentLogger, signal: new AbortController().signal, env: env(), progress: () => {},
});
const registry = createJobRegistry(slicesJobs);
const queryFileText = 'select * from public.t where 1=1|public.t_copy\n';

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('slices job payloads and credentials', () => {
  it('refuses a slices.run payload carrying striimUrl, sourceUrl or targetUrl at validation; the listener receives nothing', () => {
    for (const extra of [{ striimUrl: listenerUrl }, { sourceUrl: `postgres://u:p@127.0.0.1:${new URL(listenerUrl).port}/x` }, { targetUrl: 'postgres://u:p@h/x' }, { striimUser: 'admin' }]) {
      expect(() => validateJob(registry, { kind: 'slices.run', params: { runId: 424242, queryFileText, executor: 'striim', ...extra } })).toThrow(/params\.\w+: (unknown field|refused)/);
    }
    expect(() => validateJob(registry, { kind: 'slices.reconcile', params: { runId: 1, sourceUrl: 'postgres://u:p@h/x' } })).toThrow(/params\.sourceUrl: (unknown field|refused)/);
    expect(() => validateJob(registry, { kind: 'slices.split', params: { table: 'a.b', target: 'a.c', runId: 1, sourceUrl: 'postgres://h/x' } })).toThrow(/params\.sourceUrl: (unknown field|refused)/);
    expect(received).toEqual([]);
  });

  it('bounds every number and names the payload field', () => {
    for (const [params, field] of [
      [{ runId: 1, concurrency: 1e9 }, 'params.concurrency'], [{ runId: 1, maxAttempts: 0 }, 'params.maxAttempts'],
      [{ runId: 1, deployWait: -1 }, 'params.deployWait'], [{ runId: 1, batchRows: 1e12 }, 'params.batchRows'], [{ runId: 0 }, 'params.runId'],
    ] as const) {
      try { validateJob(registry, { kind: 'slices.run', params }); expect.unreachable(); } catch (e) { expect((e as AppError).field).toBe(field); }
    }
  });

  it('a payload naming a connection that does not exist, or a CLI-only transient one, is refused before anything is contacted', async () => {
    for (const striimConnection of ['evil', 'cli:striim-url']) {
      const p = slicesRunJob.payload.parse({ runId: 424242, queryFileText, executor: 'striim', striimConnection });
      const e = await refusal(slicesRunJob.run(ctx(), p));
      expect(e.message).toContain(`connection '${striimConnection}' not found`);
      expect(e.field).toBe('params.striimConnection');
    }
    // nor can an operator mint a built-in-looking connection
    await expect(createConnection({ pool: db.pool, keys: { dataDir } }, { name: 'env:striim', kind: 'striim', params: { node: new URL(listenerUrl).host } })).rejects.toThrow(/reserved/);
    expect(received).toEqual([]);
    expect((await db.pool.query('select count(*)::int n from striim_orchestration where uniquerunid = 424242')).rows[0].n).toBe(0);
  });

  it('a Striim connection is used with its own credentials only: the worker environment password never goes elsewhere', async () => {
    // An admin-made striim connection pointing at the listener, with no password: the env password must not be sent.
    await createConnection({ pool: db.pool, keys: { dataDir } }, { name: 'striim-x', kind: 'striim', params: { node: new URL(listenerUrl).host, url_prefix: 'http://', admin_user: 'ops' } });
    const p = slicesRunJob.payload.parse({ runId: 424243, queryFileText, executor: 'striim', striimConnection: 'striim-x', striimRetries: 0 });
    await slicesRunJob.run(ctx(), p).catch(() => null);
    expect(received.length).toBeGreaterThan(0);
    expect(received.join('\n')).not.toContain('worker-secret-pwd');
    received.length = 0;
  });
});

describe('slices job files stay inside the data folder', () => {
  it('refuses ../, absolute paths outside and symlinks out, naming the field and quoting nothing', async () => {
    for (const queryFile of ['../' + path.basename(outside) + '/secret.txt', path.join(outside, 'secret.txt'), 'link-out.txt', '/etc/passwd', 'q/../../x', 'secret.key', 'pg.json']) {
      const p = slicesRunJob.payload.parse({ runId: 424244, queryFile, executor: 'native' });
      const e = await refusal(slicesRunJob.run(ctx(), p));
      expect(e.field).toBe('params.queryFile');
      expect(e.message).toMatch(/under the data folder/);
      expect(e.message).not.toMatch(/TOPSECRET|KEYMATERIAL/);
      expect(e.status).toBe(400);
    }
    // the same message whether or not the outside file exists: no probing of the worker's files
    const a = await refusal(slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 424244, queryFile: '/etc/passwd' })));
    const b = await refusal(slicesRunJob.run(ctx(), slicesRunJob.payload.parse({ runId: 424244, queryFile: '/no/such/file' })));
    // the same words apart from the caller's own value, which is echoed
    expect(a.message.replace('/etc/passwd', 'X')).toBe(b.message.replace('/no/such/file', 'X'));
    // a split job cannot write its queryfile outside either
    const s = splitJob.payload.parse({ query: 'select x.* from public.t x where ~SPLIT~', table: 'public.t', target: 'A.T', runId: 5, output: path.join(outside, 'q.txt') });
    expect((await refusal(splitJob.run(ctx(), s))).field).toBe('params.output');
    // nor overwrite the data folder's own secret key
    expect((await refusal(splitJob.run(ctx(), { ...s, output: 'secret.key' }))).field).toBe('params.output');
    expect(await fs.readFile(path.join(dataDir, 'secret.key'), 'utf8')).toBe('KEYMATERIAL|a.b\n');
    // nor count or write a lake other than the configured one
    const r = slicesReconcileJob.payload.parse({ runId: 5, targetLake: `file://${outside}` });
    expect((await refusal(slicesReconcileJob.run(ctx(), r))).field).toBe('params.targetLake');
  });

  it('resolveDataPath keeps paths under the data folder after realpath', async () => {
    await expect(resolveDataPath(dataDir, 'q/good.txt', 'f')).resolves.toBe(path.join(await fs.realpath(dataDir), 'q', 'good.txt'));
    await expect(resolveDataPath(dataDir, 'q/new/out.txt', 'f', 'write')).resolves.toBe(path.join(await fs.realpath(dataDir), 'q', 'new', 'out.txt'));
    await fs.symlink(outside, path.join(dataDir, 'dir-out'));
    await expect(resolveDataPath(dataDir, 'dir-out/new.txt', 'f', 'write')).rejects.toThrow(/under the data folder/);
    await expect(resolveDataPath(dataDir, '../x', 'f', 'write')).rejects.toThrow(/under the data folder/);
    await expect(resolveDataPath(dataDir, 'q/missing.txt', 'f')).rejects.toThrow(/no such file/);
  });
});

describe('built-in connections from the environment', () => {
  it('lists env:striim and env:source read-only, with secret names only', async () => {
    const e = parseEnv({ TRIBUTARY_DATA_DIR: dataDir, STRIIM_NODE: 's:9080', STRIIM_ADMIN_PWD: 'pw1', SOURCE_PG_HOST: 'db', SOURCE_PG_USER: 'u', SOURCE_PG_PASSWORD: 'pw2' } as unknown as NodeJS.ProcessEnv);
    const conns = { pool: db.pool, keys: { dataDir }, builtins: builtinConnections(e) };
    const list = await listConnections(conns);
    expect(list.filter((c) => c.builtIn).map((c) => [c.name, c.kind, c.secretKeys])).toEqual([['env:striim', 'striim', ['admin_pwd']], ['env:source', 'postgres', ['password']]]);
    expect(JSON.stringify(list)).not.toMatch(/pw1|pw2/);
    await expect(updateConnection(conns, 'env:striim', { params: { node: 'evil:1' } })).rejects.toThrow(/read-only/);
    await expect(deleteConnection(conns, 'env:source')).rejects.toThrow(/read-only/);
  });
});

describe('enqueue-time checks (for JobDefinition.check)', () => {
  it('refuses unknown connections, wrong kinds, files outside and missing runs, naming params.<field>', async () => {
    const { slicesChecks } = await import('./checks');
    const deps = { pool: db.pool, env: env() };
    const field = async (kind: string, p: Record<string, unknown>) => (await refusal(slicesChecks[kind](deps, p))).field;
    expect(await field('slices.run', { runId: 77, queryFileText, striimConnection: 'nope' })).toBe('params.striimConnection');
    expect(await field('slices.run', { runId: 77, queryFileText, targetConnection: 'env:striim' })).toBe('params.targetConnection');
    expect(await field('slices.run', { runId: 77, queryFile: '/etc/passwd' })).toBe('params.queryFile');
    expect(await field('slices.run', { runId: 77 })).toBe('params.queryFileText');
    expect(await field('slices.reset', { runId: 77 })).toBe('params.runId');
    await expect(slicesChecks['slices.run'](deps, { runId: 77, queryFileText, striimConnection: 'env:striim', queryFile: undefined })).resolves.toBeUndefined();
  });
  it('refuses a probe or split without a SQL template, or with one the splitter cannot read, when it is posted', async () => {
    const { slicesChecks } = await import('./checks');
    const deps = { pool: db.pool, env: env() };
    for (const kind of ['slices.split', 'slices.probe']) {
      const noQuery = await refusal(slicesChecks[kind](deps, { table: 'public.orders', target: 'public.orders_copy' }));
      expect(noQuery).toMatchObject({ field: 'params.query', message: expect.stringMatching(/needs its SQL template/) });
      const wrongTable = await refusal(slicesChecks[kind](deps, { table: 'public.orders', query: 'SELECT * FROM public.customers c WHERE ~SPLIT~' }));
      expect(wrongTable).toMatchObject({ field: 'params.table', message: expect.stringMatching(/public\.orders not found after FROM/) });
      await expect(slicesChecks[kind](deps, { table: 'public.orders', query: 'SELECT * FROM public.orders o WHERE ~SPLIT~' })).resolves.toBeUndefined();
    }
  });
});
