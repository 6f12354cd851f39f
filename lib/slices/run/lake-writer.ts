import * as arrow from 'apache-arrow';
import type pg from 'pg';
import { openLake, type LakeTable } from '../../lake';
import type { LakeSliceWriter } from './native-executor';
import type { RunSettings } from './settings';

// Postgres type OIDs → Arrow. numeric goes to Utf8 (exact text; no silent rounding).
const OID: Record<number, () => arrow.DataType> = {
  16: () => new arrow.Bool(), 20: () => new arrow.Int64(), 21: () => new arrow.Int32(), 23: () => new arrow.Int32(),
  700: () => new arrow.Float32(), 701: () => new arrow.Float64(), 1082: () => new arrow.DateDay(),
  1114: () => new arrow.TimestampMicrosecond(), 1184: () => new arrow.TimestampMicrosecond('UTC'),
};

/** Arrow schema of a slice query's result (keys are required: Iceberg identifier fields). */
export function arrowSchemaOf(fields: { name: string; dataTypeID: number }[], keys: string[]): arrow.Schema {
  return new arrow.Schema(fields.map((f) => new arrow.Field(f.name, (OID[f.dataTypeID] ?? (() => new arrow.Utf8()))(), !keys.includes(f.name))));
}

/** Text values (as COPY/cursor return them with text parsers) → JS values for the Arrow type. */
function convert(v: string | null, t: arrow.DataType): unknown {
  if (v === null) return null;
  switch (t.typeId) {
    case arrow.Type.Bool: return v === 't' || v === 'true';
    case arrow.Type.Int: return (t as arrow.Int).bitWidth === 64 ? BigInt(v) : Number(v);
    case arrow.Type.Float: return Number(v);
    case arrow.Type.Date: return new Date(v + 'T00:00:00Z');
    case arrow.Type.Timestamp: {
      // Postgres text: `2024-01-01 00:00:01+00` or without zone; milliseconds kept.
      const iso = v.replace(' ', 'T');
      return Date.parse((t as arrow.Timestamp).timezone ? iso.replace(/([+-]\d\d)$/, '$1:00') : iso + 'Z');
    }
    default: return v;
  }
}

export function toRecordBatch(schema: arrow.Schema, rows: Record<string, string | null>[]): arrow.RecordBatch {
  const children = schema.fields.map((f) => arrow.vectorFromArray(rows.map((r) => convert(r[f.name] ?? null, f.type)), f.type).data[0]);
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.RecordBatch(schema, struct);
}

const textTypes = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

/**
 * The native executor's lake target: each slice is read with a cursor in
 * `nativeBatchRows` batches and merged into the lake table named by the
 * slice's target (`ns.table`) on the merge keys. The table is created from the
 * query's columns when missing. Merges into one table are serialised in this
 * process (Iceberg commits are compare-and-swap; disjoint slices never touch
 * the same keys, so a re-run only rewrites its own rows).
 */
export async function lakeTargetFromSettings(pool: pg.Pool, s: RunSettings, defaultWarehouse: string): Promise<LakeSliceWriter> {
  if (!s.mergeKeys.length) throw new Error('slices: --target-lake needs --merge-keys (the key the lake merges on)');
  const warehouse = !s.targetLake || s.targetLake === 'default' ? defaultWarehouse : s.targetLake;
  const lake = openLake({ pool, warehouse });
  const tables = new Map<string, Promise<LakeTable>>();
  const locks = new Map<string, Promise<unknown>>();
  const tableFor = (ident: string, fields: { name: string; dataTypeID: number }[]) => {
    let p = tables.get(ident);
    if (!p) {
      p = (async () => {
        if (await lake.tableExists(ident)) return lake.loadTable(ident);
        const ns = ident.split('.').slice(0, -1).join('.');
        if (ns && !(await lake.listNamespaces()).includes(ns)) await lake.createNamespace(ns).catch(() => {});
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
    const next = prev.catch(() => {}).then(fn);
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
      for (const k of s.mergeKeys) if (!r.fields.some((f) => f.name === k)) throw new Error(`slices: merge key ${k} is not a column of the slice query`);
      const table = await tableFor(slice.targettbl, r.fields);
      const batch = toRecordBatch(table.arrowSchema(), r.rows);
      const res = await serial(slice.targettbl, async () => { await table.refresh(); return table.merge([batch], { keys: s.mergeKeys }); });
      rowsRead += r.rows.length;
      rowsWritten += r.rows.length;
      void res;
      onBatch(rowsRead, rowsWritten);
    }
    await source.query(`close ${cur}`);
    return { rowsRead, rowsWritten };
  };
}

/** Count a lake table's live rows (reconcile against the lake). */
export function lakeCounter(pool: pg.Pool, warehouse: string): (ident: string) => Promise<number> {
  const lake = openLake({ pool, warehouse });
  return async (ident) => {
    const t = await lake.loadTable(ident);
    let n = 0;
    for await (const b of t.scan()) n += b.numRows;
    return n;
  };
}
