// The wrapper's parsing and error mapping, on public routes (no database is
// touched: the pool is created lazily and never used). Auth and roles are
// tested with real Postgres in app/api/v1/api.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AppError } from '../errors';
import { parseEnv } from '../config/env';
import { createJobRegistry } from '../jobs/registry';
import { createApiHandler, json } from './handler';
import { readJsonBody } from './body';
import { closeServerDeps, createServerDeps, type ServerDeps } from './deps';

// Deps built from settings the test writes (never process.env), opened on first use as the server's edge does.
let deps: ServerDeps | undefined;
const apiHandler = createApiHandler(() => (deps ??= createServerDeps(
  parseEnv({ DATABASE_URL: 'postgres://nobody:x@127.0.0.1:9/none', TRIBUTARY_SECRET: 'handler-test-secret-123' }),
  { jobs: createJobRegistry([]) },
)));
afterAll(async () => {
  await closeServerDeps(deps);
});

const post = (body: string | undefined, url = 'http://x/api/v1/t') => new Request(url, { method: 'POST', body });
const ctx = (p: Record<string, string> = {}) => ({ params: Promise.resolve(p) });

describe('readJsonBody', () => {
  it('reads JSON, treats an empty body as {}, refuses malformed and oversized bodies', async () => {
    expect(await readJsonBody(post('{"a":1}'))).toEqual({ a: 1 });
    expect(await readJsonBody(post(undefined))).toEqual({});
    expect(await readJsonBody(post('   '))).toEqual({});
    await expect(readJsonBody(post('{"a":'))).rejects.toMatchObject({ code: 'bad_request', field: 'body' });
    await expect(readJsonBody(post('x'.repeat(101)), 100)).rejects.toMatchObject({ code: 'payload_too_large' });
    const stream = new ReadableStream({ start(c) { for (let i = 0; i < 5; i++) c.enqueue(new Uint8Array(50)); c.close(); } });
    await expect(readJsonBody(new Request('http://x', { method: 'POST', body: stream, duplex: 'half' } as RequestInit), 100)).rejects.toMatchObject({ code: 'payload_too_large' });
  });
});

describe('apiHandler', () => {
  const handler = apiHandler(
    { role: 'public', params: z.object({ id: z.uuid() }), query: z.object({ n: z.coerce.number().int().optional() }), body: z.object({ name: z.string().min(2), tags: z.array(z.string()).optional() }), maxBodyBytes: 200 },
    async ({ params, query, body }) => ({ id: params.id, n: query.n ?? null, name: body.name }),
  );
  const id = '6f1c2b7e-8d3a-4c55-9a10-0d7e1f2a3b4c';
  const call = async (r: Request, p: Record<string, string> = { id }) => {
    const res = await handler(r, ctx(p));
    return { status: res.status, body: await res.json() };
  };

  it('hands the handler parsed params, query and body', async () => {
    expect(await call(post('{"name":"ok"}', 'http://x/api/v1/t?n=3'))).toEqual({ status: 200, body: { id, n: 3, name: 'ok' } });
  });

  it('maps each kind of bad input to its status and field', async () => {
    expect(await call(post('{"name":"x"}'))).toMatchObject({ status: 400, body: { error: { code: 'validation', field: 'name' } } });
    expect(await call(post('{"name":"ok","tags":[1]}'))).toMatchObject({ status: 400, body: { error: { field: 'tags.0' } } });
    expect(await call(post('{"name":"ok"}', 'http://x/api/v1/t?n=abc'))).toMatchObject({ status: 400, body: { error: { field: 'query.n' } } });
    expect(await call(post('{"name":"ok"}'), { id: 'not-a-uuid' })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await call(post('{oops'))).toMatchObject({ status: 400, body: { error: { code: 'bad_request', field: 'body' } } });
    expect(await call(post(JSON.stringify({ name: 'x'.repeat(300) })))).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large', field: 'body' } } });
  });

  it('passes Responses through, maps AppError, and hides unexpected errors', async () => {
    const accepted = apiHandler({ role: 'public' }, async () => json({ id: 1 }, 202));
    expect((await accepted(new Request('http://x'))).status).toBe(202);
    const conflict = apiHandler({ role: 'public' }, async () => { throw new AppError('conflict', 'already there', { field: 'name' }); });
    const c = await conflict(new Request('http://x'));
    expect([c.status, await c.json()]).toEqual([409, { error: { code: 'conflict', message: 'already there', field: 'name' } }]);
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((l) => { lines.push(String(l)); return true; });
    const boom = apiHandler({ role: 'public' }, async () => { throw new Error('secret internals at postgres://app:hunter2@db:5432/x'); });
    const b = await boom(new Request('http://x'));
    spy.mockRestore();
    expect(b.status).toBe(500);
    expect(JSON.stringify(await b.json())).not.toContain('secret internals');
    // Through the redacting logger, not console.error: the message is there, the password is not.
    expect(lines.join('')).toMatch(/error\s+api: unhandled error .*secret internals at postgres:\/\/app:\*\*\*@db/);
    expect(lines.join('')).not.toContain('hunter2');
  });
});
