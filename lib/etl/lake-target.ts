import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as arrow from 'apache-arrow';
import { fromArrowType, toArrowType } from '../sources';
import { FIELD_ID, readParquetBatches, type DataFileInfo, type Lake, type LakeTable, type LateDeleteKeys, type ScanFileCache } from '../lake';
import { BRANCH_ID, DELETED_AT, INJECTED, INSERT_AT, RECORDED_UPDATED_AT } from '../config/lake-columns';
import { isRemoteStaged, stagedBatches, type StagedFile } from './staging';
import { liveIntKeys, type IntKeyFileCache, type LiveIntKeys } from './int-key-files';
import type { UnionColumn } from '../sources';
import { AppError } from '../errors';

export interface WriteOutcome {
  snapshotId: string | null; disposition: 'replace' | 'merge' | 'append'; inserted?: number; updated?: number;
  /** Rows a merge deleted (or soft-deleted) through `deletes`, by branch. */
  deletedByBranch?: Record<string, number>;
}

/** Source deletes a merge applies in its commit (tables.json `deletes: detect`). */
export interface MergeDeletes {
  /** Key tuples in unique_key order followed by the branch (the merge key + BRANCH_ID). */
  keys: unknown[][];
  /** Instead of `keys`, while the comparisons still run: the merge writes its upserts first and takes these at its commit (MergeOptions.lateDeleteKeys). */
  late?: Promise<LateDeleteKeys>;
  /** Stamp `_deleted_at` with this time (wall-clock micros) instead of removing the rows. (Default: remove) */
  softAt?: bigint;
}

/**
 * The write step behind a small interface: the run loop only sees this.
 * `lakeTarget()` implements it over lib/lake.
 */
export interface LakeTarget {
  /** Current data columns (without the injected ones), or null when the table does not exist. */
  columns(table: string): Promise<UnionColumn[] | null>;
  /**
   * Create or evolve the table to hold `columns` (and `_deleted_at` with `softDelete`); returns the lake's Arrow schema (with field ids) to stage in.
   * A new table's `keys` (tables.json `unique_key`) and BRANCH_ID are required and its identifier fields.
   */
  prepare(table: string, columns: UnionColumn[], opts?: { keys?: string[]; softDelete?: boolean }): Promise<arrow.Schema>;
  /**
   * Replace the whole table by the staged files, or with `branches` only those branches'
   * partitions (the other branches' rows stay), in one commit.
   */
  replace(table: string, files: StagedFile[], branches?: string[]): Promise<WriteOutcome>;
  /**
   * Merge upsert the staged files on `keys` (+ BRANCH_ID), carrying `insert_at` forward; `deletes` go into the same commit (the last one, when the files are merged in groups).
   * `keyCache`: the key arrays `deletes: detect` holds for a single integer key — a data file found there is matched without being opened.
   */
  merge(table: string, files: StagedFile[], keys: string[], opts: { groupMaxBytes: number; deletes?: MergeDeletes; keyCache?: IntKeyFileCache }): Promise<WriteOutcome>;
  /** The table's rows at its current snapshot, these columns only, in one partition (no rows when the table has no snapshot). */
  scan(table: string, columns: string[], partition: Record<string, unknown>, opts?: { fileCache?: ScanFileCache }): AsyncIterable<arrow.RecordBatch>;
  /**
   * The live rows (data files' records less position deletes, an estimate) and the bounds of an
   * integer column in one partition, from the manifests alone (no data file is opened); null when
   * the table has no snapshot or a file records no bounds for the column. (Optional: a target without it plans from the scan.)
   */
  intKeyRange?(table: string, column: string, partition: Record<string, unknown>): Promise<{ rows: number; min: bigint; max: bigint } | null>;
  /**
   * The live values of an integer column in one partition at the current snapshot, as numbers (nulls
   * skipped), each file's column and each delete file's positions taken from `cache` when there
   * (int-key-files.ts); null when that road cannot answer exactly (the caller scans). (Optional: a target without it is scanned.)
   */
  liveIntKeys?(table: string, column: string, partition: Record<string, unknown>, cache: IntKeyFileCache): Promise<LiveIntKeys | null>;
  /** Snapshot retention after a load. */
  expire(table: string, opts: { maxAgeDays: number; minToKeep: number }): Promise<void>;
  /**
   * Fold position deletes back into data files in the partitions where they
   * pile up: deleted rows ≥ `deletedRatio` of the partition's rows, or more
   * than `maxDeleteFiles` delete files. Returns the partitions compacted.
   */
  compact(table: string, opts: { deletedRatio: number; maxDeleteFiles: number }): Promise<string[]>;
  /**
   * Drop the table when it holds no snapshot: a table this run created whose first write
   * failed (or never came) must not be left behind empty. Returns whether it dropped it.
   */
  dropIfEmpty(table: string): Promise<boolean>;
}

/**
 * The lake schema for a table: data columns, then BRANCH_ID, insert_at, Recorded_updated_at (and `_deleted_at` with `softDelete`).
 * The key columns and BRANCH_ID are required (non-nullable) when `keys` are given: a row
 * is unique by branch + key, so together they are the table's identifier fields.
 */
export function lakeArrowSchema(columns: UnionColumn[], o: { keys?: string[]; softDelete?: boolean } = {}): arrow.Schema {
  const required = new Set(identifierColumns(columns, o.keys ?? []));
  const fields = columns.filter((c) => !INJECTED.includes(c.name)).map((c) => new arrow.Field(c.name, toArrowType(c.type), !required.has(c.name)));
  fields.push(new arrow.Field(BRANCH_ID, new arrow.Utf8(), !required.has(BRANCH_ID)));
  fields.push(new arrow.Field(INSERT_AT, toArrowType({ kind: 'timestamp' }), true));
  fields.push(new arrow.Field(RECORDED_UPDATED_AT, toArrowType({ kind: 'timestamp' }), true));
  if (o.softDelete) fields.push(new arrow.Field(DELETED_AT, toArrowType({ kind: 'timestamp' }), true));
  return new arrow.Schema(fields);
}

/**
 * The identifier columns of a new lake table: BRANCH_ID then the `unique_key` columns, when every
 * key is a primitive data column (a key the source lacks is reported by the merge; none then).
 */
export function identifierColumns(columns: UnionColumn[], keys: string[]): string[] {
  if (!keys.length) return [];
  const ok = keys.every((k) => columns.some((c) => c.name === k && c.type.kind !== 'list'));
  return ok ? [BRANCH_ID, ...keys] : [];
}

/**
 * Move (or, keeping staging, copy) staged files into the table's data folder:
 * adopted files must live as long as the snapshots that reference them.
 */
async function adopt(location: string, files: StagedFile[], keep: boolean, storage: Lake['storage']): Promise<string[]> {
  if (/^s3a?:\/\//.test(location)) {
    // an object-store table: upload each staged file (multipart when large) under the table's data folder;
    // a fanned-out unit's files are there already (uploaded by the unit's worker, unit-upload.ts)
    const out: string[] = [];
    for (const f of files) {
      if (isRemoteStaged(f)) {
        if (!f.path.startsWith(`${location}/data/`)) throw new Error(`etl: staged file ${f.path} is not under the table's data folder ${location}/data`);
        out.push(f.path);
        continue;
      }
      const dest = `${location}/data/etl-${crypto.randomUUID()}.parquet`;
      await storage.write(dest, new Uint8Array(await fs.readFile(f.path)));
      if (!keep) await fs.rm(f.path, { force: true });
      out.push(dest);
    }
    return out;
  }
  if (!location.startsWith('file:') && !location.startsWith('/')) throw new AppError('fatal', `etl: cannot adopt staged files into ${location}`);
  const dir = path.join(location.startsWith('file:') ? fileURLToPath(location) : location, 'data');
  await fs.mkdir(dir, { recursive: true });
  const out: string[] = [];
  for (const f of files) {
    const dest = path.join(dir, `etl-${crypto.randomUUID()}.parquet`);
    if (keep) await fs.copyFile(f.path, dest);
    else {
      try { await fs.rename(f.path, dest); } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        await fs.copyFile(f.path, dest);
      }
    }
    out.push(dest);
  }
  return out;
}

type MergeOptions = Parameters<LakeTarget['merge']>[3];

/**
 * Merge staged files into `tbl` in groups of at most `o.groupMaxBytes` of
 * staged Parquet (×3–6 once decoded), the deletes with the last group.
 */
async function mergeInGroups(tbl: LakeTable, files: StagedFile[], keys: string[], o: MergeOptions, batchesOf: (files: StagedFile[]) => AsyncGenerator<arrow.RecordBatch>) {
  let snapshotId: string | null = null;
  let inserted = 0; let updated = 0;
  const deletedByBranch: Record<string, number> = {};
  let group: StagedFile[] = [];
  let bytes = 0;
  const flush = async (last = false) => {
    const del = last && o.deletes && (o.deletes.late || o.deletes.keys.length) ? o.deletes : null;
    if (!group.length && !del) return;
    const r = await tbl.merge(batchesOf(group), {
      // each unit checked its keys (key-check.ts): a repeat here is a bug, never a silent collapse
      keys: [...keys, BRANCH_ID], carryForward: [INSERT_AT], duplicateKeys: 'error',
      // the partition's key column as the last key comparison read it: the merge then opens only newer files
      ...(o.keyCache && keys.length === 1 ? { knownKeys: (p: string) => o.keyCache!.keysOf(keys[0], p) } : {}),
      ...(del ? { ...(del.late ? { lateDeleteKeys: del.late } : { deleteKeys: del.keys }), softDelete: del.softAt !== undefined ? { column: DELETED_AT, value: del.softAt } : undefined } : {}),
    });
    if (r.snapshotId !== null) snapshotId = String(r.snapshotId);
    inserted += r.inserted; updated += r.updated;
    for (const p of r.deletedByPartition ?? []) {
      const b = String(p.partition[BRANCH_ID]);
      deletedByBranch[b] = (deletedByBranch[b] ?? 0) + p.rows;
    }
    group = []; bytes = 0;
  };
  for (const f of files) {
    if (group.length && bytes + f.bytes > o.groupMaxBytes) await flush();
    group.push(f); bytes += f.bytes;
  }
  await flush(true);
  if (snapshotId === null && tbl.currentSnapshotId() !== null) snapshotId = String(tbl.currentSnapshotId());
  return { snapshotId, disposition: 'merge' as const, inserted, updated, deletedByBranch };
}

/** The live files of a table's snapshot, read from its manifests once for intKeyRange and liveIntKeys (the last snapshot per table). */
function snapshotFiles(): (t: string, tbl: LakeTable, snap: bigint) => Promise<DataFileInfo[]> {
  const memo = new Map<string, { snap: bigint; files: Promise<DataFileInfo[]> }>();
  return (t, tbl, snap) => {
    const m = memo.get(t);
    if (m?.snap === snap) return m.files;
    const files = tbl.files(snap);
    files.catch(() => memo.delete(t));
    memo.set(t, { snap, files });
    return files;
  };
}

/**
 * A merge by `keys` into a table whose identifier fields (BRANCH_ID and the `unique_key` it was
 * created with) are others: refused before anything is written. Merged by fewer columns, rows
 * the table keeps apart would fold into one (found by an independent smoke test: a composite key
 * narrowed in tables.json lost a row with the run reporting SUCCESS); by more, every row would be
 * added beside its old version. A table created without identifier fields is not checked.
 */
function sameKeyAsTable(tbl: LakeTable, keys: string[]): void {
  const meta = tbl.metadata();
  const schema = meta.schemas.find((x) => x['schema-id'] === meta['current-schema-id']);
  const ids = schema?.['identifier-field-ids'];
  if (!schema || !ids?.length) return;
  const names = ids.map((id) => schema.fields.find((f) => f.id === id)?.name ?? String(id)).filter((n) => n !== BRANCH_ID);
  const norm = (xs: string[]) => [...new Set(xs.map((x) => x.toLowerCase()))].sort().join(',');
  if (norm(names) === norm(keys)) return;
  throw new AppError('validation', `etl: ${tbl.ident}: unique_key (${keys.join(', ')}) is not the lake table's key (${names.join(', ')}): a merge by another key would ${keys.length < names.length ? 'fold rows the table keeps apart into one' : 'add rows beside the ones they replace'}. `
    + `Give the entry the table's key, or drop the table (tributary lake drop ${tbl.ident}) and load it again (--mode INITIAL): a table's key is set when it is created.`, { field: 'unique_key' });
}

/** LakeTarget.intKeyRange from a snapshot's files (their manifest entries: no data file opened). */
function keyRangeOf(files: DataFileInfo[], column: string, partition: Record<string, unknown>): { rows: number; min: bigint; max: bigint } | null {
  const want = Object.entries(partition);
  let rows = 0, min: bigint | null = null, max: bigint | null = null;
  for (const f of files) {
    if (!want.every(([k, v]) => String(f.partition[k]) === String(v))) continue;
    if (f.content === 'position-deletes') { rows -= f.recordCount; continue; }
    if (f.content !== 'data') continue;
    const b = f.intBounds?.[column];
    if (!b) return null;
    rows += f.recordCount;
    if (min === null || b.lower < min) min = b.lower;
    if (max === null || b.upper > max) max = b.upper;
  }
  return min === null || max === null ? null : { rows: Math.max(0, rows), min, max };
}

/** LakeTarget.liveIntKeys over one partition's files: the key column read by its field id, delete files whole. */
async function liveIntKeysOf(lake: Lake, tbl: LakeTable, files: DataFileInfo[], column: string, cache: IntKeyFileCache): Promise<LiveIntKeys | null> {
  const id = tbl.arrowSchema().fields.find((f) => f.name === column)?.metadata.get(FIELD_ID);
  if (id === undefined) return null;
  // a catalog table records its files' full URIs (only a folder opened without a catalog is relocated)
  const blob = (p: string) => lake.storage.blob(p);
  return liveIntKeys({
    files,
    async *readKeys(p) {
      for await (const b of readParquetBatches(await blob(p), p, { fieldIds: new Set([Number(id)]) })) {
        // the column by its field id (a file written before a rename keeps its old name)
        const j = b.schema.fields.findIndex((f) => f.metadata.get(FIELD_ID) === id);
        if (j < 0) return;
        yield b.data.children[j];
      }
    },
    async *readPositions(p) { yield* readParquetBatches(await blob(p), p); },
  }, column, cache);
}

export function lakeTarget(lake: Lake, opts: { namespace: string; keepStaging?: boolean; codec?: string }): LakeTarget {
  // new tables are written in the staged files' codec (what a full replace adopts), lz4 aside: the lake writes no lz4
  const codec = !opts.codec || opts.codec === 'lz4' ? 'snappy' : opts.codec;
  const ident = (t: string) => `${opts.namespace}.${t}`;
  const cache = new Map<string, LakeTable>();
  const load = async (t: string) => {
    const tbl = cache.get(t) ?? await lake.loadTable(ident(t));
    cache.set(t, tbl);
    await tbl.refresh();
    return tbl;
  };
  const filesAt = snapshotFiles();
  async function* batchesOf(files: StagedFile[]): AsyncGenerator<arrow.RecordBatch> {
    for (const f of files) yield* await stagedBatches(f, (uri) => lake.storage.read(uri));
  }
  return {
    async columns(t) {
      if (!(await lake.tableExists(ident(t)))) return null;
      const tbl = await load(t);
      return tbl.arrowSchema().fields.filter((f) => !INJECTED.includes(f.name)).map((f) => ({ name: f.name, type: fromArrowType(f.type) }));
    },
    async prepare(t, columns, po) {
      const keys = po?.keys ?? [];
      const schema = lakeArrowSchema(columns, { keys, softDelete: !!po?.softDelete });
      if (!(await lake.tableExists(ident(t)))) {
        // silent: another run or worker may create the namespace at the same moment; a real failure
        // (no catalog, no permission) makes createTable below fail with its own error
        if (!(await lake.listNamespaces()).includes(opts.namespace)) await lake.createNamespace(opts.namespace).catch(() => {});
        try {
          // merges then write what INITIAL adopted (by default snappy: it encodes ~30% faster than the lake's zstd)
          const tbl = await lake.createTable(ident(t), { schema, partitionBy: [BRANCH_ID], identifierColumns: identifierColumns(columns, keys), properties: { 'write.parquet.compression-codec': codec } });
          cache.set(t, tbl);
          return tbl.arrowSchema();
        } catch (e) {
          // another worker created it first: fall through to evolve
          if (!(await lake.tableExists(ident(t)))) throw e;
        }
      }
      const tbl = await load(t);
      const cur = tbl.arrowSchema();
      const same = cur.fields.length === schema.fields.length && schema.fields.every((f, i) => cur.fields[i]?.name === f.name && String(cur.fields[i].type) === String(f.type));
      const covered = schema.fields.every((f) => cur.fields.some((c) => c.name === f.name && String(c.type) === String(f.type)));
      if (!same && !covered) await tbl.evolveSchema(schema);
      return tbl.arrowSchema();
    },
    async replace(t, files, branches) {
      const tbl = await load(t);
      if (files.some((f) => f.batches)) throw new Error('etl: a full replace adopts staged files; rows held in memory can only be merged');
      const empty = tbl.currentSnapshotId() === null || (await tbl.files()).every((f) => f.recordCount === 0);
      const live = files.filter((f) => f.rows > 0);
      // the staged files become the table's data files: never encoded twice
      const adopted = await adopt(tbl.location, live, !!opts.keepStaging, lake.storage);
      const only = branches ? { partitions: branches.map((b) => ({ [BRANCH_ID]: b })) } : undefined;
      const r = empty ? (adopted.length ? await tbl.appendDataFiles(adopted) : { snapshotId: tbl.currentSnapshotId() }) : await tbl.replaceDataFiles(adopted, only);
      return { snapshotId: r.snapshotId === null ? null : String(r.snapshotId), disposition: 'replace' };
    },
    async merge(t, files, keys, o) {
      const tbl = await load(t);
      sameKeyAsTable(tbl, keys);
      const r = await mergeInGroups(tbl, files, keys, o, batchesOf);
      // a merge re-encodes what it loads: uploaded unit files are referenced by no snapshot now
      if (!opts.keepStaging) for (const f of files) if (isRemoteStaged(f)) await lake.storage.delete(f.path);
      return r;
    },
    async *scan(t, columns, partition, so) {
      const tbl = await load(t);
      const snap = tbl.currentSnapshotId();
      if (snap === null) return;
      yield* tbl.scan({ columns, partition, snapshotId: snap, ...(so?.fileCache ? { fileCache: so.fileCache } : {}) });
    },
    async intKeyRange(t, column, partition) {
      const tbl = await load(t);
      const snap = tbl.currentSnapshotId();
      return snap === null ? null : keyRangeOf(await filesAt(t, tbl, snap), column, partition);
    },
    async liveIntKeys(t, column, partition, cache) {
      const tbl = await load(t);
      const snap = tbl.currentSnapshotId();
      if (snap === null) return { keys: new Float64Array(0) };
      const want = Object.entries(partition);
      const files = (await filesAt(t, tbl, snap)).filter((f) => want.every(([k, v]) => String(f.partition[k]) === String(v)));
      const live = await liveIntKeysOf(lake, tbl, files, column, cache);
      return live && { ...live, snapshotId: String(snap) };
    },
    async dropIfEmpty(t) {
      if (!(await lake.tableExists(ident(t)))) return false;
      const tbl = await load(t);
      if (tbl.currentSnapshotId() !== null) return false;
      await lake.dropTable(ident(t), { purge: true });
      cache.delete(t);
      return true;
    },
    async expire(t, o) {
      const tbl = await load(t);
      await tbl.expireSnapshots({ maxSnapshotAgeMs: o.maxAgeDays * 86_400_000, minSnapshotsToKeep: o.minToKeep });
    },
    async compact(t, o) {
      // Each merge adds a delete file per touched partition, and every later merge and read of the
      // partition pays for all of them: rewriting the partition once they weigh enough keeps an
      // INCREMENTAL's cost tied to what changed (amortised), as Iceberg's rewrite_data_files does.
      const tbl = await load(t);
      const parts = new Map<string, { partition: Record<string, unknown>; rows: number; deleted: number; deleteFiles: number }>();
      for (const f of await tbl.files()) {
        const k = JSON.stringify(f.partition);
        let p = parts.get(k);
        if (!p) parts.set(k, (p = { partition: f.partition, rows: 0, deleted: 0, deleteFiles: 0 }));
        if (f.content === 'data') p.rows += f.recordCount;
        else { p.deleted += f.recordCount; p.deleteFiles++; }
      }
      const done: string[] = [];
      for (const [k, p] of parts) {
        if (!p.deleteFiles || (p.deleted < o.deletedRatio * p.rows && p.deleteFiles <= o.maxDeleteFiles)) continue;
        await tbl.compact({ partition: p.partition });
        done.push(k);
      }
      return done;
    },
  };
}
