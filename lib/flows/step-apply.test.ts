// The executor's writes against real Postgres, no worker: a step's ready
// nodes start as one batch (one INSERT of job runs, one pg-boss insert), and
// a worker that dies between writing the jobs and the nodes leaves nothing a
// later tick could start twice.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, type JobCatalog } from '../jobs';
import { jobDefinitions } from '../../workers/jobs';
import { createPipeline } from '../pipelines';
import { createFlow, startFlowRun } from './index';
import { advanceFlowRun } from './executor';

let db: TestDatabase;
let catalog: JobCatalog;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-step-apply-'));
  catalog = { jobs: createJobRegistry(jobDefinitions), env: parseEnv({ TRIBUTARY_DATA_DIR: dataDir, TRIBUTARY_SECRET: 'step-apply-secret-0123456789' } as unknown as NodeJS.ProcessEnv) };
  await createPipeline(db.pool, catalog, { name: 'probe', kind: 'system.check', params: {} });
});

afterAll(async () => {
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A pool handing out real connections that record every statement, and,
 * with `crashAt`, kill their own backend (as a worker dying would) just
 * before the first statement matching it.
 */
function recordingPool(crashAt?: RegExp): { pool: pg.Pool; statements: string[] } {
  const statements: string[] = [];
  const pool = {
    connect: async () => {
      const client = await db.pool.connect();
      let crashed = false;
      const query = client.query.bind(client) as (text: unknown, values?: unknown) => Promise<pg.QueryResult>;
      const wrapped = Object.create(client) as pg.PoolClient;
      wrapped.query = (async (text: unknown, values?: unknown) => {
        const sql = typeof text === 'string' ? text : (text as { text: string }).text;
        statements.push(sql);
        if (crashAt && !crashed && crashAt.test(sql)) {
          crashed = true;
          client.on('error', () => {}); // the connection's end is the point: the pool drops it at release
          await query('select pg_terminate_backend(pg_backend_pid())').catch(() => {});
        }
        return query(text, values);
      }) as pg.PoolClient['query'];
      // A killed connection must not go back to the shared pool.
      wrapped.release = ((err?: Error | boolean) => client.release(crashed || err)) as pg.PoolClient['release'];
      return wrapped;
    },
  } as unknown as pg.Pool;
  return { pool, statements };
}

const count = async (sql: string, args: unknown[]) => Number((await db.pool.query(sql, args)).rows[0].n);
const jobsOf = (flow: string) => count(`select count(*) n from job_runs where created_by like $1`, [`flow:${flow}/%`]);
const queueJobsOf = (flow: string) => count(
  `select count(*) n from pgboss.job q join job_runs j on j.queue_job_id = q.id where j.created_by like $1 and q.data->>'runId' = j.id::text`, [`flow:${flow}/%`]);

describe('applyFlowStep: job starts', () => {
  const N = 6;
  const wide = (name: string) => createFlow(db.pool, catalog, {
    name, maxParallel: N,
    nodes: [{ id: 'p', pipeline: 'probe' }, ...Array.from({ length: N - 1 }, (_, i) => ({ id: `n${i}`, kind: 'system.check', params: {} }))],
  });

  it(`starts ${N} ready nodes with one INSERT of job runs and one pg-boss insert`, async () => {
    const f = await wide('batch');
    const run = await startFlowRun(db.pool, f.id);
    const { pool, statements } = recordingPool();
    await advanceFlowRun({ pool, catalog, logger: silentLogger }, run.id);

    expect(statements.filter((s) => /insert into job_runs/i.test(s))).toHaveLength(1);
    expect(statements.filter((s) => /insert into pgboss\.job/i.test(s))).toHaveLength(1);
    expect(statements.filter((s) => /insert into pipeline_runs/i.test(s))).toHaveLength(1);
    expect(statements.filter((s) => /savepoint node_start/i.test(s))).toHaveLength(0);
    expect(await jobsOf('batch')).toBe(N);
    expect(await queueJobsOf('batch')).toBe(N);
    const nodes = (await db.pool.query(`select node_id, status, job_run_id, attempts from flow_run_nodes where flow_run_id = $1`, [run.id])).rows;
    expect(nodes.every((n) => n.status === 'queued' && n.job_run_id && n.attempts === 1)).toBe(true);
    expect(new Set(nodes.map((n) => n.job_run_id)).size).toBe(N);
    expect(await count('select count(*) n from pipeline_runs where flow_run_id = $1', [run.id])).toBe(1);
    expect(await count(`select count(*) n from audit_events where action = 'job.start' and actor like 'flow:batch/%'`, [])).toBe(N);
  });

  it('a worker killed between writing the jobs and the nodes leaves no job; the next tick starts each node once', async () => {
    const f = await wide('crash');
    const run = await startFlowRun(db.pool, f.id);
    const crashing = recordingPool(/^\s*update flow_run_nodes/i);
    await expect(advanceFlowRun({ pool: crashing.pool, catalog, logger: silentLogger }, run.id)).rejects.toThrow();
    // The jobs were written before the crash, in the transaction that died with it.
    expect(crashing.statements.some((s) => /insert into job_runs/i.test(s))).toBe(true);
    expect(await jobsOf('crash')).toBe(0);
    expect(await queueJobsOf('crash')).toBe(0);

    await advanceFlowRun({ pool: db.pool, catalog, logger: silentLogger }, run.id);
    expect(await jobsOf('crash')).toBe(N);
    expect(await queueJobsOf('crash')).toBe(N);
    // Ticking again finds every node queued with its job: nothing starts twice.
    await advanceFlowRun({ pool: db.pool, catalog, logger: silentLogger }, run.id);
    expect(await jobsOf('crash')).toBe(N);
    expect(await count('select count(distinct job_run_id) n from flow_run_nodes where flow_run_id = $1', [run.id])).toBe(N);
    expect(await count('select count(*) n from pipeline_runs where flow_run_id = $1', [run.id])).toBe(1);
  });
});
