import * as arrow from 'apache-arrow';
import { BRANCH_ID, DELETED_AT } from '../config/lake-columns';
import { arrowKind } from '../reconcile/arrow-canonical';
import { arrowSide } from '../reconcile/arrow-side';
import { compareAsFloat } from '../reconcile/canonical';
import { compareSides, type KeyValues } from '../reconcile/compare';
import { oraIdent, oracleKind } from '../reconcile/oracle-sql';
import { pgIdent, pgKind } from '../reconcile/pg-sql';
import { fromClause } from '../reconcile/from-clause';
import type { DqSide, SideRow } from '../reconcile/side';
import type { HashQuery, SqlColumn } from '../reconcile/sql-common';
import { textSide } from '../reconcile/text-side';
import type { Logger } from '../log';
import { deletedIntKeys, keyGrid, lakeIntKeys, type LakeKeys } from './detect-int-keys';
import { keyFileCache } from './key-file-cache';
import { intKeyFileCache } from './int-key-files';
import type { LakeTarget } from './lake-target';
import type { Unit } from './run-types';
import { lakeKeys as lakeKeysOf } from '../sources';
import { AppError } from '../errors';

export interface DetectedDeletes {
  /** Canonical key values (unique_key order) live in the lake's branch partition and gone from the source. */
  keys: KeyValues[];
  /** Keys compared on each side. */
  sourceKeys: number;
  lakeKeys: number;
  /** False when more deleted keys were found than one pass collects: the rest are deleted by the next run. */
  complete: boolean;
  /** The lake rows holding `keys` (data file, position) at a snapshot, when the comparison read them (the integer road). */
  at?: { snapshotId: string; rows: { path: string; pos: number }[] };
}

/** Rows a key-level pass holds per side (the bucket descent keeps it under this). */
const MAX_ROWS = 200_000;

/** A refusal no retry changes (isTransient says no to it). */
const fatal = (m: string) => new AppError('validation', m);

/**
 * tables.json `deletes: detect`: which keys of the unit's branch the lake
 * holds and the source no longer has. The reconciler's comparison with the
 * key columns only — bucket digests computed by the source database and by
 * the lake's key-column scan, then only the buckets that differ, row by row —
 * so its cost grows with the table's keys, not with its rows' width, and only
 * a few hundred digests cross the wire when nothing was deleted. The source is
 * compared in full (no INITIAL range or watermark window: a row that left the
 * range still exists); the lake side reads only live rows (with `soft_delete`,
 * rows not yet stamped in `_deleted_at`). A key live twice in the lake is not a
 * delete: the lake side gives each key once. A single integer key (the common
 * case) takes a cheaper road, with no text and no MD5 on either side: the
 * source's keys packed and compared here on PostgreSQL, key-range sums on
 * Oracle (detect-int-keys.ts), the lake's live keys
 * assembled from per-file key arrays and delete positions a worker keeps
 * (int-key-files.ts).
 */
export async function detectDeletes(a: { target: LakeTarget; schema: arrow.Schema; log: Logger; signal?: AbortSignal }, u: Unit): Promise<DetectedDeletes> {
  const def = u.def;
  const src = u.branch.source;
  if (!src.textQuery) throw fatal(`etl: ${def.lakeName}: deletes: detect needs a database branch (branch ${u.branch.key} cannot run the key comparison)`);
  // serial: the comparison runs beside the other units' extractions (a parallel aggregate's workers cost
  // 15–33 ms of server CPU a unit in bench/etl.ts's deletes rounds, where the unit's own scan costs ~35)
  const run = (sql: string, signal?: AbortSignal) => src.textQuery!(sql, signal, { serial: true });
  const dialect = src.dialect === 'oracle' ? 'oracle' as const : 'postgres' as const;
  const kindOf = dialect === 'postgres' ? pgKind : oracleKind;
  const upper = (s: string) => s.toUpperCase();
  const sql: SqlColumn[] = [];
  const lakeKeys: { name: string; asFloat: boolean }[] = [];
  // the lake spells each key by the table's naming (or keeps an older spelling: matched without regard to case)
  const lakeKeyNames = lakeKeysOf(def, a.schema.fields.map((x) => x.name));
  for (const [i, k] of def.uniqueKey.entries()) {
    const c = u.columns?.find((x) => upper(x.name) === upper(k));
    const f = a.schema.fields.find((x) => x.name === lakeKeyNames[i]);
    if (!c || !f) throw fatal(`etl: ${def.lakeName}: deletes: detect: unique key column ${k} is not ${c ? 'in the lake table' : `projected by branch ${u.branch.key}`}`);
    const asFloat = compareAsFloat(kindOf(c.sourceType), arrowKind(f.type));
    sql.push({ name: c.sourceName ?? c.name, sourceType: c.sourceType, asFloat });
    lakeKeys.push({ name: f.name, asFloat });
  }
  const soft = def.deletes.soft && a.schema.fields.some((f) => f.name === DELETED_AT);
  const partition = { [BRANCH_ID]: u.branch.key };
  if (sql.length === 1 && kindOf(sql[0].sourceType) === 'integer' && !sql[0].asFloat && a.schema.fields.find((x) => x.name === lakeKeys[0].name)!.type.typeId === arrow.Type.Int) {
    // the common case (one integer key): the keys themselves, no hashing (detect-int-keys.ts)
    // (keys beyond ±2^53 are not exact as numbers: those take the hashed road below)
    // the grid from the manifests (no file opened), so the source's aggregate runs while the lake's keys are read
    // without soft deletes, the key arrays and delete positions by file (int-key-files.ts: no filtered copies,
    // no delete file read twice in a process); the scan when that road cannot answer (or soft deletes: `_deleted_at` decides)
    const scanned = () => lakeIntKeys(a.target.scan(def.lakeName, [lakeKeys[0].name, ...(soft ? [DELETED_AT] : [])], partition, { fileCache: keyFileCache }), lakeKeys[0].name, soft ? liveRows : null);
    const held = !soft && a.target.liveIntKeys
      ? a.target.liveIntKeys(def.lakeName, lakeKeys[0].name, partition, intKeyFileCache).then((k): LakeKeys | Promise<LakeKeys | null> => k ?? scanned())
      : scanned();
    held.catch(() => {}); // awaited below (deletedIntKeys); a failure of the range read first must not leave it unhandled
    const range = await a.target.intKeyRange?.(def.lakeName, lakeKeys[0].name, partition) ?? null;
    const grid = range ? keyGrid(Number(range.min), Number(range.max), range.rows) : null;
    const q = (dialect === 'postgres' ? pgIdent : oraIdent)(sql[0].name);
    const bytes = src.bytesQuery ? (s: string) => src.bytesQuery!(s, a.signal, { serial: true }) : undefined;
    const r = await deletedIntKeys({ dialect, from: fromClause(def), key: `t.${q}`, run: (s) => run(s, a.signal), runBytes: bytes }, held, grid);
    if (r) {
      a.log.debug('deletes: integer keys compared', { lakeKeys: r.lakeKeys, sourceKeys: r.sourceKeys, deleted: r.keys.length, ...(r.windows ? { windows: r.windows } : { differingRanges: r.differing, probed: r.probed }), gridFromManifests: !!grid, ...r.timing });
      // where the deleted keys' rows are (the per-file arrays are at hand): the merge then reads no file for them
      const live = await held;
      const at = live && 'rowsOf' in live && live.rowsOf && live.snapshotId ? { snapshotId: live.snapshotId, rows: live.rowsOf(r.keys) } : undefined;
      return { keys: r.keys.map((k) => [String(k)]), sourceKeys: r.sourceKeys, lakeKeys: r.lakeKeys, complete: true, ...(at ? { at } : {}) };
    }
  }
  const keyHash = sql.length === 1 && kindOf(sql[0].sourceType) === 'integer' && arrowKind(a.schema.fields.find((x) => x.name === lakeKeys[0].name)!.type) === 'integer' ? 'int32' as const : 'md5' as const;
  const q: HashQuery = { rel: { from: fromClause(def), where: '' }, keys: sql, columns: sql, keyHash, digest: 'sum' };
  const source = textSide(dialect, (s) => run(s, a.signal), q);
  const lake = onePerKey(arrowSide({
    scan: heldScan((columns) => a.target.scan(def.lakeName, columns, partition, { fileCache: keyFileCache })),
    keys: lakeKeys, columns: lakeKeys, keyHash, digest: 'sum', signal: a.signal,
    ...(soft ? { windowColumns: [DELETED_AT], window: liveRows } : {}),
  }));
  const diff = await compareSides(source, lake, {
    columnNames: lakeKeys.map((k) => k.name), keyNames: lakeKeys.map((k) => k.name), maxKeys: MAX_ROWS, examples: 0, signal: a.signal,
    // deletes are few and scattered: fine buckets from the start (65,536 digests, a few keys each) so the
    // row pass reads only the keys near a delete, descending further while a pass still holds too many
    topBits: 16, stepBits: 4, maxRowsInMemory: 20_000,
  });
  return { keys: diff.keys.onlyInLake, sourceKeys: diff.sourceRows, lakeKeys: diff.lakeRows, complete: diff.keys.complete };
}

/** Key columns of a partition held for the comparison's later passes, up to this many bytes. */
const HELD_BYTES = 64 * 1024 * 1024;

/**
 * The lake scan, read once: every pass of the comparison (digests, then the
 * rows of the buckets that differ) reads the same key columns, so the first
 * pass keeps them (up to HELD_BYTES; a larger partition is read again per pass).
 */
function heldScan(scan: (columns: string[]) => AsyncIterable<arrow.RecordBatch>): (columns: string[]) => AsyncIterable<arrow.RecordBatch> {
  let held: { key: string; batches: arrow.RecordBatch[] } | null = null;
  return async function* (columns) {
    const key = columns.join('\u0000');
    if (held?.key === key) { yield* held.batches; return; }
    let keep: arrow.RecordBatch[] | null = [];
    let bytes = 0;
    for await (const b of scan(columns)) {
      if (keep) {
        bytes += b.data.children.reduce((n, d) => n + (d.values?.byteLength ?? 0) + (d.valueOffsets?.byteLength ?? 0), 0);
        if (bytes > HELD_BYTES) keep = null; else keep.push(b);
      }
      yield b;
    }
    if (keep) held = { key, batches: keep };
  };
}

/** Rows whose `_deleted_at` is null (not soft-deleted yet). */
function liveRows(batch: arrow.RecordBatch): (i: number) => boolean {
  const j = batch.schema.fields.findIndex((f) => f.name === DELETED_AT);
  const d = batch.data.children[j];
  if (!d.nullCount) return () => false;
  if (d.nullCount === d.length) return () => true;
  const bm = d.nullBitmap!;
  return (i) => { const k = d.offset + i; return (bm[k >> 3] & (1 << (k & 7))) === 0; };
}

/** The lake side with each key given once per bucket pass (a duplicated live key is the load's business, not a delete). */
function onePerKey(side: DqSide): DqSide {
  const dedupe = (rows: SideRow[]) => {
    const seen = new Set<string>();
    return rows.filter((r) => { const k = JSON.stringify(r.key); if (seen.has(k)) return false; seen.add(k); return true; });
  };
  return { ...side, rows: async (w) => dedupe(await side.rows(w)), rowsForKeys: async (k) => dedupe(await side.rowsForKeys(k)) };
}
