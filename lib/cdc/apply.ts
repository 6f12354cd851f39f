import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import type { LakeTable } from '../lake';
import { BRANCH_ID, DELETED_AT, INJECTED, INSERT_AT, RECORDED_UPDATED_AT } from '../config/lake-columns';
import type { TableDef } from '../config/tables-json';
import {
  ColumnBuilder, assembleBatch, canonicalColumn, fromArrowType, lakeKeys, lakeNameOf, pgColumnType, toArrowType, unionSchemas, type UnionColumn,
} from '../sources';
import type { RelationColumn, TupleValue } from './pgoutput';

/**
 * One table's changes of a flush, and their application as ONE lake commit: the last change of
 * each key wins (an insert, update or delete of the same row later in the log replaces an earlier
 * one), upserts are merged on unique_key + BRANCH_ID with `insert_at` carried forward, deletes go
 * into the same merge commit as Iceberg position deletes (or stamp `_deleted_at` with
 * `soft_delete`), and the LSN the commit brings the table to is in its snapshot summary.
 */

/**
 * A row as the log gave it: the tuple's text values (null; undefined = an unchanged TOASTed value)
 * and their lake column names. `names` is the relation's one array, shared by every row of it:
 * no per-row map is built while a backlog streams in, and the batch resolves its columns once
 * per relation, not once per row.
 */
export interface ChangeRow { names: string[]; values: TupleValue[] }

export interface TableChanges {
  def: TableDef;
  /** Key (JSON of the key values) → the row's last image, or null when its last change is a delete. */
  rows: Map<string, { key: string[]; row: ChangeRow | null }>;
  /** A TRUNCATE came: the branch's rows go first, before the rows after it. */
  truncated: boolean;
  /** The source columns of the latest relation message (new columns reach the lake schema through them). */
  columns: RelationColumn[];
  changes: number;
}

export function emptyChanges(def: TableDef, columns: RelationColumn[]): TableChanges {
  return { def, rows: new Map(), truncated: false, columns, changes: 0 };
}

/** Lake names of the relation's columns, as the INITIAL names them (the table's `naming`, the lake's spelling). */
export function lakeNames(def: TableDef, columns: RelationColumn[], lake: string[]): string[] {
  return columns.map((c) => lakeNameOf(def, { name: canonicalColumn(c.name), sourceName: c.name }, lake));
}

/** A tuple as a row of lake column names. */
export function rowOf(names: string[], tuple: TupleValue[]): ChangeRow {
  return { names, values: tuple };
}

/** A column's value in a row (undefined when the row has no such column, or an unchanged TOASTed value). */
export function valueOf(row: ChangeRow, name: string): TupleValue {
  const i = row.names.indexOf(name);
  return i < 0 ? undefined : row.values[i];
}

/** Record one change: the key's latest image replaces any earlier one of this flush. */
export function addChange(t: TableChanges, keyCols: string[], row: ChangeRow, kind: 'upsert' | 'delete', lakeTable: string): void {
  const key = keyCols.map((k) => valueOf(row, k));
  if (key.some((v) => v === null || v === undefined)) {
    throw new AppError('validation', `cdc: table ${lakeTable}: a ${kind} without its unique_key ${keyCols.join(', ')} in the log: unique_key must be the table's primary key, or the table REPLICA IDENTITY FULL`);
  }
  // one key column (the common case): its text is the map key as it is, no JSON per change
  const k = key.length === 1 ? (key[0] as string) : JSON.stringify(key);
  const prev = t.rows.get(k);
  if (kind === 'upsert' && prev?.row && row.values.includes(undefined)) {
    // an unchanged TOASTed value of this update: the earlier image of this flush holds it
    const values = row.values.slice();
    for (let i = 0; i < values.length; i++) {
      if (values[i] !== undefined) continue;
      const j = prev.row.names.indexOf(row.names[i]);
      if (j >= 0) values[i] = prev.row.values[j];
    }
    row = { names: row.names, values };
  }
  t.rows.set(k, { key: key as string[], row: kind === 'delete' ? null : row });
  t.changes++;
}

/** The lake schema holding the relation's columns: new columns added, widened ones widened (lib/sources' union rules). */
export function evolvedSchema(def: TableDef, branch: string, cur: arrow.Schema, columns: RelationColumn[]): arrow.Schema | null {
  const data = cur.fields.filter((f) => !INJECTED.includes(f.name));
  const names = lakeNames(def, columns, cur.fields.map((f) => f.name));
  const incoming: UnionColumn[] = columns.map((c, i) => ({ name: names[i], type: pgColumnType(c.typeOid, c.typeMod).type }))
    // a type the lake has and the log only knows as text (an enum, a domain) keeps the lake's type
    .filter((c) => !(c.type.kind === 'string' && data.some((f) => f.name === c.name)));
  const { columns: union } = unionSchemas({ [branch]: incoming }, data.map((f) => ({ name: f.name, type: fromArrowType(f.type) })));
  const changed = union.some((u) => {
    const f = cur.fields.find((x) => x.name === u.name);
    return !f || String(f.type) !== String(toArrowType(u.type));
  });
  if (!changed) return null;
  const fields = cur.fields.map((f) => {
    const u = union.find((x) => x.name === f.name);
    return u ? new arrow.Field(f.name, toArrowType(u.type), f.nullable) : f;
  });
  for (const u of union) if (!cur.fields.some((f) => f.name === u.name)) fields.push(new arrow.Field(u.name, toArrowType(u.type), true));
  return new arrow.Schema(fields);
}

/** PostgreSQL's text form of bytea (`\x…`) as bytes; other values as they are. */
function valueFor(kind: string, v: string): unknown {
  if (kind === 'binary' && v.startsWith('\\x')) return Buffer.from(v.slice(2), 'hex');
  return v;
}

/** The upserted rows as one Arrow batch in the lake table's schema. */
export function upsertBatch(schema: arrow.Schema, branch: string, rows: ChangeRow[], nowMicros: bigint): arrow.RecordBatch {
  const n = rows.length;
  // per relation (rows share its `names`): each lake field's position in the tuple, -1 when absent
  const positions = new Map<string[], Int32Array>();
  const posOf = rows.map((r) => {
    let p = positions.get(r.names);
    if (!p) positions.set(r.names, (p = Int32Array.from(schema.fields, (f) => r.names.indexOf(f.name))));
    return p;
  });
  const children = schema.fields.map((f, fi) => {
    const type = fromArrowType(f.type);
    const b = new ColumnBuilder(type, Math.max(1, n));
    const fixed = f.name === BRANCH_ID ? branch : f.name === INSERT_AT || f.name === RECORDED_UPDATED_AT ? nowMicros : f.name === DELETED_AT ? null : undefined;
    const binary = type.kind === 'binary';
    for (let i = 0; i < n; i++) {
      b.prepare(i);
      let v: unknown = fixed;
      if (fixed === undefined) {
        const at = posOf[i][fi];
        const t = at < 0 ? null : rows[i].values[at];
        v = t === null || t === undefined ? null : binary ? valueFor('binary', t) : t;
      }
      b.set(i, v);
    }
    return b.finish(n);
  });
  return assembleBatch(schema, children, n);
}

export interface ApplyResult { snapshotId: string | null; inserted: number; updated: number; deleted: number; truncated: boolean }

/**
 * Apply one table's changes to the lake (its schema evolved first when the log brought new or
 * wider columns). Unchanged TOASTed values no earlier image of the flush filled are read from the
 * lake's current row. `summary` goes into the commit's snapshot summary.
 */
export async function applyTable(tbl: LakeTable, t: TableChanges, o: { branch: string; nowMicros: bigint; summary: Record<string, string> }): Promise<ApplyResult> {
  const target = evolvedSchema(t.def, o.branch, tbl.arrowSchema(), t.columns);
  if (target) await tbl.evolveSchema(target);
  const schema = tbl.arrowSchema();
  const keys = lakeKeys(t.def, schema.fields.map((f) => f.name));
  if (t.truncated) await tbl.deleteWhere({ partition: { [BRANCH_ID]: o.branch } });
  const upserts: ChangeRow[] = []; const deletes: unknown[][] = [];
  for (const { key, row } of t.rows.values()) {
    if (row) upserts.push(row); else deletes.push([...key, o.branch]);
  }
  await fillUnchanged(tbl, keys, o.branch, upserts);
  const soft = t.def.deletes.soft || t.def.entry.soft_delete === true;
  if (soft && !schema.fields.some((f) => f.name === DELETED_AT)) {
    await tbl.evolveSchema(new arrow.Schema([...schema.fields, new arrow.Field(DELETED_AT, toArrowType({ kind: 'timestamp' }), true)]));
  }
  const finalSchema = tbl.arrowSchema();
  const batch = upsertBatch(finalSchema, o.branch, upserts, o.nowMicros);
  const r = await tbl.merge([batch], {
    keys: [...keys, BRANCH_ID], carryForward: [INSERT_AT], duplicateKeys: 'error', summary: o.summary,
    ...(deletes.length ? { deleteKeys: deletes, ...(soft ? { softDelete: { column: DELETED_AT, value: o.nowMicros } } : {}) } : {}),
  });
  return { snapshotId: r.snapshotId === null ? null : String(r.snapshotId), inserted: r.inserted, updated: r.updated, deleted: r.deleted, truncated: t.truncated };
}

/** Unchanged TOASTed values (undefined) taken from the lake's current row of the same key. */
async function fillUnchanged(tbl: LakeTable, keys: string[], branch: string, rows: ChangeRow[]): Promise<void> {
  const need = rows.filter((r) => r.values.includes(undefined));
  if (!need.length || tbl.currentSnapshotId() === null) return;
  const cols = [...new Set(need.flatMap((r) => r.names.filter((_, i) => r.values[i] === undefined)))];
  const want = new Map(need.map((r) => [JSON.stringify(keys.map((k) => valueOf(r, k))), r]));
  for await (const b of tbl.scan({ columns: [...keys, ...cols], partition: { [BRANCH_ID]: branch } })) {
    for (let i = 0; i < b.numRows; i++) {
      const k = JSON.stringify(keys.map((c) => textOf(b.getChild(c)?.get(i))));
      const r = want.get(k);
      if (!r) continue;
      for (const c of cols) {
        const at = r.names.indexOf(c);
        if (at >= 0 && r.values[at] === undefined) { const v = b.getChild(c)?.get(i); r.values[at] = v === null || v === undefined ? null : textOf(v); }
      }
    }
  }
}

function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  return String(v);
}
