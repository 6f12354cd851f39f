import type * as arrow from 'apache-arrow';
import type { LakeTable } from '../lake';
import type { SourceColumn } from '../sources';
import { fromClause } from '../reconcile/from-clause';
import { DELETED_AT, INJECTED } from '../config/lake-columns';
import type { TableDef } from '../config/tables-json';
import { applyNaming } from '../config/naming';
import { lakeNameOf, matchName } from '../sources/lake-names';
import { arrowKind } from '../reconcile/arrow-canonical';
import { arrowSide, type BatchPredicate } from '../reconcile/arrow-side';
import { compareAsFloat } from '../reconcile/canonical';
import { oracleKind } from '../reconcile/oracle-sql';
import { pgKind } from '../reconcile/pg-sql';
import type { DqSide } from '../reconcile/side';
import type { HashQuery, SqlColumn } from '../reconcile/sql-common';
import { lakePredicate, unitWindow, type UnitWindow } from './window';
import { windowWhere } from './window-sql';
import { AppError } from '../errors';


const NUMERIC = new Set(['int', 'long', 'decimal', 'double', 'float']);

/** Everything one unit's checks need, resolved from both sides' schemas. */
export interface UnitPlan {
  window: UnitWindow;
  query: HashQuery;
  lakeColumns: { name: string; asFloat: boolean }[];
  lakeKeys: { name: string; asFloat: boolean }[];
  columnNames: string[];
  keyNames: string[];
  columnsOnlyInSource: string[];
  columnsOnlyInLake: string[];
  sourceColumns: SourceColumn[];
}

/** Resolve columns, keys and window of a unit (pure over the described schemas). */
export function planUnit(def: TableDef, dialect: 'postgres' | 'oracle', source: SourceColumn[], helperDate: SourceColumn | null, lakeSchema: arrow.Schema,
  w: { since: string | null; until?: string | null; watermark: { cdc: string | null; date: string | null } | null }): UnitPlan {
  const lakeFields = lakeSchema.fields.filter((f) => !INJECTED.some((n) => n.toUpperCase() === f.name.toUpperCase()));
  const src = source.filter((c) => !INJECTED.some((n) => n.toUpperCase() === c.name.toUpperCase()));
  // Each source column is matched to the lake column the ETL fills from it: the name the table's
  // `naming` gives it, or an existing lake column equal to that without regard to case (a lake
  // created under another convention, e.g. `FILM_ID` under the old `upper` default, keeps loading
  // and is compared). Reported names are the lake's spelling.
  const lakeNames = lakeFields.map((f) => f.name);
  const lakeByName = new Map(lakeFields.map((f) => [f.name, f]));
  const lakeByUpper = new Map(lakeFields.map((f) => [f.name.toUpperCase(), f]));
  const pairs: { s: SourceColumn; f: arrow.Field }[] = [];
  const matched = new Set<string>();
  const columnsOnlyInSource: string[] = [];
  for (const c of src) {
    const f = lakeByName.get(lakeNameOf(def, c, lakeNames)) ?? lakeByUpper.get(c.name.toUpperCase());
    if (f && !matched.has(f.name)) { pairs.push({ s: c, f }); matched.add(f.name); } else columnsOnlyInSource.push(c.sourceName ?? c.name);
  }
  const order = (a: string, b: string) => (a.toUpperCase() < b.toUpperCase() ? -1 : a.toUpperCase() > b.toUpperCase() ? 1 : a < b ? -1 : a > b ? 1 : 0);
  pairs.sort((a, b) => order(a.f.name, b.f.name));
  columnsOnlyInSource.sort(order);
  const common = pairs.map((p) => p.f.name);
  const columnsOnlyInLake = lakeNames.filter((n) => !matched.has(n)).sort(order);
  // a subquery entry may have no unique_key (refreshed whole at every run): no key to join rows on, so
  // the unit compares row counts only (run.ts); `keyNames` is then empty
  // tables.json keys are canonical (upper-cased) source names
  const keyIdx = def.uniqueKey.map((k) => {
    const i = pairs.findIndex((p) => p.s.name.toUpperCase() === k.toUpperCase());
    if (i < 0) throw new AppError('validation', `dq: unique key column ${k} is not on both sides (source has ${src.some((c) => c.name.toUpperCase() === k.toUpperCase())}, lake has ${!!matchName(lakeNames, applyNaming(k, def.naming)) || !!matchName(lakeNames, k)})`);
    return i;
  });
  const srcByName = new Map(src.map((c) => [c.name.toUpperCase(), c]));
  const kindOf = dialect === 'postgres' ? pgKind : oracleKind;
  const sqlCols: SqlColumn[] = [];
  const lakeCols: { name: string; asFloat: boolean }[] = [];
  for (const { s: c, f } of pairs) {
    const asFloat = compareAsFloat(kindOf(c.sourceType), arrowKind(f.type));
    sqlCols.push({ name: c.sourceName ?? c.name, sourceType: c.sourceType, asFloat });
    lakeCols.push({ name: f.name, asFloat });
  }
  const winCol = def.spec.helper ? helperDate : def.spec.dateColumn ? srcByName.get(def.spec.dateColumn.toUpperCase()) ?? null : null;
  if (!def.spec.helper && def.spec.dateColumn && !winCol) throw new AppError('validation', `dq: date column ${def.spec.dateColumn} not found at the source`);
  const winLake = !def.spec.helper && winCol ? pairs.find((p) => p.s === winCol)?.f ?? null : null;
  if (!def.spec.helper && def.spec.dateColumn && !winLake) throw new AppError('validation', `dq: date column ${def.spec.dateColumn} not found in the lake table`);
  const julian = !!winCol && NUMERIC.has(winCol.type.kind);
  const window = unitWindow({ spec: def.spec, category: def.category, since: w.since, until: w.until, watermark: w.watermark, julian });
  if (window.column && winLake) window.column = winLake.name;
  const where = windowWhere(dialect, window, {
    window: !def.spec.helper && winCol ? { alias: 't', column: winCol } : null,
    initial: window.initial ? (window.initial.onHelper ? (helperDate ? { alias: 'h', column: helperDate, raw: def.spec.helper!.dateColumn! } : null) : { alias: 't', column: winCol! }) : null,
  });
  // a single integer key on both sides buckets by a cheap integer mix instead of an MD5 of its text
  const keyHash = keyIdx.length === 1 && kindOf(pairs[keyIdx[0]].s.sourceType) === 'integer'
    && arrowKind(pairs[keyIdx[0]].f.type) === 'integer' ? 'int32' as const : 'md5' as const;
  return {
    window,
    query: { rel: { from: fromClause(def), where }, keys: keyIdx.map((i) => sqlCols[i]), columns: sqlCols, keyHash },
    lakeColumns: lakeCols, lakeKeys: keyIdx.map((i) => lakeCols[i]),
    columnNames: common, keyNames: keyIdx.map((i) => common[i]),
    columnsOnlyInSource, columnsOnlyInLake, sourceColumns: source,
  };
}

/**
 * The lake side of a unit: the branch partition at one snapshot, windowed in
 * the decode loop. Rows soft-deleted by the ETL (`_deleted_at` set: tables.json
 * `soft_delete`) are gone from the source by design and are not compared.
 */
export function lakeSideOf(table: LakeTable, branch: string, snapshotId: bigint | null, plan: UnitPlan, signal?: AbortSignal): DqSide {
  const soft = table.arrowSchema().fields.some((f) => f.name === DELETED_AT);
  const win = lakePredicate(plan.window);
  return arrowSide({
    scan: (columns) => (snapshotId === null ? (async function* () { /* empty table */ })() : table.scan({ columns, partition: { BRANCH_ID: branch }, snapshotId })),
    keys: plan.lakeKeys, columns: plan.lakeColumns, keyHash: plan.query.keyHash, digest: plan.query.digest,
    windowColumns: [...(plan.window.column ? [plan.window.column] : []), ...(soft ? [DELETED_AT] : [])],
    window: soft ? liveOnly(win) : win,
    signal,
  });
}

/** `window` and `_deleted_at IS NULL`. */
function liveOnly(win: BatchPredicate | undefined): BatchPredicate {
  return (batch) => {
    const d = batch.data.children[batch.schema.fields.findIndex((f) => f.name === DELETED_AT)];
    const inWin = win?.(batch) ?? null;
    const bm = d.nullBitmap;
    const live = (i: number) => { if (d.nullCount === d.length) return true; if (!d.nullCount) return false; const k = d.offset + i; return (bm![k >> 3] & (1 << (k & 7))) === 0; };
    return inWin ? (i) => live(i) && inWin(i) : live;
  };
}

