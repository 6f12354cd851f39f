import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import { acquireSlot, createJobRegistry, enqueueJob, getJobRun, systemJobs, validateJob, defineJob } from './index';
import { z } from 'zod';
import { waitFor } from '../testing/wait-for';

let db: TestDatabase;
let dataDir: string;
const jobs = createJobRegistry(systemJobs);

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobs-drain-'));
});
afterAll(async () => {
  await db?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('worker drain and fan-out primitives', () => {
  it('SIGTERM drains a worker process: its running job finishes, a job queued after it is left for others, the process exits', async () => {
    const env = parseEnv({ TRIBUTARY_DATA_DIR: dataDir } as unknown as NodeJS.ProcessEnv);
    const child = spawn(process.execPath, [path.resolve('bin/tributary.mjs'), 'worker'], {
      env: { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: dataDir, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr!.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    try {
      const { runId } = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check', params: { holdSeconds: 4 } });
      await waitFor('the held job to run', async () => (await getJobRun(db.pool, runId, { logLimit: 0 }))?.status === 'running', 120_000);
      child.kill('SIGTERM');
      // The worker says it drains once it has stopped taking jobs: a job queued from then on is not its.
      await waitFor('the worker to say it drains', () => /worker draining/.test(log), 120_000);
      const later = await enqueueJob({ pool: db.pool, jobs, env }, { kind: 'system.check' });
      expect(await exited).toBe(0);
      const r = await getJobRun(db.pool, runId, { logLimit: 0 });
      expect(r?.status).toBe('succeeded');
      expect(r?.progress.done).toBe(3);
      expect((await getJobRun(db.pool, later.runId, { logLimit: 0 }))?.status).toBe('queued');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 300_000);

  it('an internal kind is refused to callers and hidden from the kinds list', () => {
    const reg = createJobRegistry([...systemJobs, defineJob({ kind: 'x.unit', description: 'a unit of some run', internal: true, payload: z.object({}), run: async () => null })]);
    expect(reg.kinds().map((k) => k.kind)).not.toContain('x.unit');
    expect(() => validateJob(reg, { kind: 'x.unit' })).toThrow(/unknown job kind 'x.unit'/);
    expect(validateJob(reg, { kind: 'x.unit', internal: true }).kind).toBe('x.unit');
  });

  it('slots are shared across connections: at most `limit` holders of a scope, and a released slot is taken by a waiter', async () => {
    const a = await acquireSlot(db.pool, 'branch-x', 2);
    const b = await acquireSlot(db.pool, 'branch-x', 2);
    expect(new Set([a.slot, b.slot]).size).toBe(2);
    const ac = new AbortController();
    let third: Awaited<ReturnType<typeof acquireSlot>> | null = null;
    const waiting = acquireSlot(db.pool, 'branch-x', 2, { pollMs: 50, signal: ac.signal }).then((l) => { third = l; return l; });
    // The waiter's connection is the one trying a slot lock without holding one: once it has asked
    // several times (two rounds over both slots), it has been refused, not merely not asked yet.
    const asks = new Set<string>();
    await waitFor('the third holder to be refused twice over', async () => {
      const r = await db.pool.query(
        `select query_start::text as t from pg_stat_activity
          where datname = current_database() and query like 'select pg_try_advisory_lock%'
            and pid not in (select pid from pg_locks where locktype = 'advisory' and granted)`);
      for (const row of r.rows) asks.add(row.t);
      return asks.size >= 4;
    }, 120_000);
    expect(third).toBeNull();
    const holders = await db.pool.query(`select count(*)::int n from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`);
    expect(holders.rows[0].n).toBe(2);
    const other = await acquireSlot(db.pool, 'branch-y', 2);
    await a.release();
    const t = await waiting;
    expect(t.slot).toBe(a.slot);
    for (const l of [b, t, other]) await l.release();
    const held = await db.pool.query(`select count(*)::int n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`);
    expect(held.rows[0].n).toBe(0);
  });
});
