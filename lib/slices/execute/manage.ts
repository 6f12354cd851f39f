import { createPool } from '../../db/pool';
import { envConfiguresStriim } from '../../connections';
import type { BoardRequest, ClearRequest, ReconcileRequest, ResetRequest, StatusRequest } from '../requests';
import { buildBoard, type BoardFeed } from '../run/board';
import { lakeCounter } from '../run/lake-writer';
import { clearRun, getStatus, resetRun } from '../run/manage';
import { lakeTarget, reconcileRun, type ReconcileReport, type ReconcileTarget } from '../run/reconcile';
import { openSource } from '../run/source';
import { getRun } from '../run/state';
import { createStriimClient, type StriimClient } from '../run/striim-client';
import { lakeOf, namedConnection, type SlicesContext } from './context';
import { settingsOf } from './run';

async function cleanupClient(ctx: SlicesContext, r: { runId: number; withStriimCleanup?: boolean; striimConnection?: string }): Promise<{ client: StriimClient | null; prefix: string }> {
  const s = await settingsOf(ctx, { runId: r.runId, striimConnection: r.striimConnection });
  return { client: r.withStriimCleanup ? createStriimClient({ ...s.striim, logger: ctx.logger, signal: ctx.signal }) : null, prefix: s.namespacePrefix };
}

/** `slices reset` / `slices.reset`: re-queue FAILED (optionally FAILEDDROP / QUARANTINED) slices as NEW. */
export async function executeReset(ctx: SlicesContext, r: ResetRequest): Promise<{ requeued: number; cleaned: string[] }> {
  const { client, prefix } = await cleanupClient(ctx, r);
  return resetRun(ctx.pool, r.runId, { includeFaileddrop: r.includeFaileddrop, includeQuarantined: r.includeQuarantined, striim: client, prefix });
}

/** `slices clear` / `slices.clear`: retire a run from the active view, or hard-delete its rows. */
export async function executeClear(ctx: SlicesContext, r: ClearRequest): Promise<{ rows: number; cleaned: string[] }> {
  const { client, prefix } = await cleanupClient(ctx, r);
  return clearRun(ctx.pool, r.runId, { hard: r.hard, striim: client, prefix });
}

/** `slices status` / `slices.status`: one run's progress, or every run. */
export async function executeStatus(ctx: SlicesContext, r: StatusRequest) {
  const runId = r.allRuns ? undefined : r.runId ?? ctx.env.UNIQUE_RUN_ID;
  return getStatus(ctx.pool, { runId, allRuns: r.allRuns || runId === undefined, failed: r.failed, rows: r.rows || r.failed });
}

/**
 * `slices board` / `slices.board`: the live board feed. Striim is asked for
 * live rates only when the run uses it and a Striim is configured (a named
 * connection, or STRIIM_* in the environment).
 */
export async function executeBoard(ctx: SlicesContext, r: BoardRequest): Promise<BoardFeed> {
  let striim: StriimClient | null = null;
  if (r.striim !== false && (r.striimConnection || envConfiguresStriim(ctx.env))) {
    const run = await getRun(ctx.pool, r.runId);
    if ((run?.executor ?? 'striim') === 'striim') {
      const s = await settingsOf(ctx, { runId: r.runId, striimConnection: r.striimConnection });
      striim = createStriimClient({ ...s.striim, retries: 0, timeoutMs: 5000 });
    }
  }
  return buildBoard(ctx.pool, r.runId, { striim });
}

/**
 * A reconcile compares what the run loaded: the source, Postgres target or
 * lake the run was started with (stored with its settings), unless the
 * request names its own. A remembered connection that no longer resolves (a
 * CLI run's transient `--source-url`, or one deleted since) is left out, so
 * the defaults apply as before.
 */
async function withRunEndpoints(ctx: SlicesContext, r: ReconcileRequest): Promise<ReconcileRequest> {
  const saved = (await getRun(ctx.pool, r.runId))?.settings as { connections?: { source?: string; target?: string }; targetLake?: string | null } | undefined;
  if (!saved) return r;
  const usable = async (name: string | undefined) => (name && (await namedConnection(ctx, name, 'connection').then(() => true, () => false)) ? name : undefined);
  const out = { ...r };
  if (!out.connection && !out.sourceEngine) out.connection = await usable(saved.connections?.source);
  if (!out.targetConnection && !out.targetLake) {
    if (saved.targetLake) out.targetLake = saved.targetLake === ctx.env.warehouse ? 'default' : saved.targetLake;
    else out.targetConnection = await usable(saved.connections?.target);
  }
  return out;
}

/**
 * `slices reconcile` / `slices.reconcile`: per-slice source counts (AS OF SCN
 * on Oracle) against the target. An unreachable source is logged and its
 * counts left empty, with the SQL to run by hand.
 */
export async function executeReconcile(ctx: SlicesContext, req: ReconcileRequest): Promise<ReconcileReport> {
  const r = await withRunEndpoints(ctx, req);
  const s = await settingsOf(ctx, { runId: r.runId, connection: r.connection, sourceEngine: r.sourceEngine, targetConnection: r.targetConnection, targetLake: lakeOf(ctx, r.targetLake) });
  const source = await openSource(s).catch((e) => { ctx.logger.warn(`source unreachable: ${(e as Error).message}`); return null; });
  const tpool = s.targetUrl && !s.targetLake ? createPool(s.targetUrl, { max: 2 }) : null;
  const target: ReconcileTarget = tpool ? { kind: 'postgres', pool: tpool }
    : s.targetLake ? lakeTarget(lakeCounter(ctx.pool, s.targetLake === 'default' ? ctx.env.warehouse : s.targetLake, ctx.env.s3)) : null;
  try {
    // The engine the run's source had, unless this request names another source.
    const run = await getRun(ctx.pool, r.runId);
    const engine = r.connection || r.sourceEngine || !run?.source_engine ? s.sourceEngine : (run.source_engine as 'oracle' | 'postgres');
    return await reconcileRun(ctx.pool, r.runId, { source, engine, target });
  } finally {
    // Closing errors after the counts are in change nothing the caller can act on; log them.
    await source?.close().catch((e) => ctx.logger.debug(`reconcile: closing the source failed: ${(e as Error).message}`));
    await tpool?.end().catch((e) => ctx.logger.debug(`reconcile: closing the target pool failed: ${(e as Error).message}`));
  }
}
