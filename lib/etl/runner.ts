import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { TableDef } from '../config/tables-json';
import { getWatermarksOfTables } from '../db';
import { toError } from '../errors';
import type { Logger } from '../log';
import { wallClockMicros, type RenderedQuery } from '../sources';
import type { LakeTarget } from './lake-target';
import { ControlBatch } from './control-batch';
import { loadTable } from './load-table';
import { ParquetEncoderPool } from '../lake';
import { applyCutover, planPhase, planRun } from './plan-run';
import { WorkQueue, runPool } from '../concurrency';
import { renderUnit } from './render-unit';
import type { BranchHandle, EtlRunSummary, Phase, RunContext, TableState, Unit } from './run-types';
import { prepareSchemas } from './schema-step';
import { extractUnit } from './extract-unit';
import type { EtlSettings } from './settings';
import { MemoryHold } from './staging';

export type { BranchHandle, EtlRunSummary, UnitResult } from './run-types';

export interface RunEtlDeps {
  /** Tributary's own database (etl_meta). */
  pool: pg.Pool;
  /** The write step (lib/lake behind `lakeTarget`). */
  target: LakeTarget;
  /** Every configured branch (a full replace needs all of them to succeed). */
  branches: BranchHandle[];
  tables: TableDef[];
  settings: EtlSettings;
  logger: Logger;
  /** Folder for staged Parquet (`<root>/<runId>/…`). */
  stagingRoot: string;
  signal?: AbortSignal;
  runId?: string;
  /** Units done / total of the current phase. */
  progress?: (done: number, total: number, phase: string) => void;
  /** Print each unit's SQL and binds; extract and write nothing. */
  plan?: boolean;
  now?: () => Date;
  /**
   * Extract a phase's units elsewhere (the fan-out over workers, lib/etl/fanout-units.ts)
   * instead of this process's pools; it calls `onUnitDone` as each unit's outcome lands
   * on it, and may leave units to `local`. (Default: extract here)
   */
  dispatch?: UnitDispatch;
}

/** See RunEtlDeps.dispatch. */
export type UnitDispatch = (ctx: RunContext, units: Unit[], states: Map<string, TableState>, onUnitDone: (u: Unit) => void, local: (units: Unit[]) => Promise<void>) => Promise<void>;

/**
 * One ETL run: planner → schema step → extract with retry → load and record.
 * Masters phase, then transactions (never mixed; a fatal error stops later
 * phases). Within a phase an outer pool over branches and an inner pool over
 * tables per branch extract to staged Parquet; each table is loaded as soon
 * as all its branches are done, `loadWorkers` at a time.
 */
export async function runEtl(deps: RunEtlDeps): Promise<EtlRunSummary> {
  const t0 = Date.now();
  const s = deps.settings;
  const plan = planRun({ branches: deps.branches, tables: deps.tables, settings: s, runId: deps.runId });
  const { runId } = plan;
  const log = deps.logger.child({ runId });
  const summary: EtlRunSummary = { runId, mode: s.mode, ok: true, phases: [], units: [], drift: {}, durationMs: 0 };
  const ctx: RunContext = {
    runId, settings: s, pool: deps.pool, target: deps.target, log, stagingRoot: deps.stagingRoot, signal: deps.signal, plan: !!deps.plan,
    allBranches: plan.allBranches, loadTime: wallClockMicros((deps.now ?? (() => new Date()))()), summary,
    encoder: deps.plan ? null : new ParquetEncoderPool(s.encoderThreads, { compression: s.compression }),
    // an INCREMENTAL's small units go to the merge without a Parquet round trip (kept staging means files)
    hold: s.mode === 'INCREMENTAL' && !s.keepStaging ? new MemoryHold(s.stagingMemoryBytes) : undefined,
    lateDeletes: true,
  };
  let fatal = false;
  try {
    for (const phase of plan.phases) {
      const defs = plan.tables.filter((d) => d.category === phase);
      if (fatal) { summary.phases.push({ phase, ran: false, ok: false }); log.warn('phase not run after a fatal error', { phase }); continue; }
      if (!defs.length) { summary.phases.push({ phase, ran: true, ok: true }); continue; }
      const r = await runPhase(ctx, deps, phase, defs, plan.branches);
      summary.phases.push({ phase, ran: true, ok: r.ok });
      if (r.fatal) fatal = true;
    }
  } finally {
    await ctx.encoder?.close();
    if (!s.keepStaging && !deps.plan) {
      await fs.rm(path.join(deps.stagingRoot, runId), { recursive: true, force: true })
        .catch((e) => log.warn('could not remove the run\'s staging folder', { error: toError(e).message }));
    }
  }
  summary.ok = summary.units.every((u) => u.status === 'SUCCESS' || u.status === 'PLANNED') && summary.phases.every((p) => p.ran);
  summary.durationMs = Date.now() - t0;
  const failed = summary.units.filter((u) => u.status !== 'SUCCESS' && u.status !== 'PLANNED').length;
  // a plan renders each unit's SQL and loads nothing: its end says so, not that a run finished
  if (deps.plan) log.info('etl plan rendered: nothing was extracted or written', { ok: summary.ok, units: summary.units.length, failed, durationMs: summary.durationMs });
  else log.info('etl run finished', { ok: summary.ok, units: summary.units.length, failed, durationMs: summary.durationMs });
  return summary;
}

/** One phase: plan its units, the schema step, then extraction feeding per-table loads. */
async function runPhase(ctx: RunContext, deps: RunEtlDeps, phase: Phase, defs: TableDef[], branches: BranchHandle[]): Promise<{ ok: boolean; fatal: boolean }> {
  const s = ctx.settings;
  const plog = ctx.log.child({ phase });
  const { states, units } = planPhase(phase, defs, branches);
  let done = 0;
  const total = units.length;
  const tick = () => deps.progress?.(++done, total, phase);
  deps.progress?.(0, total, phase);

  if (s.mode === 'INCREMENTAL') {
    // one query for the phase's tables, not one per table
    const wms = await getWatermarksOfTables(ctx.pool, s.namespace, [...states.values()].map((st) => st.def.lakeName), branches.map((b) => b.key));
    applyCutover(states, s.mode, wms);
  }
  const live = units.filter((u) => !u.status);
  let phaseFatal = await prepareSchemas(ctx, plog, branches, states, live);

  if (ctx.plan) {
    planResults(ctx, phase, units);
    return { ok: true, fatal: false };
  }

  // the phase's control rows: unchanged tables' wait and go in one statement (control-batch.ts)
  const control = new ControlBatch(ctx.pool, plog);
  const lctx: RunContext = { ...ctx, control };
  const loads = new WorkQueue<TableState>(s.loadWorkers, async (st) => {
    try { await loadTable(lctx, st); } catch (e) { plog.error('load step failed', { table: st.def.lakeName, error: toError(e).message }); phaseFatal = true; }
    for (let i = 0; i < st.units.length; i++) tick();
  });
  for (const st of states.values()) {
    st.remaining = st.units.filter((u) => !u.status).length;
    if (st.remaining === 0) loads.push(st);
  }
  const onUnitDone = (u: Unit) => {
    const st = states.get(u.def.lakeName)!;
    if (--st.remaining === 0) loads.push(st);
  };
  const local = (todo: Unit[]) => runPool(branches, branches.length, async (b) => {
    const mine = todo.filter((u) => u.branch === b);
    await runPool(mine, s.maxTableWorkers, async (u) => {
      await extractUnit(ctx, u, states.get(u.def.lakeName)!);
      onUnitDone(u);
    });
  });
  const open = units.filter((u) => !u.status);
  try {
    if (deps.dispatch) await deps.dispatch(ctx, open, states, onUnitDone, local);
    else await local(open);
    loads.close();
    await loads.done;
  } finally {
    // what waits (unchanged tables' rows) is written even when the phase stops early
    await control.flush().catch((e) => { plog.error('control write failed', { error: toError(e).message }); phaseFatal = true; });
  }
  if (units.some((u) => u.fatal)) phaseFatal = true;
  return { ok: units.every((u) => u.status === 'SUCCESS'), fatal: phaseFatal };
}

/** --plan: each unit's SQL and binds (or why it cannot run) in the summary; nothing extracted. */
function planResults(ctx: RunContext, phase: Phase, units: Unit[]): void {
  for (const u of units) {
    let q: RenderedQuery | undefined;
    let err = u.error;
    try { q = renderUnit(u, ctx.settings.mode); } catch (e) { err = toError(e).message; }
    ctx.summary.units.push({ table: u.def.lakeName, branch: u.branch.key, phase, status: u.status ?? 'PLANNED', rows: 0, attempts: 0, writeDisposition: null,
      error: err ?? (u.describeError ? `describe failed: ${u.describeError.message}` : null), sql: q?.sql, binds: q?.binds });
  }
}
