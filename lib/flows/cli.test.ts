// `tributary flows …` and `tributary pipelines …` as a user runs them: the
// real bin against a real database (a worker runs the queued jobs).
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPrisma, type Db } from '../db/prisma';
import { parseEnv } from '../config/env';
import { silentLogger } from '../log';
import { createJobRegistry, type JobCatalog, startWorker, type WorkerHandle } from '../jobs';
import { jobDefinitions } from '../../workers/jobs';

const jobRegistry = createJobRegistry(jobDefinitions);
import { createPipeline } from '../pipelines';
import { createFlow } from './store';
import { startFlowScheduler, type SchedulerHandle } from './scheduler';

let catalog: JobCatalog;

const ROOT = path.resolve(import.meta.dirname, '../..');
let db: TestDatabase;
let prisma: Db;
let dir: string;
let env: NodeJS.ProcessEnv;
let worker: WorkerHandle;
let exec: SchedulerHandle;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/tributary.mjs'), ...args], { cwd: dir, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'flows-cli-'));
  env = { ...process.env, DATABASE_URL: db.url, TRIBUTARY_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' };
  catalog = { jobs: jobRegistry, env: parseEnv(env) };
  worker = await startWorker({ jobs: jobRegistry, pool: db.pool, env: parseEnv(env), logger: silentLogger, concurrency: 2, heartbeatMs: 300 });
  exec = startFlowScheduler({ pool: db.pool, catalog, url: db.url, logger: silentLogger, tickMs: 200, schedule: false });
  await createPipeline(db.pool, catalog, { name: 'probe', kind: 'system.check', tags: ['ops'] });
  await createFlow(db.pool, catalog, { name: 'nightly', cron: '0 9 * * 1-5', timezone: 'America/New_York', nodes: [{ id: 'a', pipeline: 'probe' }, { id: 'b', kind: 'system.check' }], edges: [{ from: 'a', to: 'b' }] });
});
afterAll(async () => {
  await exec?.stop();
  await worker?.stop({ timeoutMs: 10_000 });
  await prisma.$disconnect();
  await db.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('tributary flows / pipelines', () => {
  it('lists and shows flows, pauses and resumes', async () => {
    const l = await cli(['flows', 'list']);
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(/^nightly\tenabled\t0 9 \* \* 1-5 America\/New_York\tnext \d{4}-\d\d-\d\d 09:00 \(GMT-[45]\)\t2 nodes\tnever run/m);
    const s = await cli(['flows', 'show', 'nightly']);
    expect(s.stdout).toMatch(/At 09:00, Monday through Friday/);
    expect(s.stdout).toMatch(/b\tsystem.check \{\}\tafter a/);
    expect((await cli(['flows', 'pause', 'nightly'])).stdout).toBe('nightly paused\n');
    expect((await cli(['flows', 'list'])).stdout).toMatch(/nightly\tpaused/);
    expect((await cli(['flows', 'resume', 'nightly'])).stdout).toMatch(/nightly resumed; next fire .* 09:00/);
    const missing = await cli(['flows', 'show', 'ghost']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no flow 'ghost'/);
  });

  it('runs a flow and waits for it', async () => {
    const r = await cli(['flows', 'run', 'nightly', '--wait']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/flow run [0-9a-f-]{36} queued/);
    expect(r.stdout).toMatch(/b: succeeded/);
    expect(r.stdout).toMatch(/flow run [0-9a-f-]{36} succeeded/);
  });

  it('--idempotency-key: the same key twice starts one job (pipelines run) and one flow run (flows run)', async () => {
    const a = await cli(['pipelines', 'run', 'probe', '--idempotency-key', 'cron-2026-12-02']);
    expect(a.code).toBe(0);
    const id = /job ([0-9a-f-]{36}) \(system.check\) queued/.exec(a.stdout)?.[1];
    expect(id).toBeTruthy();
    const b = await cli(['pipelines', 'run', 'probe', '--idempotency-key', 'cron-2026-12-02']);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(`job ${id} (system.check) already started with this idempotency key\n`);
    expect(Number((await db.pool.query('select count(*) from pipeline_runs where job_run_id = $1', [id])).rows[0].count)).toBe(1);
    const f1 = await cli(['flows', 'run', 'nightly', '--idempotency-key', 'f-1']);
    const fid = /flow run ([0-9a-f-]{36}) queued/.exec(f1.stdout)?.[1];
    expect(fid).toBeTruthy();
    const f2 = await cli(['flows', 'run', 'nightly', '--idempotency-key', 'f-1']);
    expect(f2.stdout).toMatch(new RegExp(`^flow run ${fid} already started with this idempotency key`));
    // A key used for another command is refused, as the API's 422.
    const other = await cli(['flows', 'run', 'nightly', '--idempotency-key', 'cron-2026-12-02']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/used within the last 24 hours for a different request/);
  });

  it('validates a flow file, naming the field of a problem', async () => {
    const good = path.join(dir, 'good.json');
    await fs.writeFile(good, JSON.stringify({ name: 'x', nodes: [{ id: 'a', kind: 'system.check' }], cron: '*/5 * * * *', timezone: 'Europe/Berlin' }));
    const ok = await cli(['flows', 'validate', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/valid flow 'x' with 1 nodes/);
    const bad = path.join(dir, 'bad.json');
    await fs.writeFile(bad, JSON.stringify({ name: 'x', nodes: [{ id: 'a', kind: 'etl.run', params: { mode: 'SIDEWAYS' } }] }));
    const no = await cli(['flows', 'validate', bad]);
    expect(no.code).not.toBe(0);
    expect(no.stderr).toMatch(/nodes\[0\]\.params\.mode/);
  });

  it('lists and runs pipelines', async () => {
    expect((await cli(['pipelines', 'list'])).stdout).toBe('probe\tsystem.check\tops\ttributary pipelines run probe\n');
    const r = await cli(['pipelines', 'run', 'probe', '--wait']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/job [0-9a-f-]{36} succeeded/);
  });
});
