import * as arrow from 'apache-arrow';
import type pg from 'pg';
import { AppError, backoffDelay, withRetry } from '../../errors';
import { openLake, type LakeTable, type S3Settings } from '../../lake';
import { ColumnBuilder, assembleBatch, fromArrowType, matchName, pgColumnType, toArrowType } from '../../sources';
import type { LakeSliceWriter } from './native-executor';
import type { RunSettings } from './settings';
import { inRange, planLakeSliceCounts, type LakeValue, type SliceRange } from './lake-slice-range';

/**
 * Arrow schema of a slice query's result, by the same Postgres → Iceberg type
 * mapping the ETL uses (numeric(p,s) → decimal(p,s), timestamptz → timestamptz…).
 * Unconstrained numeric stays exact text: there is no precision to declare and
 * rounding it would silently change values. Keys are required (identifier fields).
 */
export function arrowSchemaOf(fields: { name: string; dataTypeID: number; dataTypeModifier?: number }[], keys: string[]): arrow.Schema {
  return new arrow.Schema(fields.map((f) => {
    const unconstrainedNumeric = f.dataTypeID === 1700 && (f.dataTypeModifier ?? -1) < 4;
    const t = unconstrainedNumeric ? ({ kind: 'string' } as const) : pgColumnType(f.dataTypeID, f.dataTypeModifier ?? -1).type;
    return new arrow.Field(f.name, toArrowType(t), !keys.includes(f.name));
  }));
}

/** Postgres text output of one value, ready for ColumnBuilder.set (bytea arrives as `\x…` hex). */
function fromPgText(v: string | null, kind: string): unknown {
  if (v === null) return null;
  if (kind === 'binary' && v.startsWith('\\x')) return Buffer.from(v.slice(2), 'hex');
  return v;
}

/**
 * Rows as Postgres text → one Arrow batch of the target table's schema (an
 * existing lake table's types win: decimals, timestamps… are converted, not
 * written as strings).
 */
export function toRecordBatch(schema: arrow.Schema, rows: Record<string, string | null>[]): arrow.RecordBatch {
  const names = rows.length ? Object.keys(rows[0]) : [];
  const columns = schema.fields.map((f) => {
    const type = fromArrowType(f.type);
    // a lake column spelt otherwise (`FILM_ID`, from an ETL load under naming: upper) is filled from the query's `film_id`
    const from = f.name in (rows[0] ?? {}) ? f.name : matchName(names, f.name) ?? f.name;
    const b = new ColumnBuilder(type, Math.max(1, rows.length));
    for (let i = 0; i < rows.length; i++) {
      b.prepare(i);
      try {
        b.set(i, fromPgText(rows[i][from] ?? null, type.kind));
      } catch (e) {
        throw new AppError('validation', `slices: column ${f.name}: cannot store ${JSON.stringify(rows[i][from])} as ${f.type}: ${(e as Error).message}`, { cause: e });
      }
    }
    return b.finish(rows.length);
  });
  return assembleBatch(schema, columns, rows.length);
}

const textTypes = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

/**
 * The native executor's lake target: each slice is read with a cursor in
 * `nativeBatchRows` batches and merged into the lake table named by the
 * slice's target (`ns.table`) on the merge keys. The table is created from the
 * query's columns when missing. Merges into one table are serialised in this
 * process (Iceberg commits are compare-and-swap; disjoint slices never touch
 * the same keys, so a re-run only rewrites its own rows). Across processes (a
 * fanned-out run's slices on several workers) two merges into one partition
 * still race: the loser gets the lake's `conflict` and is merged again on the
 * winner's snapshot, which is correct because its keys are matched anew.
 */
export async function lakeTargetFromSettings(pool: pg.Pool, s: RunSettings, defaultWarehouse: string, s3?: S3Settings): Promise<LakeSliceWriter> {
  if (!s.mergeKeys.length) throw new AppError('usage', 'slices: --target-lake needs --merge-keys (the key the lake merges on)');
  const warehouse = !s.targetLake || s.targetLake === 'default' ? defaultWarehouse : s.targetLake;
  const lake = openLake({ pool, warehouse, s3 });
  const tables = new Map<string, Promise<LakeTable>>();
  const locks = new Map<string, Promise<unknown>>();
  const tableFor = (ident: string, fields: { name: string; dataTypeID: number; dataTypeModifier?: number }[]) => {
    let p = tables.get(ident);
    if (!p) {
      p = (async () => {
        if (await lake.tableExists(ident)) return lake.loadTable(ident);
        const ns = ident.split('.').slice(0, -1).join('.');
        if (ns && !(await lake.listNamespaces()).includes(ns)) await lake.createNamespace(ns).catch(() => { /* another process created it first; createTable below fails if not */ });
        try {
          return await lake.createTable(ident, { schema: arrowSchemaOf(fields, s.mergeKeys), identifierColumns: s.mergeKeys });
        } catch (e) {
          if (await lake.tableExists(ident)) return lake.loadTable(ident); // another process created it
          throw e;
        }
      })();
      tables.set(ident, p);
      p.catch(() => tables.delete(ident));
    }
    return p;
  };
  const serial = <T>(ident: string, fn: () => Promise<T>): Promise<T> => {
    const prev = locks.get(ident) ?? Promise.resolve();
    // The previous merge's failure belongs to its own caller; this one only waits its turn.
    const next = prev.catch(() => undefined).then(fn);
    locks.set(ident, next);
    return next;
  };
  return async ({ slice, source, query, signal, onBatch }) => {
    const cur = `slice_c_${slice.id}`;
    await source.query(`declare ${cur} no scroll cursor for ${query}`);
    let rowsRead = 0;
    let rowsWritten = 0;
    for (;;) {
      if (signal.aborted) throw new Error('aborted');
      const r = await source.query({ text: `fetch ${s.nativeBatchRows} from ${cur}`, types: textTypes });
      if (!r.rows.length) break;
      for (const k of s.mergeKeys) if (!r.fields.some((f) => f.name === k)) throw new AppError('validation', `slices: merge key ${k} is not a column of the slice query`);
      const table = await tableFor(slice.targettbl, r.fields);
      const batch = toRecordBatch(table.arrowSchema(), r.rows);
      // the merge keys as the lake spells them (matched without regard to case, as the ETL's schema union does)
      const lakeNames = table.arrowSchema().fields.map((f) => f.name);
      const keys = s.mergeKeys.map((k) => (lakeNames.includes(k) ? k : matchName(lakeNames, k) ?? k));
      const res = await serial(slice.targettbl, () => mergeRetryingConflicts(table, batch, keys, signal));
      rowsRead += r.rows.length;
      rowsWritten += r.rows.length;
      void res;
      onBatch(rowsRead, rowsWritten);
    }
    await source.query(`close ${cur}`);
    return { rowsRead, rowsWritten };
  };
}

/** Merges of one batch a lost race may cost before the slice fails (and is re-dispatched by the orchestrator). */
const MERGE_ATTEMPTS = 8;

/** Merge one batch on the table's newest snapshot; a concurrent commit to the same partition (another worker's slice) means merging again on top of it. */
async function mergeRetryingConflicts(table: LakeTable, batch: arrow.RecordBatch, keys: string[], signal: AbortSignal): Promise<unknown> {
  return withRetry(async () => {
    await table.refresh();
    return table.merge([batch], { keys });
  }, {
    retries: MERGE_ATTEMPTS - 1, signal,
    retryable: (e) => e instanceof AppError && e.code === 'conflict',
    // Jittered (withRetry's default), so two workers that collided do not collide again in step.
    delayMs: (n) => backoffDelay(n, 50, 2000),
  });
}

/** Reconcile's view of the lake: a table's live rows, and its rows per slice by the slices' key ranges. */
export interface LakeCounter {
  (ident: string): Promise<number>;
  /** One count per predicate (null where the slice has no range the lake can evaluate), with why. */
  countSlices(ident: string, predicates: (string | null)[]): Promise<{ counts: (number | null)[]; note: string | null }>;
}

/** Count a lake table's rows, in total and per slice (lib/slices/run/lake-slice-range.ts says which slices can be). */
export function lakeCounter(pool: pg.Pool, warehouse: string, s3?: S3Settings): LakeCounter {
  const lake = openLake({ pool, warehouse, s3 });
  const count = async (ident: string) => {
    const t = await lake.loadTable(ident);
    let n = 0;
    for await (const b of t.scan()) n += b.numRows;
    return n;
  };
  return Object.assign(count, {
    async countSlices(ident: string, predicates: (string | null)[]) {
      const plan = planLakeSliceCounts(predicates);
      const none = (note: string) => ({ counts: predicates.map(() => null), note });
      if (plan.note) return none(plan.note);
      if (plan.column === null) return { counts: [await count(ident)], note: null };
      const t = await lake.loadTable(ident);
      const want = plan.column;
      const field = t.arrowSchema().fields.find((f) => f.name === want) ?? t.arrowSchema().fields.find((f) => f.name.toLowerCase() === want.toLowerCase());
      if (!field) return none(`lake: the split column ${want} is not a column of ${ident}: compare totals`);
      if (![arrow.Type.Int, arrow.Type.Float, arrow.Type.Date, arrow.Type.Timestamp].includes(field.typeId)) {
        return none(`lake: the split column ${field.name} is a ${field.type} column, not countable by range here: compare totals`);
      }
      const ranges = plan.ranges as SliceRange[];
      // Slices in key order (an assorted queryfile is not): a value's slice is the last one starting at or below it.
      const order = ranges.map((_, i) => i).sort((a, b) => (ranges[a].lo ?? -Infinity) - (ranges[b].lo ?? -Infinity));
      const nullSlice = ranges.findIndex((r) => r.nulls);
      const counts = ranges.map(() => 0);
      for await (const b of t.scan({ columns: [field.name] })) {
        const col = b.getChildAt(0)!;
        for (let i = 0; i < b.numRows; i++) {
          const v = col.get(i) as LakeValue;
          if (v === null || v === undefined) { if (nullSlice >= 0) counts[nullSlice]++; continue; }
          let lo = 0, hi = order.length - 1, at = -1;
          while (lo <= hi) {
            const mid = (lo + hi) >> 1;
            const start = ranges[order[mid]].lo;
            if (start === undefined || inRange(v, { column: want, lo: start, nulls: false })) { at = mid; lo = mid + 1; } else hi = mid - 1;
          }
          if (at >= 0 && inRange(v, ranges[order[at]])) counts[order[at]]++;
        }
      }
      return { counts, note: null };
    },
  });
}
