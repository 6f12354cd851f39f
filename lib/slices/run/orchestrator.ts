import { backoffDelay, AppError } from '../../errors';
import { pause } from './backoff';
import type pg from 'pg';
import type { Logger } from '../../log';
import { silentLogger } from '../../log';
import type { RunningSlice, SliceExecutor, SliceOutcome } from './executor';
import { parseQueryFile } from './queryfile';
import { registerSlices } from './register';
import { acquireRunLock, runRefused } from './run-lock';
import { createRunLog, type RunLog } from './run-log';
import { publicSettings, type RunSettings } from './settings';
import { openSource } from './source';
import { countByStatus, countCurrentRows, getRun, getSlices, hasStarted, markOutcome, markRunning, setExecutor, type SliceRow } from './state';
import { createStriimClient, type StriimClient } from './striim-client';
import { createStriimExecutor } from './striim-executor';
import { DEFAULT_TQL_TEMPLATE, lintTemplate, templateAppName } from './tql-template';
import { captureWatermark, type Watermark } from '../../sources';
import { watermarkBanner, writeWatermarkSidecar } from './watermark';

export type Verdict = 'FINISHED' | 'FINISHED WITH FAILURES' | 'INTERRUPTED';

export interface RunResult {
  runId: number;
  mode: 'fresh' | 'resume' | 'already-finished';
  verdict: Verdict | 'ALREADY FINISHED';
  counts: Awaited<ReturnType<typeof countByStatus>>;
  watermark: Watermark | null;
  apiRetries: number;
  apiReauths: number;
}

export interface RunDeps {
  /** Tributary's database (the orchestration table lives there). */
  pool: pg.Pool;
  settings: RunSettings;
  logger?: Logger;
  /** Abort = graceful stop: launch nothing more, let in-flight slices finish. */
  signal?: AbortSignal;
  /** Queryfile contents (`SQL|TARGET` lines); needed for a fresh run. */
  queryFileText?: string | null;
  queryFilePath?: string | null;
  /** TQL template text; stored with the run at fresh start. (Default: the built-in admin.SW.tql) */
  templateText?: string | null;
  /** Console lines (banner, summary). (Default: none) */
  print?: (line: string) => void;
  progress?: (done: number, total: number) => void;
  /** The ORACLE_CLIENT_LIB_DIR setting: Oracle thick mode for the watermark session (11g). (Default: none) */
  oracleClientLibDir?: string;
  /** Build the native executor (lib/slices/run/native-executor), injected to keep this file Striim-free of I/O choices. */
  nativeExecutor?: (ctx: { pool: pg.Pool; settings: RunSettings; log: RunLog; signal?: AbortSignal; watermark: Watermark | null }) => Promise<SliceExecutor>;
  /** Use this Striim client instead of one built from settings (tests). */
  striimClient?: StriimClient;
}

/**
 * `slices run`: register (fresh) or resume, capture the watermark, then keep up
 * to `concurrency` slices in flight until every slice is COMPLETED, FAILED (not
 * retried) or QUARANTINED. Holds the run lock throughout.
 */
export async function runSlices(deps: RunDeps): Promise<RunResult> {
  const { pool, settings: s } = deps;
  const runId = s.runId;
  const logger = (deps.logger ?? silentLogger).child({ runId });
  const print = deps.print ?? (() => {});
  const log = createRunLog(pool, runId, logger);
  const lock = await acquireRunLock(pool, runId);
  let executor: SliceExecutor | null = null;
  let client: StriimClient | null = null;
  try {
    if (s.executor === 'striim') {
      client = deps.striimClient ?? createStriimClient({ ...s.striim, logger, signal: undefined });
      // Pre-flight: an unreachable Striim or bad credentials stop the run before anything is registered or marked.
      try { await client.mon(); } catch (e) { throw new AppError('internal', `slices: Striim at ${s.striim.baseUrl} is not usable: ${(e as Error).message}`, { cause: e }); }
    }
    const run0 = await getRun(pool, runId);
    const current = await countCurrentRows(pool, runId);
    let mode: RunResult['mode'] = 'resume';
    let watermark: Watermark | null = null;
    if (current === 0 || s.forceFresh) {
      if (current === 0 && run0?.fresh_marker && !s.forceFresh) {
        throw runRefused(`REFUSE: run ${runId} had slices registered and now has none — use --force-fresh (or FORCE_FRESH=1) to start it fresh`);
      }
      if (current === 0 && run0?.verdict === 'FINISHED' && !s.forceFresh) {
        print(`run ${runId} already FINISHED — nothing to do (use --force-fresh to load it again)`);
        return { runId, mode: 'already-finished', verdict: 'ALREADY FINISHED', counts: await countByStatus(pool, runId), watermark: null, apiRetries: run0.api_retries, apiReauths: run0.api_reauths };
      }
      if (!deps.queryFileText) throw new AppError('usage', `slices: run ${runId} has no slices yet — give --query-file FILE`);
      mode = 'fresh';
      const template = deps.templateText ?? DEFAULT_TQL_TEMPLATE;
      if (s.executor === 'striim') {
        templateAppName(template);
        for (const w of lintTemplate(template)) log.warn(`template: ${w}`);
      }
      const specs = parseQueryFile(deps.queryFileText);
      await registerSlices(pool, { runId, slices: specs, executor: s.executor, queryFile: deps.queryFilePath ?? null });
      await pool.query('update slice_runs set template_tql = $2, source_engine = $3 where run_id = $1', [runId, template, s.sourceEngine]);
      log.info(`registered ${specs.length} slices as NEW (fresh run, executor ${s.executor})`);
      watermark = await captureAndStore(pool, s, log, print, deps.oracleClientLibDir);
    } else if (run0) {
      // The executor is chosen when a run starts: a registered run (by split, say) that no slice ever
      // left NEW in may be run by either; a started one keeps its executor, whose apps or rows it has.
      const started = await hasStarted(pool, runId, run0.generation);
      if (run0.executor !== s.executor) {
        if (started) {
          throw runRefused(`slices: run ${runId} was started with --executor ${run0.executor}; resume it with --executor ${run0.executor} (or clear it and register it again)`);
        }
        await setExecutor(pool, runId, run0.generation, s.executor);
        log.info(`run ${runId} was registered for the ${run0.executor} executor and never started: running it with ${s.executor}`);
      }
      // Its first start is where the load begins: capture the watermark as a fresh run does.
      if (!started && !run0.watermark_value) {
        await pool.query('update slice_runs set source_engine = coalesce(source_engine, $2) where run_id = $1', [runId, s.sourceEngine]);
        watermark = await captureAndStore(pool, s, log, print, deps.oracleClientLibDir);
      }
    }
    const run = (await getRun(pool, runId))!;
    if (mode === 'resume') {
      log.info(`resuming run ${runId}: ${current} current slices; COMPLETED slices are skipped`);
      if (!watermark && run.watermark_value) {
        watermark = { label: run.watermark_label ?? '', value: run.watermark_value, capturedAt: run.watermark_captured_at ?? new Date(), sourceDsn: run.watermark_source_dsn ?? '' };
      }
    }
    await pool.query(`update slice_runs set verdict = null, finished_at = null, started_at = coalesce(started_at, now()),
                        settings = $2, updated_at = now() where run_id = $1`, [runId, JSON.stringify(publicSettings(s))]);
    const baseRetries = run.api_retries;
    const baseReauths = run.api_reauths;

    if (s.executor === 'striim') {
      const template = run.template_tql ?? deps.templateText ?? DEFAULT_TQL_TEMPLATE;
      executor = createStriimExecutor({ client: client!, settings: s, template, appName: templateAppName(template), log });
    } else {
      if (!deps.nativeExecutor) throw new AppError('fatal', 'slices: the native executor is not available here');
      executor = await deps.nativeExecutor({ pool, settings: s, log, signal: deps.signal, watermark });
    }

    const result = await loop({ pool, s, log, executor, signal: deps.signal, progress: deps.progress, generation: run.generation });
    const apiRetries = baseRetries + (client?.stats.retries ?? 0);
    const apiReauths = baseReauths + (client?.stats.reauths ?? 0);
    const counts = await countByStatus(pool, runId, run.generation);
    const open = counts.NEW + counts.RUNNING;
    const verdict: Verdict = open > 0 || result.interrupted ? 'INTERRUPTED'
      : counts.FAILED + counts.QUARANTINED > 0 ? 'FINISHED WITH FAILURES' : 'FINISHED';
    const allCompleted = counts.COMPLETED === counts.total;
    await pool.query(`update slice_runs set verdict = $2, finished_at = case when $2 = 'INTERRUPTED' then null else now() end,
                        fresh_marker = case when $3 then false else fresh_marker end, api_retries = $4, api_reauths = $5, updated_at = now()
                      where run_id = $1`, [runId, verdict, allCompleted, apiRetries, apiReauths]);
    if (allCompleted) {
      // Seed: a run whose slices all completed leaves the active view; history stays.
      await pool.query('update striim_orchestration set iscurrentrow = false, updated_at = now() where uniquerunid = $1 and iscurrentrow', [runId]);
    }
    const summary = `run ${runId}: ${verdict} — ${counts.COMPLETED}/${counts.total} COMPLETED` +
      (counts['COMPLETED-FAILEDDROP'] ? `, ${counts['COMPLETED-FAILEDDROP']} COMPLETED-FAILEDDROP` : '') +
      (counts.FAILED ? `, ${counts.FAILED} FAILED` : '') + (counts.QUARANTINED ? `, ${counts.QUARANTINED} QUARANTINED` : '') +
      (open ? `, ${open} not done (resume with the same --run-id)` : '') +
      (client ? ` (Striim API retries ${apiRetries}, re-authentications ${apiReauths})` : '');
    (verdict === 'FINISHED' ? log.info : log.warn)(summary);
    print(summary);
    return { runId, mode, verdict, counts, watermark, apiRetries, apiReauths };
  } finally {
    await executor?.close().catch((e) => logger.warn('slices: closing the executor failed', { error: (e as Error).message }));
    await log.flush();
    await lock.release();
  }
}

/** Capture, store, banner and sidecar the watermark; best effort (a warning when it cannot). */
async function captureAndStore(pool: pg.Pool, s: RunSettings, log: RunLog, print: (l: string) => void, oracleClientLibDir?: string): Promise<Watermark | null> {
  let src = null;
  try {
    src = await openSource(s, { oracleClientLibDir });
    if (!src) {
      log.warn('watermark: no source connection configured (--source-url / SOURCE_PG_* / ORACLE_*) — set the CDC start point manually');
      return null;
    }
    const w = await captureWatermark(src);
    await pool.query(`update slice_runs set watermark_label = $2, watermark_value = $3, watermark_captured_at = $4, watermark_source_dsn = $5
                      where run_id = $1`, [s.runId, w.label, w.value, w.capturedAt, w.sourceDsn]);
    print(watermarkBanner(w, s.runId));
    log.info(`watermark [${w.label}]: ${w.value}`, { fields: { label: w.label, value: w.value } });
    try {
      const file = await writeWatermarkSidecar(s.logDir, s.runId, w);
      log.info(`watermark sidecar written: ${file}`);
    } catch (e) {
      log.warn(`watermark sidecar not written: ${(e as Error).message}`);
    }
    return w;
  } catch (e) {
    log.warn(`watermark capture failed (${(e as Error).message}) — the load goes on; set the CDC start point manually`);
    return null;
  } finally {
    await src?.close().catch((e) => log.warn(`watermark: closing the source failed: ${(e as Error).message}`));
  }
}

interface InFlight { slice: SliceRow; rs: RunningSlice; startedAt: number; outcome?: SliceOutcome; cancelling?: boolean }

async function loop(p: {
  pool: pg.Pool; s: RunSettings; log: RunLog; executor: SliceExecutor; signal?: AbortSignal; generation: number;
  progress?: (done: number, total: number) => void;
  /** The ORACLE_CLIENT_LIB_DIR setting: Oracle thick mode for the watermark session (11g). (Default: none) */
  oracleClientLibDir?: string;
}): Promise<{ interrupted: boolean }> {
  const { pool, s, log, executor, signal, generation } = p;
  const inFlight = new Map<number, InFlight>();
  const retryAt = new Map<number, number>();
  let lastLaunch = -Infinity;
  let interrupted = false;

  // Resume: slices a dead orchestrator left RUNNING are adopted or re-queued.
  for (const sl of await getSlices(pool, s.runId, { generation, status: ['RUNNING'] })) {
    const rs = await executor.adopt(sl);
    if (rs) inFlight.set(sl.id, track({ slice: sl, rs, startedAt: sl.started_datetime?.getTime() ?? Date.now() }));
    else {
      await pool.query(`update striim_orchestration set status = 'NEW', notes = 'requeued: its orchestrator stopped while it ran', updated_at = now() where id = $1`, [sl.id]);
      log.info(`slice ${sl.roworder}: was RUNNING under a stopped orchestrator, re-queued`, { slice: sl.roworder });
    }
  }

  const reportProgress = async () => {
    if (!p.progress) return;
    const c = await countByStatus(pool, s.runId, generation);
    p.progress(c.COMPLETED + c['COMPLETED-FAILEDDROP'] + c.QUARANTINED, c.total);
  };
  await reportProgress();

  for (;;) {
    // 1. record finished slices
    for (const [id, f] of inFlight) {
      if (!f.outcome) continue;
      inFlight.delete(id);
      const st = await markOutcome(pool, id, f.outcome, s.maxAttempts);
      const msg = `slice ${f.slice.roworder} → ${st}${st === 'COMPLETED' ? '' : ': ' + f.outcome.notes}`;
      if (st === 'COMPLETED') log.info(msg, { slice: f.slice.roworder, kind: 'finished' });
      else if (st === 'COMPLETED-FAILEDDROP') log.warn(msg, { slice: f.slice.roworder, kind: 'finished' });
      else log.error(msg, { slice: f.slice.roworder, kind: 'finished' });
      if (st === 'FAILED') {
        const attempts = f.slice.attempts + 1;
        retryAt.set(id, Date.now() + backoffDelay(attempts, s.retryDelaySeconds * 1000));
      }
      await reportProgress();
    }
    // 2. stall timeout
    if (s.sliceMaxRuntimeSeconds > 0) {
      for (const f of inFlight.values()) {
        if (f.cancelling || f.outcome || Date.now() - f.startedAt <= s.sliceMaxRuntimeSeconds * 1000) continue;
        f.cancelling = true;
        log.warn(`slice ${f.slice.roworder}: stalled > ${s.sliceMaxRuntimeSeconds}s, stopping it`, { slice: f.slice.roworder });
        void f.rs.cancel(`[stalled > ${s.sliceMaxRuntimeSeconds}s] force-failed by the stall timeout`);
      }
    }
    // 3. launch
    const stopping = !!signal?.aborted;
    if (stopping && !interrupted) {
      interrupted = true;
      log.warn(`stop requested: launching nothing more; ${inFlight.size} slice(s) in flight finish (interrupt again to leave them for resume)`);
    }
    let pending = 0;
    let wakeIn = 1000;
    if (!stopping) {
      const statuses = s.retryFailed ? ['NEW', 'FAILED'] : ['NEW'];
      const cands = (await getSlices(pool, s.runId, { generation, status: statuses }))
        .filter((c) => !inFlight.has(c.id) && (c.status === 'NEW' || c.attempts < s.maxAttempts));
      pending = cands.length;
      for (const c of cands) {
        if (inFlight.size >= s.concurrency) break;
        const due = c.status === 'FAILED' ? (retryAt.get(c.id) ?? 0) : 0;
        if (due > Date.now()) { wakeIn = Math.min(wakeIn, due - Date.now()); continue; }
        const gap = lastLaunch + s.deployWaitSeconds * 1000 - Date.now();
        if (gap > 0) { wakeIn = Math.min(wakeIn, gap); break; }
        const place = executor.placement(c);
        await markRunning(pool, c.id, { ...place, executor: executor.kind });
        lastLaunch = Date.now();
        const rs = await executor.launch(c);
        inFlight.set(c.id, track({ slice: c, rs, startedAt: Date.now() }));
        pending--;
      }
    }
    // 4. done?
    if (inFlight.size === 0 && (stopping || pending === 0)) break;
    // 5. wait for a slice to end, a launch slot, or the stop signal
    const anyDone = inFlight.size ? Promise.race([...inFlight.values()].map((f) => f.rs.done)) : new Promise<void>(() => {});
    await Promise.race([anyDone, pause(Math.max(10, wakeIn), signal && !stopping ? signal : undefined)]);
  }
  return { interrupted };
}

function track(f: InFlight): InFlight {
  void f.rs.done.then((o) => { f.outcome = o; });
  return f;
}
