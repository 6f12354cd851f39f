import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { createConnection } from '../connections';
import { createJobRegistry, enqueueJob, listRunUnits } from '../jobs';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../testing/pg';
import { expectLostUnitsRanElsewhere, unitOnAnotherWorker, runEnded, waitForWorkers, workerProcesses } from '../testing/worker-processes';
import { slicesJobs } from './jobs';
import { getSlices } from './run/state';
import { makeSource, queryFile, sql, tmpDir } from './run/test-fixtures';

// A native slice run (`slices.run`, executor native) spread over real worker processes
// (default TRIBUTARY_FANOUT=auto, three workers alive): every slice is a `slices.slice` job; the target must equal the source.
const ROWS = 120_000;
const SLICES = 12;
let db: TestDatabase;
let src: { url: string; drop(): Promise<void> };
let tgt: { url: string; drop(): Promise<void> };
let dir: string;
const jobs = createJobRegistry(slicesJobs);
const procs = workerProcesses({ databaseUrl: () => db.url, dataDir: () => dir });

beforeAll(async () => {
  db = await createTestDatabase();
  src = await createScratchDatabase('fsrc');
  tgt = await createScratchDatabase('ftgt');
  dir = await tmpDir();
  await makeSource(src.url, 'public.src', ROWS);
  const conns = { pool: db.pool, keys: { dataDir: dir } };
  await createConnection(conns, { name: 'src', kind: 'postgres', secrets: { url: src.url } });
  await createConnection(conns, { name: 'tgt', kind: 'postgres', secrets: { url: tgt.url } });
});
afterEach(async () => { await procs.stopAll(); });
afterAll(async () => { await procs.stopAll(); await db?.drop(); await src?.drop(); await tgt?.drop(); await fs.rm(dir, { recursive: true, force: true }); });

async function runOnWorkers(runId: number, table: string, during?: (parent: string) => Promise<void>) {
  await sql(tgt.url, `create table public.${table} (id bigint primary key, grp int not null, amount numeric(12,2), note text, created_at timestamptz not null)`);
  const env = parseEnv({ TRIBUTARY_DATA_DIR: dir } as unknown as NodeJS.ProcessEnv);
  await waitForWorkers(db.pool, 3);
  const { runId: parent } = await enqueueJob({ pool: db.pool, jobs, env }, {
    kind: 'slices.run', createdBy: 'test',
    params: { runId, executor: 'native', concurrency: 4, connection: 'src', targetConnection: 'tgt', queryFileText: queryFile('public.src', `public.${table}`, ROWS, SLICES), deployWait: 0, batchRows: 2000 },
  });
  await during?.(parent);
  const run = await runEnded(db.pool, parent);
  return { run, units: await listRunUnits(db.pool, parent) };
}

/** The target holds each source row exactly once, with the source's values. */
async function expectTargetEqualsSource(table: string): Promise<void> {
  const t = await sql(tgt.url, `select count(*)::int n, count(distinct id)::int k, sum(amount)::text s, md5(string_agg(id || ':' || coalesce(note, '-'), ',' order by id)) h from public.${table}`);
  const s = await sql(src.url, `select count(*)::int n, count(distinct id)::int k, sum(amount)::text s, md5(string_agg(id || ':' || coalesce(note, '-'), ',' order by id)) h from public.src`);
  expect(t[0]).toEqual(s[0]);
}

describe('a native slice run fanned out over worker processes', () => {
  it('three workers share the slices: each runs some; the target equals the source', async () => {
    const ws = [procs.start(), procs.start(), procs.start()];
    const { run, units } = await runOnWorkers(61, 'tgt_three');
    expect(run.error).toBeNull();
    expect((run.result as { verdict: string }).verdict).toBe('FINISHED');
    const ok = units.filter((u) => u.status === 'succeeded');
    expect(new Set(ok.map((u) => u.unit)).size).toBe(SLICES);
    const pids = new Set(ok.map((u) => u.workerId!.split(':')[1]));
    for (const w of ws) expect(pids, `worker ${w.pid} ran some slices`).toContain(String(w.pid));
    await expectTargetEqualsSource('tgt_three');
    const slices = await getSlices(db.pool, 61);
    expect(slices.map((x) => x.status)).toEqual(Array(SLICES).fill('COMPLETED'));
    // The slice's notes name the worker that copied it.
    expect(slices.every((x) => /\(worker [^)]+\)/.test(x.notes ?? ''))).toBe(true);
  }, 300_000);

  it('kill -9 of a worker mid-run: its slices run again elsewhere, the run finishes, nothing is doubled', async () => {
    const ws = [procs.start(), procs.start(), procs.start()];
    let victim: ChildProcess | undefined;
    const { run, units } = await runOnWorkers(62, 'tgt_killed', async (parent) => {
      const { pid } = await unitOnAnotherWorker(db.pool, parent);
      victim = ws.find((w) => w.pid === pid)!;
      victim.kill('SIGKILL');
    });
    expect(run.error).toBeNull();
    expect((run.result as { verdict: string }).verdict).toBe('FINISHED');
    expectLostUnitsRanElsewhere(units, victim!.pid!);
    await expectTargetEqualsSource('tgt_killed');
  }, 300_000);
});
