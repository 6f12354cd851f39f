import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSliceDatabases } from '../../testing/slice-databases';
import { buildBoard } from './board';
import { clearRun, getStatus, readLogs, resetRun } from './manage';
import { runSlices } from './orchestrator';
import { openSource } from './source';
import { reconcileRun } from './reconcile';
import { acquireRunLock } from './run-lock';
import { checkSetup } from './setup';
import { createStriimClient } from './striim-client';
import { startStriimEmulator, type StriimEmulator } from '../testing/striim-emulator';
import { DEFAULT_TQL_TEMPLATE } from './tql-template';
import { fastSettings, fastTemplate, makeSource, queryFile, SOURCE_DDL, sql } from './test-fixtures';

// 200k rows / 16 slices / concurrency 4 (the 1M rows is too slow on 2 shared cores: same code paths).
const ROWS = 200_000;
const fx = useSliceDatabases({
  rows: ROWS,
  targetSql: ['tgt_small', 'tgt_q', 'tgt_stall'].map((t) => `create table public.${t} ${SOURCE_DDL}`).join(';\n'),
});
let emu: StriimEmulator;
const template = fastTemplate(DEFAULT_TQL_TEMPLATE);

beforeAll(async () => {
  await makeSource(fx.src.url, 'public.small', 20_000);
  emu = await startStriimEmulator({ sourceUrl: fx.src.url, targetUrl: fx.tgt.url, tokenTtlMs: 2000 });
});
afterAll(async () => { await emu?.close(); });

const settings = (flags: Parameters<typeof fastSettings>[0]) => fastSettings({ striimUrl: emu.url, sourceUrl: fx.src.url, targetUrl: fx.tgt.url, logDir: fx.dir, ...flags }, fx.dir);

describe('slices run through the Striim emulator', () => {
  it('completes 16 slices at concurrency 4: target = source, no duplicates, board = table, watermark bannered, tokens renewed', async () => {
    const printed: string[] = [];
    // Every token the emulator issued is dropped once the run has started (its watermark banner is out), as a
    // Striim server's expiry would: the client's next call is refused and must sign in again. (Waiting for the
    // 2 s TTL alone made the test depend on the run outlasting it.)
    let expired = false;
    const print = (l: string) => {
      printed.push(l);
      if (!expired && /INITIAL LOAD START WATERMARK/.test(l)) { expired = true; emu.expireTokens(); }
    };
    const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 1 }), queryFileText: queryFile('public.src', 'public.tgt', ROWS, 16), templateText: template, print });
    expect(r.verdict).toBe('FINISHED');
    expect(r.mode).toBe('fresh');
    expect(r.counts.COMPLETED).toBe(16);
    const [t] = await sql(fx.tgt.url, 'select count(*)::int n, count(distinct id)::int d, sum(amount)::text s from public.tgt');
    const [s] = await sql(fx.src.url, 'select count(*)::int n, sum(amount)::text s from public.src');
    expect(t).toEqual({ n: ROWS, d: ROWS, s: s.s });
    // watermark: banner, stored, sidecar
    expect(printed.join('\n')).toMatch(/INITIAL LOAD START WATERMARK \[PostgreSQL WAL LSN\]: [0-9A-F]+\/[0-9A-F]+/);
    const side = JSON.parse(await fs.readFile(path.join(fx.dir, 'run_1_watermark.json'), 'utf8'));
    expect(side).toMatchObject({ run_id: 1, label: 'PostgreSQL WAL LSN', value: r.watermark!.value });
    expect(side.source_dsn).toMatch(/^127\.0\.0\.1:\d+\/src_/);
    // state: all completed → out of the active view; template stored with the run
    const rows = await fx.db.pool.query('select status, iscurrentrow, attempts, namespace from striim_orchestration where uniquerunid = 1 order by roworder');
    expect(rows.rows.every((x) => x.status === 'COMPLETED' && !x.iscurrentrow && x.attempts === 1)).toBe(true);
    expect(rows.rows[2].namespace).toBe('ILA_1_3');
    const run = await fx.db.pool.query('select template_tql, verdict, api_reauths, fresh_marker from slice_runs where run_id = 1');
    expect(run.rows[0]).toMatchObject({ template_tql: template, verdict: 'FINISHED', fresh_marker: false });
    expect(expired).toBe(true);
    expect(emu.stats.tokenRejections).toBeGreaterThan(0); // the tokens expired mid-run…
    expect(run.rows[0].api_reauths).toBeGreaterThan(0); // …and were renewed transparently
    expect(emu.apps.size).toBe(0);
    expect([...emu.namespaces].filter((n) => n.startsWith('ILA_'))).toEqual([]);
    // board consistent with the table
    const b = await buildBoard(fx.db.pool, 1);
    expect(b).toMatchObject({ total: 16, percentComplete: 100, verdict: 'FINISHED', active: false, inFlight: [], failed: [] });
    expect(b.counts.COMPLETED).toBe(16);
    expect(b.recentCompletions.length).toBe(10);
    expect(b.stageWatch.filter((e) => e.event === '+ appeared').length).toBeGreaterThan(0);
    expect(b.watermark?.value).toBe(r.watermark!.value);
    // rerun of a finished run does nothing
    const again = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 1 }), queryFileText: queryFile('public.src', 'public.tgt', ROWS, 16) });
    expect(again.mode).toBe('already-finished');
  });

  it('reconciles with deltas 0, then a deleted target row shows as that slice\'s delta 1', async () => {
    const source = await openSource({ sourceEngine: 'postgres', sourceUrl: fx.src.url, oracle: null });
    const { createPool } = await import('../../db/pool');
    const tpool = createPool(fx.tgt.url, { max: 2 });
    try {
      const r0 = await reconcileRun(fx.db.pool, 1, { source, target: { kind: 'postgres', pool: tpool } });
      expect(r0.slices.length).toBe(16);
      expect(r0.slices.every((x) => x.delta === 0 && x.sourceCount === x.targetCount)).toBe(true);
      expect(r0.total).toEqual({ source: ROWS, target: ROWS, delta: 0 });
      await sql(fx.tgt.url, 'delete from public.tgt where id = 12501'); // slice 2 of 16 (12,500 rows each)
      const r1 = await reconcileRun(fx.db.pool, 1, { source, target: { kind: 'postgres', pool: tpool } });
      expect(r1.slices.filter((x) => x.delta !== 0).map((x) => [x.slice, x.delta])).toEqual([[2, 1]]);
      expect(r1.total.delta).toBe(1);
    } finally { await source?.close(); await tpool.end(); }
  });

  it('retries 503 bursts and counts them', async () => {
    // Two bursts, never more in a row than the client's attempts: 3 at the start (the pre-flight
    // gets through on its 4th try), then 2 more once the first app is deployed.
    // (the emulator's counters run across this file's tests: count from here)
    const deploys0 = emu.stats.deploys, served0 = emu.stats.http503Served;
    emu.faults.http503 = 3;
    let second = false;
    const timer = setInterval(() => { if (!second && emu.stats.deploys > deploys0) { emu.faults.http503 = 2; second = true; } }, 5);
    try {
      const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 2 }), queryFileText: queryFile('public.small', 'public.tgt_small', 20_000, 4), templateText: template });
      expect(r.verdict).toBe('FINISHED');
      expect(r.apiRetries).toBeGreaterThanOrEqual(2);
    } finally { clearInterval(timer); emu.faults.http503 = 0; }
    expect(emu.stats.http503Served - served0).toBe(5);
    const [t] = await sql(fx.tgt.url, 'select count(*)::int n from public.tgt_small');
    expect(t.n).toBe(20_000);
    expect(((await getStatus(fx.db.pool, { runId: 2 })) as { api: unknown }).api).toMatchObject({ retries: expect.any(Number) });
  });

  it('fails a never-quiescing app on the stall timeout, and reset re-queues it', async () => {
    emu.faults.neverQuiesce = /^ILA_3_2\./;
    try {
      // The stall timeout counts from each slice's start, the healthy slice 1 included: 10 s, so that a loaded
      // machine cannot make slice 1 outlast it too (it takes well under a second on a quiet one).
      const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 3, stallTimeout: 10, retryFailed: false }), queryFileText: queryFile('public.small', 'public.tgt_stall', 2_000, 2), templateText: template });
      expect(r.verdict).toBe('FINISHED WITH FAILURES');
      const st = await getStatus(fx.db.pool, { runId: 3, failed: true, rows: true });
      expect((st as { failed: unknown }).failed).toEqual([expect.objectContaining({ slice: 2, status: 'FAILED', attempts: 1, notes: expect.stringContaining('[stalled > 10s]') })]);
      expect(emu.apps.has('ILA_3_2.OracleInitialLoadApp')).toBe(false); // stopped and dropped
      expect((await readLogs(fx.db.pool, 3, { errors: true })).map((l) => l.message).join('\n')).toMatch(/slice 2 → FAILED/);
    } finally { emu.faults.neverQuiesce = null; }
    const reset = await resetRun(fx.db.pool, 3);
    expect(reset.requeued).toBe(1);
    const r2 = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 3 }) });
    expect(r2).toMatchObject({ mode: 'resume', verdict: 'FINISHED' });
    const att = await fx.db.pool.query('select roworder, attempts from striim_orchestration where uniquerunid = 3 order by roworder');
    expect(att.rows).toEqual([{ roworder: 1, attempts: 1 }, { roworder: 2, attempts: 2 }]);
    const [t] = await sql(fx.tgt.url, 'select count(*)::int n, count(distinct id)::int d from public.tgt_stall');
    expect(t).toEqual({ n: 2_000, d: 2_000 });
  });

  it('quarantines a slice whose deploy always fails and goes on with the rest', async () => {
    emu.faults.failDeploy = /^ILA_4_1\./;
    try {
      const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 4, maxAttempts: 3 }), queryFileText: queryFile('public.small', 'public.tgt_q', 20_000, 3), templateText: template });
      expect(r.verdict).toBe('FINISHED WITH FAILURES');
      expect(r.counts).toMatchObject({ COMPLETED: 2, QUARANTINED: 1 });
      const [q] = (await fx.db.pool.query("select attempts, notes, last_error from striim_orchestration where uniquerunid = 4 and roworder = 1")).rows;
      expect(q.attempts).toBe(3);
      expect(q.notes).toMatch(/\[deploy\] Unable to deploy: .*injected deploy failure.*quarantined after 3 attempts/);
      // reset leaves QUARANTINED alone unless asked; then the slice gets fresh attempts
      expect((await resetRun(fx.db.pool, 4)).requeued).toBe(0);
      emu.faults.failDeploy = null;
      expect((await resetRun(fx.db.pool, 4, { includeQuarantined: true })).requeued).toBe(1);
      const r2 = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 4 }) });
      expect(r2.verdict).toBe('FINISHED');
    } finally { emu.faults.failDeploy = null; }
  });

  it('refuses a second orchestrator (run lock) and a wiped run without --force-fresh (guard)', async () => {
    const lock = await acquireRunLock(fx.db.pool, 5);
    try {
      await expect(runSlices({ pool: fx.db.pool, settings: settings({ runId: 5 }), queryFileText: queryFile('public.small', 'public.tgt_q', 20_000, 2) }))
        .rejects.toThrow(/run 5 is already running \(locked by .* pid \d+/);
      await expect(resetRun(fx.db.pool, 5)).rejects.toThrow(/is running/);
    } finally { await lock.release(); }
    // register then wipe the rows behind the tool's back
    emu.faults.failDeploy = /^ILA_5_/;
    await runSlices({ pool: fx.db.pool, settings: settings({ runId: 5, maxAttempts: 1 }), queryFileText: queryFile('public.small', 'public.tgt_q', 20_000, 2), templateText: template });
    emu.faults.failDeploy = null;
    await fx.db.pool.query('delete from striim_orchestration where uniquerunid = 5');
    await expect(runSlices({ pool: fx.db.pool, settings: settings({ runId: 5 }), queryFileText: queryFile('public.small', 'public.tgt_q', 20_000, 2) }))
      .rejects.toThrow(/REFUSE: run 5 had slices registered and now has none — use --force-fresh/);
    const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 5, forceFresh: true }), queryFileText: queryFile('public.small', 'public.tgt_q', 20_000, 2), templateText: template });
    expect(r).toMatchObject({ mode: 'fresh', verdict: 'FINISHED' });
  });

  it('clear retires a run (soft) or deletes it (hard), and cleans Striim leftovers', async () => {
    const client = createStriimClient({ baseUrl: emu.url, user: 'admin', password: 'admin' });
    // a leftover app of run 4 in Striim (e.g. from an interrupted run)
    await client.exec(`CREATE NAMESPACE ILA_4_9; USE ILA_4_9; ${template.replace('~QUERYTEXT~', 'SELECT 1').replace('~TARGETTABLE~', 'public.t')}`);
    const soft = await clearRun(fx.db.pool, 4, { striim: client });
    expect(soft.cleaned).toContain('ILA_4_9');
    expect((await fx.db.pool.query('select count(*)::int n from striim_orchestration where uniquerunid = 4 and iscurrentrow')).rows[0].n).toBe(0);
    expect((await fx.db.pool.query('select count(*)::int n from striim_orchestration where uniquerunid = 4')).rows[0].n).toBeGreaterThan(0);
    const hard = await clearRun(fx.db.pool, 4, { hard: true });
    expect(hard.rows).toBeGreaterThan(0);
    expect((await fx.db.pool.query('select count(*)::int n from striim_orchestration where uniquerunid = 4')).rows[0].n).toBe(0);
    expect((await fx.db.pool.query('select count(*)::int n from slice_runs where run_id = 4')).rows[0].n).toBe(0);
    const all = await getStatus(fx.db.pool, { allRuns: true });
    expect((all as { runs: { run_id: number }[] }).runs.map((x) => x.run_id)).toEqual([1, 2, 3, 5]);
  });

  it('setup reports Striim, source (with its watermark) and the state table', async () => {
    const checks = await checkSetup(fx.db.pool, settings({ runId: 1 }));
    expect(checks.map((c) => [c.name, c.ok])).toEqual([['state', true], ['striim', true], ['source', true], ['target', true]]);
    expect(checks[1].detail).toMatch(/authenticated \(user admin\)/);
    expect(checks[2].detail).toMatch(/postgres 127\.0\.0\.1:\d+\/src_\w+: reachable; watermark \[PostgreSQL WAL LSN\]/);
    const bad = await checkSetup(fx.db.pool, fastSettings({ runId: 1, striimUrl: 'http://127.0.0.1:1', striimRetries: 0 }, fx.dir));
    expect(bad.find((c) => c.name === 'striim')).toMatchObject({ ok: false, detail: expect.stringMatching(/unreachable/) });
    expect(bad.find((c) => c.name === 'source')).toMatchObject({ ok: false, detail: expect.stringMatching(/no oracle source configured/) });
  });

  it('stops gracefully on abort (in-flight slices finish, the rest stays NEW) and resumes', async () => {
    await sql(fx.tgt.url, 'create table public.tgt_int (id bigint primary key, grp int not null, amount numeric(12,2), note text, created_at timestamptz not null)');
    const ac = new AbortController();
    const q = queryFile('public.small', 'public.tgt_int', 4_000, 4);
    const timer = setInterval(async () => {
      const r = await fx.db.pool.query("select count(*)::int n from striim_orchestration where uniquerunid = 7 and status = 'RUNNING'");
      if (r.rows[0].n > 0) { ac.abort(); clearInterval(timer); }
    }, 20);
    const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 7, concurrency: 1 }), queryFileText: q, templateText: template, signal: ac.signal });
    clearInterval(timer);
    expect(r.verdict).toBe('INTERRUPTED');
    expect(r.counts.RUNNING).toBe(0);
    expect(r.counts.COMPLETED).toBeGreaterThanOrEqual(1);
    expect(r.counts.NEW).toBeGreaterThanOrEqual(1);
    const r2 = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 7 }) });
    expect(r2).toMatchObject({ mode: 'resume', verdict: 'FINISHED' });
    expect((await sql(fx.tgt.url, 'select count(*)::int n from public.tgt_int'))[0].n).toBe(4_000);
  });

  it('marks COMPLETED-FAILEDDROP when cleanup fails; reset --include-faileddrop --with-striim-cleanup recovers', async () => {
    await sql(fx.tgt.url, 'create table public.tgt_fd (id bigint primary key, grp int not null, amount numeric(12,2), note text, created_at timestamptz not null)');
    emu.faults.failUndeploy = /^ILA_8_2\./;
    const q = queryFile('public.small', 'public.tgt_fd', 2_000, 2);
    try {
      const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 8 }), queryFileText: q, templateText: template });
      expect(r.verdict).toBe('FINISHED'); // data landed; only cleanup failed
      expect(r.counts).toMatchObject({ COMPLETED: 1, 'COMPLETED-FAILEDDROP': 1 });
      const [row] = (await fx.db.pool.query('select notes, iscurrentrow from striim_orchestration where uniquerunid = 8 and roworder = 2')).rows;
      expect(row.notes).toMatch(/cleanup failed: undeploy: .*injected cleanup failure/);
      expect(row.iscurrentrow).toBe(true); // stays in the active view for reset
      expect(emu.apps.has('ILA_8_2.OracleInitialLoadApp')).toBe(true);
    } finally { emu.faults.failUndeploy = null; }
    const client = createStriimClient({ baseUrl: emu.url, user: 'admin', password: 'admin' });
    const reset = await resetRun(fx.db.pool, 8, { includeFaileddrop: true, striim: client });
    expect(reset.requeued).toBe(1);
    expect(reset.cleaned).toEqual(expect.arrayContaining(['ILA_8_2.OracleInitialLoadApp', 'ILA_8_2']));
    expect(emu.apps.has('ILA_8_2.OracleInitialLoadApp')).toBe(false);
    const r2 = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 8 }) });
    expect(r2.counts).toMatchObject({ COMPLETED: 2 });
    expect((await sql(fx.tgt.url, 'select count(*)::int n from public.tgt_fd'))[0].n).toBe(2_000);
  });

  it('stops before registering anything when Striim is unreachable or refuses the credentials', async () => {
    await expect(runSlices({ pool: fx.db.pool, settings: settings({ runId: 11, striimUrl: 'http://127.0.0.1:1', striimRetries: 1 }), queryFileText: queryFile('public.small', 'public.tgt_q', 2_000, 2) }))
      .rejects.toThrow(/Striim at http:\/\/127.0.0.1:1 is not usable: .*unreachable after 2 attempts/);
    const wrong = { ...settings({ runId: 11 }), striim: { ...settings({ runId: 11 }).striim, password: 'nope' } };
    await expect(runSlices({ pool: fx.db.pool, settings: wrong, queryFileText: queryFile('public.small', 'public.tgt_q', 2_000, 2) }))
      .rejects.toThrow(/Authentication failed/);
    expect((await fx.db.pool.query('select count(*)::int n from striim_orchestration where uniquerunid = 11')).rows[0].n).toBe(0);
  });

  it('retries a slice that died half-way; the re-read skips the rows already written (DUPLICATE_ROW_EXISTS)', async () => {
    await sql(fx.tgt.url, 'create table public.tgt_die (id bigint primary key, grp int not null, amount numeric(12,2), note text, created_at timestamptz not null)');
    emu.faults.dieHalfway = /^ILA_12_1\./;
    emu.faults.dieHalfwayTimes = 1;
    try {
      const r = await runSlices({ pool: fx.db.pool, settings: settings({ runId: 12 }), queryFileText: queryFile('public.small', 'public.tgt_die', 8_000, 2), templateText: template.replace(/EventCount:2000,/g, 'EventCount:500,') });
      expect(r.verdict).toBe('FINISHED');
    } finally { emu.faults.dieHalfway = null; }
    const [row] = (await fx.db.pool.query('select attempts, last_error from striim_orchestration where uniquerunid = 12 and roworder = 1')).rows;
    expect(row.attempts).toBe(2);
    expect(row.last_error).toMatch(/\[runtime\] application TERMINATED: .*died half-way/);
    expect((await sql(fx.tgt.url, 'select count(*)::int n, count(distinct id)::int d from public.tgt_die'))[0]).toEqual({ n: 8_000, d: 8_000 });
  });
});
