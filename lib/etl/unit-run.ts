import { getBranches } from '../connections';
import { dataDirPaths } from '../config/data-path';
import { AppError } from '../errors';
import type { JobContext } from '../jobs/types';
import { withSlot } from '../jobs/slot-lock';
import { assertCoordinatorRunning } from '../jobs/fanout';
import type { SourceColumn } from '../sources';
import { branchHandles, syntheticBranches } from './branches';
import { resolveTables } from './execute';
import { extractUnit } from './extract-unit';
import { lakeTarget, type LakeTarget } from './lake-target';
import { etlSettingsOf } from './request';
import type { BranchHandle, EtlRunSummary, TableState, Unit } from './run-types';
import fs from 'node:fs/promises';
import path from 'node:path';
import { openLake, ParquetEncoderPool } from '../lake';
import { fanoutStagingRoot } from './staging-root';
import { uploadUnitFiles } from './unit-upload';
import type { EtlUnitPayload } from './unit-payload';
import { schemaFromJson, type SchemaField } from './unit-schema';

/** What a unit's attempt hands its coordinator (job_runs.result of the `etl.unit` run). */
export interface UnitOutcome {
  /** The unit ran to this outcome (a failed one is not attempted again). */
  final: true;
  status: 'SUCCESS' | 'FAILED';
  fatal: boolean;
  error: string | null;
  attempts: number;
  rows: number;
  /** Rows dropped as older duplicates of a key (`dedupe: latest`). */
  dropped?: number;
  files: { path: string; rows: number; bytes: number }[];
  /** `deletes: detect`: keys the lake holds and the branch no longer has (canonical text). */
  deleteKeys?: (string | null)[][];
  /** Maxima of the tracked (watermark) columns, as text. */
  max: Record<string, string | null>;
  columns: SourceColumn[] | null;
  sql: string | null;
  binds: unknown[] | null;
  startedAt: string;
  finishedAt: string;
}

/**
 * The lake is the coordinator's: a unit stages in the schema its coordinator
 * prepared and never evolves a table. A branch that projects a column the
 * schema step did not see fails its unit (run again: the next schema step sees it).
 */
const frozenTarget = (table: string, branch: string, lake: () => LakeTarget): LakeTarget => {
  const refuse = async (): Promise<never> => {
    throw new AppError('conflict', `etl: ${table} on branch ${branch} projects columns the run's schema step did not see (the branch changed during the run); run again`);
  };
  // reading stays open: `deletes: detect` compares the branch's keys with the lake's
  return { columns: refuse, prepare: refuse, replace: refuse, merge: refuse, expire: refuse, compact: refuse, dropIfEmpty: refuse, scan: (t, c, p) => lake().scan(t, c, p) };
};

async function openBranch(ctx: JobContext, p: EtlUnitPayload, poolSize: number): Promise<BranchHandle> {
  if (p.request.selfTest) {
    const b = syntheticBranches().find((x) => x.key === p.branch);
    if (!b) throw new AppError('not_found', `etl: no self-test branch ${p.branch}`);
    return b;
  }
  const cfg = (await getBranches({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir } })).filter((c) => c.key === p.branch);
  if (!cfg.length) throw new AppError('not_found', `etl: branch ${p.branch} is not configured on this worker's database`);
  return branchHandles(cfg, { poolSizeOverride: p.request.poolSize, defaultPoolSize: poolSize, oracleClientLibDirEnv: ctx.env.ORACLE_CLIENT_LIB_DIR })[0];
}

/**
 * A worker's branch sources, shared by the units of one run it takes: a unit
 * opened (and closed) its own pool, paying the branch's connection set-up —
 * a TCP connect and a login, an Oracle session — and the connection list's
 * read and decryption for every unit. A source is closed once no unit of its
 * run has used it for `BRANCH_IDLE_CLOSE_MS` (the timer does not hold the
 * process). Keyed by the coordinator's run, so a later run sees changed
 * connection settings. The per-branch slots of the run (withSlot) bound the
 * units using one at once to its pool size.
 */
const BRANCH_IDLE_CLOSE_MS = 2_000;
interface SharedBranch { handle: Promise<BranchHandle>; users: number; timer?: NodeJS.Timeout }
const branchSources = new Map<string, SharedBranch>();

async function acquireBranch(ctx: JobContext, p: EtlUnitPayload, poolSize: number): Promise<{ branch: BranchHandle; release: () => void }> {
  const key = JSON.stringify([p.parentRunId, p.branch, p.request.poolSize ?? poolSize, !!p.request.selfTest]);
  let e = branchSources.get(key);
  if (!e) {
    const entry: SharedBranch = { handle: openBranch(ctx, p, poolSize), users: 0 };
    // a failed open is not kept: the next unit tries again
    entry.handle.catch(() => { if (branchSources.get(key) === entry) branchSources.delete(key); });
    branchSources.set(key, (e = entry));
  }
  const entry = e;
  clearTimeout(entry.timer);
  entry.users++;
  let branch: BranchHandle;
  try { branch = await entry.handle; } catch (err) { entry.users--; throw err; }
  let released = false;
  return {
    branch,
    release: () => {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      entry.timer = setTimeout(() => {
        if (entry.users > 0 || branchSources.get(key) !== entry) return;
        branchSources.delete(key);
        branch.source.close().catch((err) => ctx.logger.warn('etl: closing a branch source failed', { branch: p.branch, error: (err as Error).message }));
      }, BRANCH_IDLE_CLOSE_MS);
      entry.timer.unref();
    },
  };
}

/**
 * One encoder pool per worker process and settings, kept for the process's
 * life (its threads are unref'd): a unit is a few seconds of work, and a pool
 * per unit paid a thread start and a wasm compile each time, where a run in
 * one process pays them once. Its queue bound (`room`) then also holds over
 * every unit this worker runs at once.
 */
const encoders = new Map<string, ParquetEncoderPool>();
function sharedEncoder(threads: number, compression: EtlUnitPayload['request']['compression']): ParquetEncoderPool {
  const key = `${threads}:${compression ?? ''}`;
  let e = encoders.get(key);
  if (!e) encoders.set(key, (e = new ParquetEncoderPool(threads, { compression })));
  return e;
}

/**
 * The worker's side of `etl.unit`: take a branch slot, extract the unit to
 * `<warehouse>/_staging/<run>/<table>/<branch>/a<attempt>` (a file system
 * warehouse every worker shares) or, on an object-store warehouse, to this
 * machine's staging and from there to the table's data folder; report.
 */
export async function runEtlUnitJob(ctx: JobContext, p: EtlUnitPayload): Promise<UnitOutcome> {
  await assertCoordinatorRunning(ctx.pool, p.parentRunId);
  const s = etlSettingsOf(p.request);
  const defs = await resolveTables({ env: ctx.env, paths: dataDirPaths(ctx.env.dataDir), style: 'params' }, p.request);
  const def = defs.find((d) => d.lakeName === p.table);
  if (!def) throw new AppError('not_found', `etl: table ${p.table} is not among this worker's table definitions`);
  const { branch, release } = await acquireBranch(ctx, p, s.poolSize);
  const encoder = sharedEncoder(s.encoderThreads, s.compression);
  try {
    const u: Unit = {
      def, branch, phase: p.phase, columns: (p.columns as SourceColumn[] | null) ?? undefined, watermark: p.watermark ?? undefined,
      attempts: 0, error: null, rows: 0, files: [], startedAt: new Date(), stagingSub: `a${p.attempt}`,
    };
    const st: TableState = { def, units: [u], schema: schemaFromJson(p.schema as SchemaField[]), lakeColumns: null, drift: [], lock: Promise.resolve(), remaining: 1 };
    const summary: EtlRunSummary = { runId: p.runId, mode: s.mode, ok: true, phases: [], units: [], drift: {}, durationMs: 0 };
    const log = ctx.logger.child({ runId: p.runId });
    await withSlot(ctx.pool, `etl:${p.parentRunId}:${p.branch}`, p.slots, async () => {
      log.info('extracting unit', { table: p.table, branch: p.branch, attempt: p.attempt, worker: ctx.workerId });
      await extractUnit({
        runId: p.runId, settings: s, log,
        target: frozenTarget(p.table, p.branch, () => lakeTarget(openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger }), { namespace: s.namespace })), signal: ctx.signal, plan: false, summary,
        stagingRoot: fanoutStagingRoot(ctx.env), loadTime: BigInt(p.loadTime), encoder, hold: undefined,
      }, u, st);
      if (u.status === 'SUCCESS' && /^s3a?:\/\//.test(ctx.env.warehouse)) {
        // still inside the slot: the unit is not done until its coordinator can read it
        const lake = openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger });
        u.files = await uploadUnitFiles(lake, `${s.namespace}.${p.table}`, u.files, ctx.signal);
        await fs.rm(path.join(fanoutStagingRoot(ctx.env), p.runId, p.table, p.branch, u.stagingSub!), { recursive: true, force: true });
      }
    }, { signal: ctx.signal });
    const out: UnitOutcome = {
      final: true, status: u.status === 'SUCCESS' ? 'SUCCESS' : 'FAILED', fatal: !!u.fatal, error: u.error, attempts: u.attempts, rows: u.rows, dropped: u.dropped ?? 0,
      files: u.files.map((f) => ({ path: f.path, rows: f.rows, bytes: f.bytes })), ...(u.deleteKeys ? { deleteKeys: u.deleteKeys } : {}),
      max: Object.fromEntries(Object.entries(u.stats?.max ?? {}).map(([k, v]) => [k, v?.text ?? null])),
      columns: u.columns ?? null, sql: u.query?.sql ?? null, binds: u.query?.binds ?? null,
      startedAt: u.startedAt.toISOString(), finishedAt: (u.finishedAt ?? new Date()).toISOString(),
    };
    if (out.status !== 'SUCCESS') throw Object.assign(new AppError(u.fatal ? 'fatal' : 'internal', u.error ?? 'etl: unit failed'), { result: out });
    return out;
  } finally {
    release();
  }
}
