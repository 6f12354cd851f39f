import type pg from 'pg';
import { isRunLocked } from './run-lock';
import { countByStatus, getRun, getSlices, hasStarted } from './state';
import type { StriimClient } from './striim-client';

/** The live board feed (`slices board --json`, `GET /api/v1/slices/runs/:id/board`). */
export interface BoardFeed {
  runId: number;
  generatedAt: string;
  executor: string | null;
  /** Registration generation: 1 for a run registered once; more when it was registered again (--force-fresh, after clear). */
  generation: number | null;
  /** Some slice of the current registration left its initial state: the run keeps its executor. */
  started: boolean;
  /** The lake warehouse the last start wrote to ("default" or a path), or null (a Postgres target / not started). */
  targetLake: string | null;
  /** The named source and Postgres target connections of the last start (a reconcile uses them by default), and the lake merge keys. */
  endpoints: { source: string | null; target: string | null; mergeKeys: string[] };
  verdict: string | null;
  /** Some orchestrator holds the run lock right now. */
  active: boolean;
  lockHolder: string | null;
  total: number;
  percentComplete: number;
  counts: Record<string, number>;
  inFlight: { slice: number; target: string; namespace: string | null; appname: string | null; attempts: number; startedAt: string | null; elapsedSeconds: number; rowsPerSecond: number | null; rowsWritten: number | null }[];
  recentCompletions: { slice: number; target: string; status: string; finishedAt: string | null; durationSeconds: number | null; rowsWritten: number | null; notes: string | null }[];
  failed: { slice: number; status: string; attempts: number; notes: string | null }[];
  stageWatch: { ts: string; event: '+ appeared' | '- finished'; slice: number | null; message: string }[];
  logTail: { ts: string; level: string; slice: number | null; message: string }[];
  watermark: { label: string | null; value: string; capturedAt: string | null; sourceDsn: string | null } | null;
  api: { retries: number; reauths: number };
  striimReachable: boolean | null;
}

/**
 * Build the board from the orchestration table (the single source of truth) and,
 * when a Striim client is given and answers, live rows/s from `mon`.
 */
export async function buildBoard(pool: pg.Pool, runId: number, opts: { striim?: StriimClient | null; recent?: number; logLines?: number } = {}): Promise<BoardFeed> {
  const run = await getRun(pool, runId);
  const now = Date.now();
  const slices = run ? await getSlices(pool, runId, { generation: run.generation }) : [];
  const counts = await countByStatus(pool, runId, run?.generation ?? -1);
  const { total, ...byStatus } = counts;
  let rates = new Map<string, number>();
  let striimReachable: boolean | null = null;
  const running = slices.filter((x) => x.status === 'RUNNING');
  if (opts.striim && running.length) {
    try {
      rates = new Map((await opts.striim.mon()).filter((a) => a.rate !== null).map((a) => [a.fullName, a.rate!]));
      striimReachable = true;
    } catch { striimReachable = false; }
  }
  const events = await pool.query<{ ts: Date; level: string; kind: string; slice: number | null; message: string }>(
    `select ts, level, kind, slice, message from (
       select * from slice_run_events where run_id = $1 order by id desc limit $2) e order by ts, id`, [runId, Math.max(opts.logLines ?? 20, 50)]);
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    runId,
    generatedAt: new Date(now).toISOString(),
    executor: run?.executor ?? null,
    generation: run?.generation ?? null,
    started: run ? await hasStarted(pool, runId, run.generation) : false,
    targetLake: typeof run?.settings?.targetLake === 'string' && run.settings.targetLake ? run.settings.targetLake : null,
    endpoints: endpointsOf(run?.settings),
    verdict: run?.verdict ?? null,
    active: await isRunLocked(pool, runId),
    lockHolder: run?.lock_holder ?? null,
    total,
    percentComplete: total ? Math.round(((counts.COMPLETED + counts['COMPLETED-FAILEDDROP']) / total) * 1000) / 10 : 0,
    counts: byStatus,
    inFlight: running.map((x) => {
      const elapsed = x.started_datetime ? (now - x.started_datetime.getTime()) / 1000 : 0;
      const live = x.appname ? rates.get(x.appname) : undefined;
      return {
        slice: x.roworder, target: x.targettbl, namespace: x.namespace, appname: x.appname, attempts: x.attempts,
        startedAt: iso(x.started_datetime), elapsedSeconds: Math.round(elapsed),
        rowsPerSecond: live ?? (x.rows_written !== null && elapsed > 0 ? Math.round(x.rows_written / elapsed) : null),
        rowsWritten: x.rows_written,
      };
    }),
    recentCompletions: slices.filter((x) => x.status === 'COMPLETED' || x.status === 'COMPLETED-FAILEDDROP')
      .sort((a, b) => (b.finished_datetime?.getTime() ?? 0) - (a.finished_datetime?.getTime() ?? 0))
      .slice(0, opts.recent ?? 10)
      .map((x) => ({
        slice: x.roworder, target: x.targettbl, status: x.status, finishedAt: iso(x.finished_datetime),
        durationSeconds: x.started_datetime && x.finished_datetime ? Math.round((x.finished_datetime.getTime() - x.started_datetime.getTime()) / 100) / 10 : null,
        rowsWritten: x.rows_written, notes: x.notes,
      })),
    failed: slices.filter((x) => x.status === 'FAILED' || x.status === 'QUARANTINED').map((x) => ({ slice: x.roworder, status: x.status, attempts: x.attempts, notes: x.notes })),
    stageWatch: events.rows.filter((e) => e.kind !== 'log').slice(-20).map((e) => ({
      ts: e.ts.toISOString(), event: e.kind === 'appeared' ? '+ appeared' as const : '- finished' as const, slice: e.slice, message: e.message })),
    logTail: events.rows.slice(-(opts.logLines ?? 20)).map((e) => ({ ts: e.ts.toISOString(), level: e.level, slice: e.slice, message: e.message })),
    watermark: run?.watermark_value ? { label: run.watermark_label, value: run.watermark_value, capturedAt: iso(run.watermark_captured_at), sourceDsn: run.watermark_source_dsn } : null,
    api: { retries: run?.api_retries ?? 0, reauths: run?.api_reauths ?? 0 },
    striimReachable,
  };
}

function endpointsOf(settings: Record<string, unknown> | undefined): { source: string | null; target: string | null; mergeKeys: string[] } {
  const c = (settings?.connections ?? {}) as { source?: unknown; target?: unknown };
  const keys = Array.isArray(settings?.mergeKeys) ? settings.mergeKeys.map(String) : [];
  return { source: typeof c.source === 'string' ? c.source : null, target: typeof c.target === 'string' ? c.target : null, mergeKeys: keys };
}
