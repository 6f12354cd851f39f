import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type * as arrow from 'apache-arrow';
import type pg from 'pg';
import { isTransient, toError } from '../errors';
import type { Logger } from '../log';
import {
  HELPER_CDC, HELPER_DATE, fromArrowType, renderDescribe, renderQuery, sleep, trackedColumns, typeToString, wallClockMicros,
  type Bind, type BranchSource, type ReadStats, type ReadTarget, type RenderedQuery, type SourceColumn,
} from '../sources';
import { appendRunLog, getWatermarks, laterWatermark, recordFailure, recordSuccess, type UnitStatus, type Watermark } from './control';
import { BRANCH_ID, INJECTED, INSERT_AT, RECORDED_UPDATED_AT, type LakeTarget } from './lake-target';
import { ParquetEncoderPool } from './parquet-encoder';
import { WorkQueue, runPool } from './pool-runner';
import { inferNumeric, unionSchemas, type Drift, type UnionColumn } from './schema-union';
import { cutoverMessage, type EtlSettings } from './settings';
import { MemoryHold, StagingWriter, type StagedFile } from './staging';
import type { TableDef } from './tables-config';

/** One branch the run reads: its key (what --branch takes) and its reader. */
export interface BranchHandle {
  key: string;
  source: BranchSource;
  /** Rows per round trip / batch for this branch. (Default: the run's fetchBatchSize) */
  fetchBatchSize?: number;
}

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
}

export interface UnitResult {
  table: string;
  branch: string;
  phase: 'masters' | 'transactions';
  status: UnitStatus | 'PLANNED';
  rows: number;
  attempts: number;
  writeDisposition: string | null;
  error: string | null;
  watermark?: Watermark;
  sql?: string;
  binds?: Bind[];
}

export interface EtlRunSummary {
  runId: string;
  mode: EtlSettings['mode'];
  ok: boolean;
  phases: { phase: string; ran: boolean; ok: boolean }[];
  units: UnitResult[];
  drift: Record<string, Drift[]>;
  durationMs: number;
}

interface Unit {
  def: TableDef;
  branch: BranchHandle;
  phase: 'masters' | 'transactions';
  columns?: SourceColumn[];
  describeError?: Error;
  watermark?: Watermark;
  status?: UnitStatus;
  fatal?: boolean;
  attempts: number;
  error: string | null;
  rows: number;
  files: StagedFile[];
  /** The writer of `files` (gives held rows back to the run's memory budget once loaded). */
  staged?: StagingWriter;
  stats?: ReadStats;
  startedAt: Date;
  finishedAt?: Date;
  query?: RenderedQuery;
}

interface TableState {
  def: TableDef;
  units: Unit[];
  schema?: arrow.Schema;
  lakeColumns: UnionColumn[] | null;
  drift: Drift[];
  lock: Promise<void>;
  remaining: number;
  error?: string;
}

export class EtlUsageError extends Error {
  constructor(message: string) { super(message); this.name = 'EtlUsageError'; }
}

/** Pick tables by OWNER.TABLE, TABLE, subquery name or lake name (case-insensitive). */
export function selectTables(all: TableDef[], wanted: string[]): TableDef[] {
  if (!wanted.length) return all;
  const out: TableDef[] = [];
  for (const w of wanted) {
    const k = w.trim().toLowerCase();
    const hit = all.filter((d) => d.lakeName === k || d.source.toLowerCase() === k || d.source.toLowerCase().split('.').pop() === k || (d.entry.name ?? '').toLowerCase() === k);
    if (!hit.length) throw new EtlUsageError(`--tables: unknown table ${w} (known: ${all.map((d) => d.lakeName).join(', ')})`);
    for (const h of hit) if (!out.includes(h)) out.push(h);
  }
  return out;
}

export function selectBranches(all: BranchHandle[], wanted: string[]): BranchHandle[] {
  if (!wanted.length) return all;
  return wanted.map((w) => {
    const b = all.find((x) => x.key === w.trim());
    if (!b) throw new EtlUsageError(`--branch: unknown branch ${w} (known: ${all.map((x) => x.key).join(', ') || 'none'})`);
    return b;
  });
}

/**
 * One ETL run: masters phase, then transactions (never mixed; a fatal error
 * stops later phases). Within a phase an outer pool over branches and an
 * inner pool over tables per branch extract to staged Parquet; each table is
 * loaded as soon as all its branches are done, `loadWorkers` at a time.
 */
export async function runEtl(deps: RunEtlDeps): Promise<EtlRunSummary> {
  const t0 = Date.now();
  const s = deps.settings;
  const runId = deps.runId ?? `etl-${new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${crypto.randomBytes(3).toString('hex')}`;
  const log = deps.logger.child({ runId });
  const branches = selectBranches(deps.branches, s.branches);
  const tables = selectTables(deps.tables, s.tables);
  const allBranches = branches.length === deps.branches.length;
  const phases = s.category === 'both' ? (['masters', 'transactions'] as const) : [s.category];
  const loadTime = wallClockMicros((deps.now ?? (() => new Date()))());
  const summary: EtlRunSummary = { runId, mode: s.mode, ok: true, phases: [], units: [], drift: {}, durationMs: 0 };
  const encoder = deps.plan ? null : new ParquetEncoderPool(s.encoderThreads, { compression: s.compression });
  // an INCREMENTAL's small units go to the merge without a Parquet round trip (kept staging means files)
  const hold = s.mode === 'INCREMENTAL' && !s.keepStaging ? new MemoryHold(s.stagingMemoryBytes) : undefined;
  let fatal = false;
  try {
    for (const phase of phases) {
      const defs = tables.filter((d) => d.category === phase);
      if (fatal) { summary.phases.push({ phase, ran: false, ok: false }); log.warn('phase not run after a fatal error', { phase }); continue; }
      if (!defs.length) { summary.phases.push({ phase, ran: true, ok: true }); continue; }
      const r = await runPhase(phase, defs);
      summary.phases.push({ phase, ran: true, ok: r.ok });
      if (r.fatal) fatal = true;
    }
  } finally {
    await encoder?.close();
    if (!s.keepStaging && !deps.plan) await fs.rm(path.join(deps.stagingRoot, runId), { recursive: true, force: true }).catch(() => {});
  }
  summary.ok = summary.units.every((u) => u.status === 'SUCCESS' || u.status === 'PLANNED') && summary.phases.every((p) => p.ran);
  summary.durationMs = Date.now() - t0;
  log.info('etl run finished', { ok: summary.ok, units: summary.units.length, failed: summary.units.filter((u) => u.status !== 'SUCCESS' && u.status !== 'PLANNED').length, durationMs: summary.durationMs });
  return summary;

  async function runPhase(phase: 'masters' | 'transactions', defs: TableDef[]): Promise<{ ok: boolean; fatal: boolean }> {
    const plog = log.child({ phase });
    const states = new Map<string, TableState>();
    const units: Unit[] = [];
    for (const def of defs) {
      const st: TableState = { def, units: [], lakeColumns: null, drift: [], lock: Promise.resolve(), remaining: 0 };
      for (const b of branches) st.units.push({ def, branch: b, phase, attempts: 0, error: null, rows: 0, files: [], startedAt: new Date() });
      states.set(def.lakeName, st);
      units.push(...st.units);
    }
    let done = 0;
    const total = units.length;
    const tick = () => deps.progress?.(++done, total, phase);
    deps.progress?.(0, total, phase);
    let phaseFatal = false;

    // INCREMENTAL needs a watermark per unit (the cutover rule)
    for (const st of states.values()) {
      const wms = await getWatermarks(deps.pool, st.def.lakeName, branches.map((b) => b.key));
      for (const u of st.units) {
        if (s.mode === 'INCREMENTAL') {
          const wm = wms.get(u.branch.key);
          if (!wm) { u.status = 'REFUSED'; u.error = cutoverMessage(st.def.lakeName, u.branch.key); }
          else u.watermark = wm;
        }
      }
    }
    const live = units.filter((u) => !u.status);

    // one describe per unit up front, so each table's union schema is known before staging
    await runPool(branches, branches.length, async (b) => {
      await runPool(live.filter((u) => u.branch === b), s.maxTableWorkers, async (u) => {
        const t = Date.now();
        try { u.columns = await describeUnit(u); } catch (e) { u.describeError = toError(e); }
        log.debug('described', { table: u.def.lakeName, branch: u.branch.key, ms: Date.now() - t, error: u.describeError?.message });
      });
    });

    for (const st of states.values()) {
      try {
        st.lakeColumns = deps.plan ? null : await deps.target.columns(st.def.lakeName);
        const described = st.units.filter((u) => u.columns);
        if (!described.length && !st.lakeColumns) continue; // nothing known yet: the units' own retries decide
        await widenTable(st, described);
      } catch (e) {
        st.error = toError(e).message;
        for (const u of st.units) if (!u.status) { u.status = 'FAILED'; u.fatal = true; u.error = st.error; u.attempts = 1; }
        phaseFatal = true;
        plog.error('table schema failed', { table: st.def.lakeName, error: st.error });
      }
    }

    if (deps.plan) {
      for (const u of units) {
        let q: RenderedQuery | undefined;
        let err = u.error;
        try { q = render(u); } catch (e) { err = toError(e).message; }
        summary.units.push({ table: u.def.lakeName, branch: u.branch.key, phase, status: u.status ?? 'PLANNED', rows: 0, attempts: 0, writeDisposition: null,
          error: err ?? (u.describeError ? `describe failed: ${u.describeError.message}` : null), sql: q?.sql, binds: q?.binds });
      }
      return { ok: true, fatal: false };
    }

    const loads = new WorkQueue<TableState>(s.loadWorkers, async (st) => {
      try { await loadTable(st); } catch (e) { plog.error('load step failed', { table: st.def.lakeName, error: toError(e).message }); phaseFatal = true; }
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
    await runPool(branches, branches.length, async (b) => {
      const mine = units.filter((u) => u.branch === b && !u.status);
      await runPool(mine, s.maxTableWorkers, async (u) => {
        await extractUnit(u, states.get(u.def.lakeName)!);
        onUnitDone(u);
      });
    });
    loads.close();
    await loads.done;
    if (units.some((u) => u.fatal)) phaseFatal = true;
    return { ok: units.every((u) => u.status === 'SUCCESS'), fatal: phaseFatal };
  }

  async function describeUnit(u: Unit): Promise<SourceColumn[]> {
    const src = u.branch.source;
    const d = renderDescribe(u.def.spec, src.dialect === 'oracle' ? 'oracle' : 'postgres');
    let cols = await src.describe({ ...d, table: u.def.source }, deps.signal);
    for (const c of cols) {
      if (c.name === BRANCH_ID || INJECTED.includes(c.name)) {
        throw Object.assign(new Error(`etl: ${u.def.source} on branch ${u.branch.key} projects the reserved column ${c.name} (alias it)`), { fatal: true });
      }
    }
    const inferred = cols.filter((c) => c.inferred).map((c) => c.name);
    if (inferred.length) {
      const q = render({ ...u, columns: cols });
      const prof = await src.profileNumeric({ ...q, table: u.def.source }, inferred, deps.signal);
      cols = cols.map((c) => (c.inferred ? { ...c, type: inferNumeric(prof[c.name] ?? { intDigits: 0, scale: 0 }), inferred: false } : c));
    }
    return cols;
  }

  function dataColumns(cols: SourceColumn[]): UnionColumn[] {
    return cols.filter((c) => c.name !== HELPER_CDC && c.name !== HELPER_DATE).map((c) => ({ name: c.name, type: c.type }));
  }

  /** Union the described branches (and the lake's columns) and create/evolve the lake table. Serialised per table. */
  async function widenTable(st: TableState, described: Unit[]): Promise<void> {
    const prev = st.lock;
    let release!: () => void;
    st.lock = new Promise((r) => { release = r; });
    await prev;
    try {
      const base = st.schema ? st.schema.fields.filter((f) => !INJECTED.includes(f.name)).map((f) => ({ name: f.name, type: fromArrowType(f.type) })) : st.lakeColumns ?? undefined;
      const u = unionSchemas(Object.fromEntries(described.map((x) => [x.branch.key, dataColumns(x.columns!)])), base);
      if (!st.schema) st.drift = u.drift;
      else for (const d of u.drift) if (!st.drift.some((x) => x.column === d.column && x.kind === d.kind)) st.drift.push(d);
      if (st.drift.length) { summary.drift[st.def.lakeName] = st.drift; log.warn('schema drift', { table: st.def.lakeName, drift: st.drift }); }
      if (deps.plan) return;
      const fits = st.schema && u.columns.every((c) => st.schema!.fields.some((f) => f.name === c.name && typeToString(fromArrowType(f.type)) === typeToString(c.type)));
      if (!fits) st.schema = await deps.target.prepare(st.def.lakeName, u.columns);
    } finally { release(); }
  }

  function render(u: Unit): RenderedQuery {
    const tr = trackedColumns(u.def.spec);
    const col = (n: string | null) => (n ? u.columns?.find((c) => c.name === n)?.type ?? null : null);
    const q = renderQuery(u.def.spec, u.branch.source.dialect === 'oracle' ? 'oracle' : 'postgres', {
      mode: s.mode, cdcType: col(tr.cdc), dateType: col(tr.date), watermark: u.watermark ?? null,
    });
    return { ...q, table: u.def.source };
  }

  async function extractUnit(u: Unit, st: TableState): Promise<void> {
    const ulog = log.child({ table: u.def.lakeName, branch: u.branch.key });
    u.startedAt = new Date();
    const dir = path.join(deps.stagingRoot, runId, u.def.lakeName, u.branch.key);
    for (;;) {
      u.attempts++;
      let writer: StagingWriter | null = null;
      try {
        deps.signal?.throwIfAborted();
        if (!u.columns || u.attempts > 1 && u.describeError) {
          u.columns = await describeUnit(u);
          u.describeError = undefined;
        }
        if (!st.schema || !dataColumns(u.columns).every((c) => st.schema!.fields.some((f) => f.name === c.name))) await widenTable(st, [u]);
        const q = render(u);
        u.query = q;
        const fields = st.schema!.fields.map((f) => ({ name: f.name, type: fromArrowType(f.type) }));
        const tr = trackedColumns(u.def.spec);
        const target: ReadTarget = {
          schema: st.schema!, fields,
          constants: {
            [BRANCH_ID]: { type: { kind: 'string' }, value: u.branch.key },
            [INSERT_AT]: { type: { kind: 'timestamp' }, value: loadTime },
            [RECORDED_UPDATED_AT]: { type: { kind: 'timestamp' }, value: loadTime },
          },
          track: [tr.cdc, tr.date].filter((x): x is string => !!x),
        };
        const stats: ReadStats = { rows: 0, max: {} };
        writer = new StagingWriter(dir, encoder!, { rowsPerFile: s.stagingRowsPerFile, hold });
        await writer.init();
        ulog.info('extracting', { attempt: u.attempts, sql: q.sql, binds: q.binds.map((b) => b.value) });
        for await (const b of u.branch.source.read(q, u.columns, target, { batchSize: u.branch.fetchBatchSize ?? s.fetchBatchSize, signal: deps.signal, stats })) {
          await writer.add(b);
        }
        u.files = await writer.finish();
        u.staged = writer;
        u.rows = stats.rows;
        u.stats = stats;
        u.status = 'SUCCESS';
        u.finishedAt = new Date();
        ulog.info('extracted', { rows: u.rows, files: u.files.length, attempts: u.attempts });
        return;
      } catch (e) {
        await writer?.discard().catch(() => {});
        if (deps.signal?.aborted) throw e;
        const err = toError(e);
        const transient = !(err as { fatal?: boolean }).fatal && isTransient(err);
        if (transient && u.attempts <= s.retries) {
          ulog.warn('transient error, retrying', { attempt: u.attempts, of: s.retries + 1, delayMs: s.retryDelayMs, error: err.message });
          await sleep(s.retryDelayMs, deps.signal);
          continue;
        }
        u.status = 'FAILED';
        u.fatal = !transient;
        u.error = err.message;
        u.finishedAt = new Date();
        ulog.error(transient ? 'failed after retries' : 'failed (not retried)', { attempts: u.attempts, error: err.message });
        return;
      }
    }
  }

  async function loadTable(st: TableState): Promise<void> {
    const def = st.def;
    const tlog = log.child({ table: def.lakeName });
    const ok = st.units.filter((u) => u.status === 'SUCCESS');
    const bad = st.units.filter((u) => u.status !== 'SUCCESS');
    const replace = s.mode === 'INITIAL' && allBranches && bad.length === 0;
    let disposition: string | null = replace ? 'replace' : 'merge';
    let snapshotId: string | null = null;
    let loadError: string | null = null;
    if (ok.length) {
      const files = ok.flatMap((u) => u.files);
      try {
        tlog.info('loading', { disposition, branches: ok.map((u) => u.branch.key), rows: ok.reduce((a, u) => a + u.rows, 0), files: files.length });
        const out = replace ? await deps.target.replace(def.lakeName, files) : await deps.target.merge(def.lakeName, files, def.uniqueKey, { groupMaxBytes: s.loadGroupMaxBytes });
        snapshotId = out.snapshotId;
        disposition = out.disposition === 'append' ? 'replace' : out.disposition;
      } catch (e) {
        loadError = `etl: load of ${def.lakeName} failed: ${toError(e).message}`;
        tlog.error('load failed', { error: loadError });
      }
    }
    const finishedAt = new Date();
    for (const u of ok) {
      if (loadError) {
        u.status = 'FAILED'; u.fatal = true; u.error = loadError;
        await recordFailure(deps.pool, { table: def.lakeName, branch: u.branch.key, runId, status: 'FAILED', error: loadError, startedAt: u.startedAt, finishedAt });
      } else {
        const tr = trackedColumns(def.spec);
        const old = s.mode === 'INCREMENTAL' ? u.watermark ?? { cdc: null, date: null } : { cdc: null, date: null };
        const wm: Watermark = {
          cdc: laterWatermark(old.cdc, tr.cdc ? u.stats?.max[tr.cdc]?.text ?? null : null),
          date: laterWatermark(old.date, tr.date ? u.stats?.max[tr.date]?.text ?? null : null),
        };
        u.watermark = wm;
        await recordSuccess(deps.pool, { table: def.lakeName, branch: u.branch.key, runId, mode: s.mode, watermark: wm, snapshotId, rows: u.rows, startedAt: u.startedAt, finishedAt });
      }
      await appendRunLog(deps.pool, {
        runId, table: def.lakeName, branch: u.branch.key, mode: s.mode, category: def.category, status: u.status!, rows: loadError ? 0 : u.rows,
        startedAt: u.startedAt, finishedAt, attempts: u.attempts, writeDisposition: disposition, schemaDiscrepancy: st.drift.length ? st.drift : null, error: u.error,
      });
    }
    for (const u of bad) {
      await recordFailure(deps.pool, { table: def.lakeName, branch: u.branch.key, runId, status: u.status as UnitStatus, error: u.error ?? 'failed', startedAt: u.startedAt, finishedAt: u.finishedAt ?? finishedAt });
      await appendRunLog(deps.pool, {
        runId, table: def.lakeName, branch: u.branch.key, mode: s.mode, category: def.category, status: u.status as UnitStatus, rows: 0,
        startedAt: u.startedAt, finishedAt: u.finishedAt ?? finishedAt, attempts: u.attempts, writeDisposition: ok.length ? disposition : null,
        schemaDiscrepancy: st.drift.length ? st.drift : null, error: u.error,
      });
    }
    for (const u of st.units) {
      summary.units.push({ table: def.lakeName, branch: u.branch.key, phase: u.phase, status: u.status!, rows: u.status === 'SUCCESS' ? u.rows : 0, attempts: u.attempts,
        writeDisposition: u.status === 'SUCCESS' ? disposition : null, error: u.error, watermark: u.watermark, sql: u.query?.sql, binds: u.query?.binds });
    }
    if (!loadError && ok.length && disposition === 'merge' && s.compactDeletedRatio > 0) {
      const parts = await deps.target.compact(def.lakeName, { deletedRatio: s.compactDeletedRatio, maxDeleteFiles: 16 })
        .catch((e) => { tlog.warn('compaction failed (the merge stands)', { error: toError(e).message }); return []; });
      if (parts.length) tlog.info('compacted partitions', { partitions: parts });
    }
    if (!loadError && ok.length && s.snapshotMaintenance) {
      await deps.target.expire(def.lakeName, { maxAgeDays: s.snapshotExpireDays, minToKeep: s.snapshotMinToKeep }).catch((e) => tlog.warn('snapshot expiry failed', { error: toError(e).message }));
    }
    for (const u of st.units) u.staged?.release();
    if (!s.keepStaging) await fs.rm(path.join(deps.stagingRoot, runId, def.lakeName), { recursive: true, force: true }).catch(() => {});
    if (loadError) throw new Error(loadError);
  }
}
