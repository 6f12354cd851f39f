import type pg from 'pg';
import { toError } from '../errors';
import { getWatermarks } from '../db';
import { repairWarning } from './repair-warning';
import type { Lake } from '../lake';
import type { Logger } from '../log';
import { HELPER_DATE, renderDescribe, type SourceColumn } from '../sources';
import type { TableDef } from '../config/tables-json';
import { compareSides, type HashDiff } from '../reconcile/compare';
import { repairUnit, type RepairOutcome } from './repair';
import { countsOnly, KEYLESS_NOTE, newDqRunId, type DqResult, type DqStatus } from './result';
import { writeDqResults } from './results';
import type { DqBranch, DqSource } from './source';
import { fromClause } from '../reconcile/from-clause';
import { lakeSideOf, planUnit } from './plan';
import { waitForStream, type CdcPoint } from './cdc-wait';

export interface DqOptions {
  /** Lake namespace of the data tables. (Default: etl) */
  namespace?: string;
  /** Window start, `YYYY-MM-DD[ HH:MM:SS]`. (Default: none — the whole table, from the start of its INITIAL range) */
  since?: string | null;
  /** Window end; overrides each unit's watermark. (Default: the unit's last watermark in control_state) */
  until?: string | null;
  /** Run the row-hash check (false: counts only, --no-hash). (Default: true) */
  hash?: boolean;
  /** Append rows to etl_meta.etl_dq_results (false: --no-write). (Default: true) */
  write?: boolean;
  /** Re-extract keys only in the source or mismatched and merge them into the lake. (Default: false) */
  repair?: boolean;
  /** With repair, delete keys found only in the lake. (Default: false) */
  repairDeletes?: boolean;
  /** Example keys stored per category. (Default: 20) */
  examples?: number;
  /** Rows a row-level comparison holds per side at once. (Default: 200000) */
  maxRowsInMemory?: number;
  /** The run's id. (Default: a new `dq-…` id) */
  runId?: string;
  /** A streamed branch (`cdc: log`): how long to wait for its lake to reach the source's WAL position (lib/dq/cdc-wait.ts). (Default: 60000) */
  cdcWaitMs?: number;
}

export interface DqDeps {
  /** Tributary's own database: control_state watermarks and etl_dq_results. */
  pool: pg.Pool;
  lake: Lake;
  tables: TableDef[];
  branches: DqBranch[];
  logger: Logger;
  signal?: AbortSignal;
  /** Units done / total. */
  progress?: (done: number, total: number) => void;
  now?: () => Date;
}

export interface DqRunSummary {
  runId: string;
  results: DqResult[];
  /** No unit is MISMATCH or ERROR (after repair: none remains). */
  ok: boolean;
}

/**
 * Reconcile every (table, branch): the windowed row count and the row-hash
 * diff on both sides at one lake snapshot, optionally repaired; results
 * appended to etl_meta.etl_dq_results. Branches run in parallel, each on one
 * source connection, its tables one after another; a branch that cannot be
 * reached gives ERROR for its units and the others are still checked.
 */
export async function runDq(deps: DqDeps, o: DqOptions = {}): Promise<DqRunSummary> {
  const runId = o.runId ?? newDqRunId(deps.now?.());
  const ns = o.namespace ?? 'etl';
  const since = o.since ?? null;
  const log = deps.logger.child({ runId });
  const total = deps.tables.length * deps.branches.length;
  let done = 0;
  const results: DqResult[] = [];
  const base = (def: TableDef, branch: string): DqResult => ({
    pipelineRunId: runId, table: def.lakeName, branch, windowStart: null, windowEnd: null, windowNote: null, lakeSnapshotId: null,
    oracleRowCount: null, icebergRowCount: null, rowCountDelta: null, hashMatched: null, hashOnlyInOracle: null, hashOnlyInIceberg: null,
    hashMismatch: null, hashTotalDelta: null, hashColumns: null, columnsOnlyInOracle: [], columnsOnlyInIceberg: [], exampleKeys: null,
    repair: null, status: 'ERROR', errorDetails: null, checkedAt: deps.now?.() ?? new Date(),
  });
  deps.progress?.(0, total);

  await Promise.all(deps.branches.map(async (b) => {
    let src: DqSource | null = null;
    try {
      src = await b.open();
    } catch (e) {
      const msg = `dq: cannot reach branch ${b.key}: ${toError(e).message}`;
      log.error(msg, { branch: b.key });
      for (const def of deps.tables) { results.push({ ...base(def, b.key), status: 'ERROR', errorDetails: msg }); deps.progress?.(++done, total); }
      return;
    }
    try {
      const point = b.cdc ? await waitForStream(deps.pool, src, b.key, { timeoutMs: o.cdcWaitMs ?? 60_000, signal: deps.signal })
        .catch((e): CdcPoint => ({ reached: false, note: `cdc: could not read how far the stream of ${b.key} is: ${toError(e).message}` })) : null;
      for (const def of deps.tables) {
        deps.signal?.throwIfAborted();
        const r = await checkUnit(src, def, b.key).catch((e) => ({ ...base(def, b.key), status: 'ERROR' as DqStatus, errorDetails: toError(e).message }));
        if (point) withCdcNote(r, point);
        (r.status === 'OK' || r.status === 'SKIPPED' ? log.info : log.warn)('checked', { table: def.lakeName, branch: b.key, status: r.status, source: r.oracleRowCount, lake: r.icebergRowCount, error: r.errorDetails ?? undefined });
        results.push(r);
        deps.progress?.(++done, total);
      }
    } finally { await src.close(); }
  }));

  async function checkUnit(src: DqSource, def: TableDef, branch: string): Promise<DqResult> {
    const res = base(def, branch);
    const ident = `${ns}.${def.lakeName}`;
    if (!(await deps.lake.tableExists(ident))) return { ...res, status: 'SKIPPED', errorDetails: `lake table ${ident} does not exist (never loaded)` };
    const wm = (await getWatermarks(deps.pool, { namespace: ns, table: def.lakeName }, [branch])).get(branch) ?? null;
    if (!wm && !o.until) return { ...res, status: 'SKIPPED', errorDetails: `no control_state watermark for ${def.lakeName} on ${branch} (never loaded on this branch); pass --until to check anyway` };
    const table = await deps.lake.loadTable(ident);
    const snapshotId = table.currentSnapshotId();
    res.lakeSnapshotId = snapshotId === null ? null : String(snapshotId);
    const source = await src.describe(`SELECT t.* FROM ${fromClause(def)}`);
    let helperDate: SourceColumn | null = null;
    if (def.spec.helper?.dateColumn) {
      const all = await src.describe(renderDescribe(def.spec, src.dialect).sql.replace(/ WHERE 1 = 0$/, ''));
      helperDate = all.find((c) => c.name === HELPER_DATE) ?? null;
    }
    const plan = planUnit(def, src.dialect, source, helperDate, table.arrowSchema(), { since, until: o.until, watermark: wm });
    plan.query.digest = src.digest;
    Object.assign(res, {
      windowStart: plan.window.start, windowEnd: plan.window.end, windowNote: plan.window.note,
      columnsOnlyInOracle: plan.columnsOnlyInSource, columnsOnlyInIceberg: plan.columnsOnlyInLake,
    });
    const srcSide = src.side(plan.query);
    const lakeSide = lakeSideOf(table, branch, snapshotId, plan, deps.signal);
    // a keyless (query) entry has no key to join rows on: its row counts are compared, and said so
    const keyless = !def.uniqueKey.length;
    if (o.hash === false || keyless) {
      const [n, m] = await Promise.all([srcSide.count(), lakeSide.count()]);
      Object.assign(res, countsOnly(n, m));
      if (keyless) res.windowNote = [res.windowNote, `${KEYLESS_NOTE} (the row-hash check joins rows on the key)`].filter(Boolean).join('; ');
      if (o.repair && n !== m) res.repair = { status: 'NOT_RUN', reason: keyless ? 'repair needs a unique_key (it re-reads and merges keys); the next etl run refreshes a keyless table whole' : 'repair needs the row-hash check (drop --no-hash)' };
      return res;
    }
    const diff = await compareSides(srcSide, lakeSide, {
      columnNames: plan.columnNames, keyNames: plan.keyNames, examples: o.examples, maxRowsInMemory: o.maxRowsInMemory, signal: deps.signal,
    });
    fillHash(res, diff);
    res.hashColumns = plan.columnNames;
    if (o.repair && res.status === 'MISMATCH') {
      const outcome: RepairOutcome = await repairUnit({ src, table, def, branch, plan, diff, deletes: !!o.repairDeletes, logger: log.child({ table: def.lakeName, branch }), signal: deps.signal })
        .catch((e) => {
          const error = toError(e).message;
          log.warn('repair failed', { table: def.lakeName, branch, error });
          return { status: 'FAILED' as const, error, note: `the repair stopped: ${error}`, remaining: true };
        });
      res.repair = { found_status: 'MISMATCH', ...outcome };
      const why = repairWarning(outcome);
      if (why) log.warn(outcome.status === 'REPAIRED' ? 'repair did nothing' : `repair ${outcome.status.toLowerCase()}`, { table: def.lakeName, branch, reason: why });
      if (!outcome.remaining) res.status = 'OK';
    }
    return res;
  }

  results.sort((a, b) => a.table.localeCompare(b.table) || a.branch.localeCompare(b.branch));
  if (o.write !== false) await writeDqResults(deps.pool, results);
  return { runId, results, ok: results.every((r) => r.status === 'OK' || r.status === 'SKIPPED') };
}

/** A streamed branch's position on each of its results: beside the window when reached, else in plain sight in error_details. */
function withCdcNote(r: DqResult, p: CdcPoint): void {
  if (p.reached) r.windowNote = r.windowNote ? `${r.windowNote}; ${p.note}` : p.note;
  else r.errorDetails = r.errorDetails ? `${p.note}\n${r.errorDetails}` : p.note;
}

function fillHash(res: DqResult, d: HashDiff): void {
  const total = d.onlyInSource + d.onlyInLake + d.mismatch;
  Object.assign(res, {
    oracleRowCount: d.sourceRows, icebergRowCount: d.lakeRows, rowCountDelta: d.sourceRows - d.lakeRows,
    hashMatched: d.matched, hashOnlyInOracle: d.onlyInSource, hashOnlyInIceberg: d.onlyInLake, hashMismatch: d.mismatch, hashTotalDelta: total,
    exampleKeys: total ? { ...d.examples, mismatch_columns: d.mismatchColumns } : null,
    status: total === 0 && d.sourceRows === d.lakeRows ? 'OK' : 'MISMATCH',
  });
}
