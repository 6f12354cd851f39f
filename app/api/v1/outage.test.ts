// While the database cannot be reached, every /api/v1 route answers 503 with
// Retry-After and a JSON body saying so (not 500 "internal error"), and a
// burst of failing requests writes a bounded number of log lines, no stack.
// The connection errors are real: a port nothing listens on, a backend
// terminated by the server, a Prisma client that cannot connect.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServerDeps, shutServerDeps } from '@/app/_server/deps';
import { parseEnv } from '@/lib/config/env';
import { createPrisma } from '@/lib/db';
import { isDatabaseUnavailable } from '@/lib/errors/db-unavailable';
import { createTestDatabase, type TestDatabase } from '@/lib/testing/pg';
import { closedPort } from '@/lib/testing/closed-port';
import { callRoute, type RouteHandler } from './test-call';
import * as health from './health/route';
import * as jobs from './jobs/route';
import * as me from './me/route';
import * as iceberg from '../../iceberg/v1/[...path]/route';
import * as openapi from './openapi.json/route';

let db: TestDatabase;
let deadUrl = '';

// Its own setup, not the shared route-test helper (test-server.ts): the server deps open on a
// database nobody listens on, and there are no users (every route must fail before it reads one).
beforeAll(async () => {
  db = await createTestDatabase();
  deadUrl = `postgres://tributary:x@127.0.0.1:${await closedPort()}/tributary`;
  openServerDeps(parseEnv({ DATABASE_URL: deadUrl, TRIBUTARY_SECRET: 'outage-test-secret-0123456789' }));
});
afterAll(async () => {
  await shutServerDeps();
  await db.drop();
});

describe('database unavailable', () => {
  it('classifies real connection losses as unavailable, and ordinary SQL errors as not', async () => {
    const refused = await new pg.Client({ connectionString: deadUrl }).connect().then(() => null, (e) => e);
    expect(isDatabaseUnavailable(refused)).toBe(true);

    const prisma = createPrisma(deadUrl, { max: 1 });
    const prismaErr = await prisma.user.count().then(() => null, (e) => e);
    await prisma.$disconnect().catch(() => {});
    expect(prismaErr).not.toBeNull();
    expect(isDatabaseUnavailable(prismaErr)).toBe(true);

    // 57P01: the server ends a backend (what a fast shutdown does to every session).
    const victim = new pg.Client({ connectionString: db.url });
    victim.on('error', () => {});
    await victim.connect();
    const pid = (await victim.query('select pg_backend_pid() as p')).rows[0].p;
    await db.pool.query('select pg_terminate_backend($1)', [pid]);
    const terminated = await victim.query('select 1').then(() => null, (e) => e);
    await victim.end().catch(() => {});
    expect(terminated).not.toBeNull();
    expect(isDatabaseUnavailable(terminated)).toBe(true);

    const syntax = await db.pool.query('selec 1').then(() => null, (e) => e);
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    const missing = await db.pool.query('select * from no_such_table').then(() => null, (e) => e);
    expect(isDatabaseUnavailable(missing)).toBe(false);
  });

  it('answers 503 + Retry-After on every route, and logs a burst of failures in a few lines', async () => {
    const logged: string[] = [];
    // The API logs through its redacting logger, which writes lines to stderr.
    const orig = process.stderr.write;
    process.stderr.write = ((l: unknown) => { logged.push(String(l).trimEnd()); return true; }) as typeof process.stderr.write;
    try {
      const h = await callRoute(health.GET as RouteHandler, 'GET', '/api/v1/health');
      expect(h.status).toBe(503);
      expect(h.headers.get('retry-after')).toBe('5');
      expect(h.body).toMatchObject({ status: 'degraded', database: 'unavailable' });

      const calls: Promise<Awaited<ReturnType<typeof callRoute>>>[] = [];
      for (let i = 0; i < 300; i++) {
        if (i % 3 === 0) calls.push(callRoute(jobs.GET as RouteHandler, 'GET', '/api/v1/jobs?limit=5', { token: 'trb_not-checked-while-down' }));
        else if (i % 3 === 1) calls.push(callRoute(jobs.POST as RouteHandler, 'POST', '/api/v1/jobs', { token: 'trb_not-checked-while-down', body: { kind: 'system.check' } }));
        else calls.push(callRoute(me.GET as RouteHandler, 'GET', '/api/v1/me', { token: 'trb_not-checked-while-down' }));
      }
      const answers = await Promise.all(calls);
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.headers.get('retry-after')).toBe('5');
        expect(a.body.error.code).toBe('unavailable');
        expect(a.body.error.message).toMatch(/^database unavailable/);
      }
      // The API reference needs no database, and says every operation may answer so.
      const doc = await callRoute(openapi.GET as RouteHandler, 'GET', '/api/v1/openapi.json');
      expect(doc.status).toBe(200);
      const ops = Object.values(doc.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap((p) => Object.values(p));
      expect(ops.length).toBeGreaterThan(20);
      expect(ops.filter((o) => !o.responses['503'])).toEqual([]);
      expect(doc.body.components.responses.Unavailable.headers['Retry-After']).toBeDefined();
      // The Iceberg REST catalog answers in its own error shape, with the spec's 503.
      const ice = await iceberg.GET(new Request('http://127.0.0.1:8765/iceberg/v1/namespaces', { headers: { authorization: 'Bearer trb_not-checked-while-down' } }));
      expect(ice.status).toBe(503);
      expect(ice.headers.get('retry-after')).toBe('5');
      expect((await ice.json()).error).toMatchObject({ type: 'ServiceUnavailableException', code: 503 });
    } finally {
      process.stderr.write = orig;
    }
    // One line for the outage (the count follows once a minute), and no stack trace.
    expect(logged.length).toBeLessThanOrEqual(2);
    expect(logged[0]).toMatch(/ error +api: database unreachable: answering 503 until it is back scope=api reason=.*(ECONNREFUSED|Can't reach database server)/);
    expect(logged.join('\n')).not.toMatch(/\n\s+at /);
  });
});
