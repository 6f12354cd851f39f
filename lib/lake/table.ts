/**
 * One Iceberg table: every operation builds new files, then commits through
 * the compare-and-swap in `commit.ts`.
 */
import crypto from 'node:crypto';
import * as arrow from 'apache-arrow';
import type pg from 'pg';
import type { Logger } from '../log';
import { concatBatches, conformBatch, makeBatch, takeBatch, takeData } from './arrow-util';
import { columnStats, compare, emptyStats, fromComparable, mergeStats } from './bounds';
import { swapMetadataLocation } from './catalog';
import {
  applySchema, buildSnapshot, checkRebase, CommitConflict, metadataVersion, newSnapshotId, serialiseMetadata, withMetadataLog, type Change,
} from './commit';
import { partitionFieldType, partitionKey, partitionValueFromAvro, partitionValueToAvro, type DataFileRec, type ManifestEntry } from './manifest';
import { codecOf, footerStats, readParquetBatches, statsOf } from './parquet';
import {
  applyDeletes, currentSchema, deleteIndex, fileMayMatch, loadManifest, loadManifestList, planFiles, readDataFile, rowFilter, rowKey,
  snapshotById, specById, type PlannedFile, type TableView,
} from './scan';
import { arrowSchemaOf, FIELD_ID, icebergTypeOf, isLegalPromotion, nameMapping, widenType } from './schema';
import { keyProbe, type KeyProbe } from './key-probe';
import { splitByPartition } from './split';
import type { Storage } from './storage';
import type {
  Batches, ColumnRange, CommitResult, DataFileInfo, DeleteOptions, IcebergSchema, MergeOptions, MergeResult, ScanOptions, Snapshot, TableMetadata,
} from './types';
import { dataFileRecord, DataFileWriter, writePositionDeletes } from './writer';
import type { LakeTable } from './index';

export interface LakeCtx {
  pool: pg.Pool;
  catalogName: string;
  storage: Storage;
  logger: Logger;
  cache: Map<string, ManifestEntry[]>;
}

const MAX_ATTEMPTS = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function readMetadata(storage: Storage, loc: string, ident: string): Promise<TableMetadata> {
  let bytes: Uint8Array;
  try { bytes = await storage.read(loc); } catch (e) {
    throw new Error(`lake: table ${ident}: missing metadata file ${loc}`, { cause: e });
  }
  let meta: TableMetadata;
  try { meta = JSON.parse(new TextDecoder().decode(bytes)); } catch (e) {
    throw new Error(`lake: table ${ident}: corrupt metadata file ${loc}: ${(e as Error).message}`, { cause: e });
  }
  if (!meta || typeof meta !== 'object' || !Array.isArray(meta.schemas) || !meta.location) throw new Error(`lake: table ${ident}: corrupt metadata file ${loc}: not Iceberg table metadata`);
  if (meta['format-version'] !== 2) throw new Error(`lake: table ${ident}: metadata file ${loc} has format-version ${meta['format-version']}; only v2 is written`);
  meta.snapshots ??= []; meta['snapshot-log'] ??= []; meta['metadata-log'] ??= []; meta.refs ??= {};
  return meta;
}

async function* iterate(b: Batches): AsyncGenerator<arrow.RecordBatch> {
  for await (const x of b as AsyncIterable<arrow.RecordBatch>) yield x;
}

async function collect(batches: Batches, schema: arrow.Schema, ident: string): Promise<arrow.RecordBatch[]> {
  const out: arrow.RecordBatch[] = [];
  for await (const b of iterate(batches)) if (b.numRows) out.push(conformBatch(b, schema, ident));
  return out;
}

function noop(loc: string): CommitResult {
  return { snapshotId: null, sequenceNumber: 0, metadataLocation: loc, addedDataFiles: 0, addedDeleteFiles: 0, removedFiles: 0, addedRecords: 0, attempts: 0 };
}

export class LakeTableImpl implements LakeTable {
  readonly ident: string;
  constructor(
    private readonly ctx: LakeCtx, readonly namespace: string, readonly name: string, private meta: TableMetadata, private metaLoc: string,
    /** Maps paths recorded in metadata to readable URIs (tables written elsewhere, opened from a folder). */
    private readonly resolve: (p: string) => string = (p) => p,
  ) {
    this.ident = `${namespace}.${name}`;
  }

  get location(): string { return this.meta.location; }
  metadata(): TableMetadata { return this.meta; }
  metadataLocation(): string { return this.metaLoc; }
  schema(): IcebergSchema { return currentSchema(this.meta); }
  arrowSchema(): arrow.Schema { return arrowSchemaOf(this.schema()); }
  currentSnapshotId(): bigint | null {
    const id = this.meta['current-snapshot-id'];
    return id === null || id === undefined || Number(id) === -1 ? null : BigInt(id);
  }
  snapshots(): Snapshot[] { return this.meta.snapshots; }

  private view(meta = this.meta): TableView {
    return { ident: this.ident, storage: this.ctx.storage, metadata: meta, resolve: this.resolve, cache: this.ctx.cache };
  }

  private async currentLocation(): Promise<string | null> {
    const r = await this.ctx.pool.query<{ m: string }>(
      `select metadata_location as m from iceberg_tables where catalog_name = $1 and table_namespace = $2 and table_name = $3`,
      [this.ctx.catalogName, this.namespace, this.name]);
    return r.rows[0]?.m ?? null;
  }

  async refresh(): Promise<void> {
    const r = await this.ctx.pool.query<{ m: string }>(
      `select metadata_location as m from iceberg_tables where catalog_name = $1 and table_namespace = $2 and table_name = $3`,
      [this.ctx.catalogName, this.namespace, this.name]);
    if (!r.rows[0]) throw new Error(`lake: table ${this.ident} no longer exists`);
    if (r.rows[0].m === this.metaLoc) return;
    this.meta = await readMetadata(this.ctx.storage, r.rows[0].m, this.ident);
    this.metaLoc = r.rows[0].m;
  }

  private prop(k: string, d: number): number {
    const v = this.meta.properties[k];
    return v === undefined ? d : Number(v);
  }

  private writer(schema = this.schema()): DataFileWriter {
    return new DataFileWriter({
      storage: this.ctx.storage, location: this.location, schema, arrowSchema: arrowSchemaOf(schema),
      spec: specById(this.meta, this.meta['default-spec-id']),
      targetFileSize: this.prop('write.target-file-size-bytes', 128 * 1024 * 1024),
      codec: codecOf(this.meta.properties['write.parquet.compression-codec']),
    });
  }

  /** The commit loop: build on the current base, create `v<N>` exclusively, swap, retry on a lost race. */
  private async commitLoop(
    build: (base: TableMetadata, attempt: number) => Promise<{ meta: TableMetadata; written: string[] }>,
    rebase: (original: TableMetadata) => Promise<void>,
  ): Promise<{ attempts: number }> {
    const original = this.meta;
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) await rebase(original);
      const base = this.meta, baseLoc = this.metaLoc;
      const { meta, written } = await build(base, attempt);
      const full = withMetadataLog(meta, { file: baseLoc, ts: base['last-updated-ms'] });
      const bytes = serialiseMetadata(full);
      let loc: string | null = null; let v = metadataVersion(baseLoc) + 1; let moved = false;
      for (let k = 0; k < 64 && !loc && !moved; k++, v++) {
        const cand = `${this.location}/metadata/v${v}.metadata.json`;
        if (await this.ctx.storage.writeExclusive(cand, bytes)) { loc = cand; break; }
        // v<N> is taken: a concurrent writer is committing (we will lose the swap, so rebase now),
        // or a crashed writer left it behind (the catalog has not moved: take the next number).
        moved = (await this.currentLocation()) !== baseLoc;
      }
      const ok = !!loc && await swapMetadataLocation(this.ctx.pool, this.ctx.catalogName, this.namespace, this.name, baseLoc, loc);
      if (ok) {
        this.meta = full; this.metaLoc = loc!;
        await this.writeVersionHint(v);
        return { attempts: attempt };
      }
      if (!loc && !moved) throw new Error(`lake: table ${this.ident}: could not create a new metadata file after v${v}`);
      await Promise.all([...(loc ? [loc] : []), ...written].map((p) => this.ctx.storage.delete(p)));
      if (attempt >= MAX_ATTEMPTS) throw new CommitConflict(`lake: table ${this.ident}: gave up after ${attempt} concurrent commit attempts`);
      this.ctx.logger.debug('lake commit lost a race; retrying', { table: this.ident, attempt });
      await sleep(20 + Math.random() * 50 * attempt);
      await this.refresh();
    }
  }

  private async writeVersionHint(v: number): Promise<void> {
    const hint = `${this.location}/metadata/version-hint.text`;
    try {
      const cur = Number(new TextDecoder().decode(await this.ctx.storage.read(hint)).trim());
      if (Number.isFinite(cur) && cur >= v) return;
    } catch { /* first commit */ }
    await this.ctx.storage.write(hint, new TextEncoder().encode(String(v)));
  }

  /** Commit a snapshot-producing change (retrying on top of concurrent commits when it allows). */
  private async commitChange(change: Change): Promise<CommitResult> {
    const snapshotId = newSnapshotId();
    const { attempts } = await this.commitLoop(
      (base, attempt) => buildSnapshot(this.view(base), base, change, snapshotId, attempt),
      (original) => checkRebase(this.view(), original, change),
    );
    const s = snapshotById(this.meta, snapshotId)!;
    return {
      snapshotId, sequenceNumber: s['sequence-number'], metadataLocation: this.metaLoc,
      addedDataFiles: change.added.filter((d) => d.content === 0).length,
      addedDeleteFiles: change.added.filter((d) => d.content !== 0).length,
      removedFiles: change.removed.length,
      addedRecords: Number(change.added.filter((d) => d.content === 0).reduce((a, d) => a + d.record_count, 0n)),
      attempts,
    };
  }

  /** Run `body`; on failure delete the files it wrote so nothing half-done stays behind. */
  private async guarded<T>(files: () => string[], body: () => Promise<T>): Promise<T> {
    try { return await body(); } catch (e) {
      await Promise.all(files().map((p) => this.ctx.storage.delete(p).catch(() => {})));
      throw e;
    }
  }

  async append(batches: Batches): Promise<CommitResult> {
    const w = this.writer();
    const target = this.arrowSchema();
    return this.guarded(() => w.written.map((f) => f.file_path), async () => {
      for await (const b of iterate(batches)) await w.write(conformBatch(b, target, this.ident));
      const files = await w.close();
      if (!files.length) return noop(this.metaLoc);
      return this.commitChange({ operation: 'append', added: files, removed: [], touched: null });
    });
  }

  async appendDataFiles(paths: string[]): Promise<CommitResult> {
    const recs = await this.adoptRecords(paths);
    if (!recs.length) return noop(this.metaLoc);
    return this.commitChange({ operation: 'append', added: recs, removed: [], touched: null });
  }

  /**
   * Data-file records for Parquet files adopted as they are. Statistics and the
   * partition come from the footer's row-group statistics wherever those are
   * exact; only the columns the footer cannot describe losslessly (decimals,
   * floats, truncated bounds) are decoded. A file whose schema is not exactly
   * the table's is decoded in full and conformed (the general path).
   */
  private async adoptRecords(paths: string[]): Promise<DataFileRec[]> {
    const schema = this.schema();
    const spec = specById(this.meta, this.meta['default-spec-id']);
    const target = arrowSchemaOf(schema);
    const types = new Map(schema.fields.map((f) => [f.id, f.type]));
    const recs: DataFileRec[] = [];
    for (const p of paths) {
      const uri = /^[a-z][a-z0-9+.-]*:\/\//.test(p) ? p : `file://${p}`;
      // lazily read: the footer, and only the columns whose statistics it cannot give
      const blob = await this.ctx.storage.blob(uri);
      const fast = await this.footerRecord(uri, blob, schema, spec, target, types).catch(() => null);
      if (fast) { recs.push(fast); continue; }
      const bytes = await this.ctx.storage.read(uri);
      const batches: arrow.RecordBatch[] = [];
      for await (const raw of readParquetBatches(bytes, uri)) {
        const ids = raw.schema.fields.map((f) => f.metadata.get(FIELD_ID));
        if (ids.some((x) => x === undefined)) throw new Error(`lake: ${uri}: every column needs a PARQUET:field_id to be adopted`);
        batches.push(conformBatch(raw, target, this.ident));
      }
      const parts = new Set<string>(); let partition: Record<string, unknown> = {};
      for (const b of batches) for (const s of splitByPartition(b, schema, spec)) { parts.add(s.key); partition = s.partition; }
      if (parts.size > 1) throw new Error(`lake: ${uri} holds rows of ${parts.size} partitions; one file must hold one partition`);
      const rows = batches.reduce((s, b) => s + b.numRows, 0);
      recs.push(dataFileRecord({ path: uri, partition, rows, size: bytes.length, stats: statsOf(target, batches, types), types, content: 0 }));
    }
    return recs;
  }

  async replaceDataFiles(paths: string[], opts: { partition?: Record<string, unknown> } = {}): Promise<CommitResult> {
    const files = await this.adoptRecords(paths);
    return this.commitOverwrite(files, opts.partition, 'replaceDataFiles', 'a file');
  }

  /** The footer path of `adoptRecords`; null when the file needs the general path. */
  private async footerRecord(uri: string, bytes: Blob, schema: IcebergSchema, spec: ReturnType<typeof specById>, target: arrow.Schema, types: Map<number, string>): Promise<DataFileRec | null> {
    const fs = await footerStats(bytes, target, types);
    if (!fs) return null;
    if (fs.decode.size) {
      const cols = target.fields.map((f, c) => ({ id: Number(f.metadata.get(FIELD_ID)), c })).filter((x) => fs.decode.has(x.id));
      const acc = new Map(cols.map((x) => [x.id, emptyStats()]));
      for await (const b of readParquetBatches(bytes, uri, { fieldIds: fs.decode })) {
        for (const x of cols) {
          const j = b.schema.fields.findIndex((f) => Number(f.metadata.get(FIELD_ID)) === x.id);
          if (j < 0) return null;
          acc.set(x.id, mergeStats(acc.get(x.id)!, columnStats(b.data.children[j], types.get(x.id)!)));
        }
      }
      for (const [id, st] of acc) fs.stats.set(id, st);
    }
    const partition: Record<string, unknown> = {};
    for (const pf of spec.fields) {
      const st = fs.stats.get(pf['source-id']);
      if (!st) return null;
      const t = partitionFieldType(schema, pf);
      if (st.nullCount === st.valueCount) { partition[pf.name] = null; continue; }
      if (st.nullCount > 0 || st.min === null || st.max === null || compare(st.min, st.max) !== 0) {
        throw new Error(`lake: ${uri} holds rows of several partitions; one file must hold one partition`);
      }
      partition[pf.name] = partitionValueToAvro(t, st.min);
    }
    return dataFileRecord({ path: uri, partition, rows: fs.rows, size: bytes.size, stats: fs.stats, types, content: 0 });
  }

  /**
   * Commit `files` as replacing the whole table, or one partition: every
   * current file of that partition is removed, and a file of another partition
   * is refused (it would be silently dropped by the next overwrite of its own).
   */
  private async commitOverwrite(files: DataFileRec[], partition: Record<string, unknown> | undefined, op: string, what: string): Promise<CommitResult> {
    const spec = specById(this.meta, this.meta['default-spec-id']);
    const planned = await planFiles(this.view(), snapshotById(this.meta, this.meta['current-snapshot-id']), { partition });
    let touched: Set<string> | 'all' = 'all';
    if (partition) {
      const want = planned.data[0]?.partKey ?? null;
      for (const f of files) {
        const k = `${spec['spec-id']}/${partitionKey(f.partition, spec)}`;
        if (want && k !== want) throw new Error(`lake: ${op} of ${this.ident} partition ${JSON.stringify(partition)} got ${what} of another partition`);
      }
      touched = new Set([...planned.data, ...planned.deletes].map((p) => p.partKey));
      for (const f of files) touched.add(`${spec['spec-id']}/${partitionKey(f.partition, spec)}`);
      if (!want) this.checkPartitionRows(files, partition);
    }
    const removed = [...planned.data, ...planned.deletes];
    if (!files.length && !removed.length) return noop(this.metaLoc);
    return this.commitChange({ operation: 'overwrite', added: files, removed, touched });
  }

  async overwrite(batches: Batches, opts: { partition?: Record<string, unknown> } = {}): Promise<CommitResult> {
    const w = this.writer();
    const target = this.arrowSchema();
    return this.guarded(() => w.written.map((f) => f.file_path), async () => {
      for await (const b of iterate(batches)) await w.write(conformBatch(b, target, this.ident));
      const files = await w.close();
      return this.commitOverwrite(files, opts.partition, 'overwrite', 'rows');
    });
  }

  private checkPartitionRows(files: DataFileRec[], partition: Record<string, unknown>): void {
    const schema = this.schema();
    const spec = specById(this.meta, this.meta['default-spec-id']);
    for (const f of files) {
      const e = { data_file: f } as ManifestEntry;
      for (const [k, v] of Object.entries(partition)) {
        const pf = spec.fields.find((x) => x.name === k);
        if (!pf) throw new Error(`lake: ${k} is not a partition column of ${this.ident}`);
        const got = fromComparable(partitionFieldType(schema, pf), partitionValueFromAvro(partitionFieldType(schema, pf), e.data_file.partition[k]));
        if (String(got) !== String(v)) throw new Error(`lake: overwrite of ${this.ident} partition ${k}=${String(v)} got rows with ${k}=${String(got)}`);
      }
    }
  }

  /**
   * Live rows of the candidate files whose key is among the incoming rows':
   * their positions by file (for position deletes) and, for the `keep`
   * columns, the matched rows' values. Only the key, `keep` and equality-delete
   * columns are read (a lazily read file fetches just those column chunks), and
   * each row costs one probe of `probe` — nothing is allocated per row.
   * `oldOf[j]` is the row of `old` holding incoming row j's previous values,
   * or -1 when its key is new.
   */
  private async matchKeys(candidates: PlannedFile[], deletes: PlannedFile[], matchCols: number[], probe: KeyProbe, inputRows: number, keep: number[]): Promise<{
    hits: Map<string, { pf: PlannedFile; positions: number[] }>; old: arrow.RecordBatch | null; oldOf: Int32Array; matched: number;
  }> {
    const schema = this.schema();
    const idx = deleteIndex(this.view(), deletes);
    const hits = new Map<string, { pf: PlannedFile; positions: number[] }>();
    const keepSchema = arrowSchemaOf({ ...schema, fields: keep.map((c) => schema.fields[c]) });
    const oldParts: arrow.RecordBatch[] = [];
    const oldOf = new Int32Array(inputRows).fill(-1);
    let oldRows = 0, matched = 0;
    let pairs = new Int32Array(0);
    for (const pf of candidates) {
      const pos = await idx.positions(pf);
      const eq = await idx.equality(pf);
      // a kept column the manifest shows constant in this file (one load's insert_at, say) is not read
      const constant = keep.map((c) => (matchCols.includes(c) ? null : constantColumnValue(pf.entry.data_file, schema.fields[c])));
      const ids = new Set([...matchCols, ...keep.filter((_, k) => !constant[k])].map((c) => schema.fields[c].id));
      for (const e of eq) for (const id of e.ids) ids.add(id);
      const sub: IcebergSchema = { ...schema, fields: schema.fields.filter((f) => ids.has(f.id)) };
      const at = (id: number) => sub.fields.findIndex((f) => f.id === id);
      const mc = matchCols.map((c) => at(schema.fields[c].id)), kc = keep.map((c) => at(schema.fields[c].id));
      const ec = eq.map((e) => e.ids.map(at));
      for await (const { batch, rowBase } of readDataFile(this.view(), pf, sub, arrowSchemaOf(sub), ids)) {
        const cols = batch.data.children;
        if (pairs.length < 2 * batch.numRows) pairs = new Int32Array(2 * batch.numRows);
        const found = probe.scan(mc.map((c) => cols[c]), batch.numRows, pairs);
        const eqCols = ec.map((e) => e.map((c) => cols[c]));
        const take: number[] = [];
        let h: { pf: PlannedFile; positions: number[] } | undefined;
        for (let p = 0; p < found; p++) {
          const i = pairs[2 * p], j = pairs[2 * p + 1];
          if (pos?.has(rowBase + i)) continue;
          if (eq.length && eq.some((e, k) => e.keys.has(rowKey(eqCols[k], i)))) continue;
          if (!h && !(h = hits.get(pf.entry.data_file.file_path))) hits.set(pf.entry.data_file.file_path, (h = { pf, positions: [] }));
          h.positions.push(rowBase + i);
          if (oldOf[j] !== -1) continue; // the same key live twice: both rows go, the first one's values are kept
          matched++;
          oldOf[j] = oldRows + take.length;
          take.push(i);
        }
        if (take.length && keep.length) {
          oldParts.push(makeBatch(keepSchema, kc.map((c, k) => (constant[k] ? constant[k]!(keepSchema.fields[k].type, take.length) : takeData(cols[c], take))), take.length));
        }
        oldRows += take.length;
      }
    }
    const old = keep.length && oldParts.length ? concatBatches(keepSchema, oldParts) : null;
    return { hits, old, oldOf, matched };
  }

  private keyRanges(batch: arrow.RecordBatch, keyCols: number[]): ColumnRange[] {
    const schema = this.schema();
    return keyCols.map((c) => {
      const f = schema.fields[c];
      const st = columnStats(batch.data.children[c], f.type);
      return { column: f.name, gte: st.min === null ? undefined : fromRaw(f.type, st.min), lte: st.max === null ? undefined : fromRaw(f.type, st.max) };
    });
  }

  private async writeDeletes(hits: Map<string, { pf: PlannedFile; positions: number[] }>): Promise<DataFileRec[]> {
    const byPart = new Map<string, { partition: Record<string, unknown>; rows: { path: string; positions: BigInt64Array }[] }>();
    for (const [path, h] of hits) {
      let g = byPart.get(h.pf.partKey);
      if (!g) byPart.set(h.pf.partKey, (g = { partition: h.pf.entry.data_file.partition, rows: [] }));
      // written as the two 32-bit words of little-endian int64s: no BigInt per position
      const positions = new BigInt64Array(h.positions.length);
      const words = new Uint32Array(positions.buffer);
      for (let i = 0; i < h.positions.length; i++) { const p = h.positions[i]; words[2 * i] = p >>> 0; words[2 * i + 1] = Math.floor(p / 4294967296); }
      g.rows.push({ path, positions });
    }
    const spec = specById(this.meta, this.meta['default-spec-id']);
    const out: DataFileRec[] = [];
    for (const g of byPart.values()) {
      const partPath = spec.fields.length ? spec.fields.map((f) => `${encodeURIComponent(f.name)}=${encodeURIComponent(String(Buffer.isBuffer(g.partition[f.name]) ? (g.partition[f.name] as Buffer).toString('hex') : g.partition[f.name]))}`).join('/') + '/' : '';
      out.push(await writePositionDeletes(this.ctx.storage, this.location, codecOf(this.meta.properties['write.parquet.compression-codec']), g.partition, partPath, g.rows));
    }
    return out;
  }

  /**
   * Upsert by key within each partition — merge-on-read.
   *
   * Why position deletes rather than rewriting the hit files: a rewrite costs
   * reading AND re-encoding every row of every file a changed key lands in
   * (with keys spread over a partition that is the whole partition), while a
   * position delete costs reading the hit files once plus writing a few bytes
   * per changed row. So the merge writes (1) one position-delete file per
   * touched partition naming the (file, row) of each replaced row and (2) the
   * incoming rows as new data files; readers (icebird, ClickHouse, Spark,
   * Trino, pyiceberg) apply position deletes natively. Files are pruned by
   * partition and by the key columns' lower/upper bounds, so untouched
   * partitions and files are never opened. `compact()` folds the deletes back
   * into data files (and drops the delete files it applied) when they pile up.
   */
  async merge(batches: Batches, opts: MergeOptions): Promise<MergeResult> {
    if (!opts.keys?.length) throw new Error('lake: merge needs at least one key column');
    const schema = this.schema(); const target = arrowSchemaOf(schema);
    const spec = specById(this.meta, this.meta['default-spec-id']);
    const keyCols = opts.keys.map((k) => { const i = schema.fields.findIndex((f) => f.name === k); if (i < 0) throw new Error(`lake: merge key ${k} is not a column of ${this.ident}`); return i; });
    const carry = (opts.carryForward ?? []).map((k) => { const i = schema.fields.findIndex((f) => f.name === k); if (i < 0) throw new Error(`lake: carryForward column ${k} is not a column of ${this.ident}`); return i; });
    const prevCols = (opts.returnPrevious ?? []).map((k) => { const i = schema.fields.findIndex((f) => f.name === k); if (i < 0) throw new Error(`lake: returnPrevious column ${k} is not a column of ${this.ident}`); return i; });

    // Within one partition an identity-partition key column is constant: match on the other key
    // columns only (a single integer key then takes matchKeys' typed-array fast path).
    const partSources = new Set(spec.fields.filter((f) => f.transform === 'identity').map((f) => f['source-id']));
    const inPart = keyCols.filter((c) => !partSources.has(schema.fields[c].id));
    const matchCols = inPart.length ? inPart : keyCols;
    // The changes only (not the table) are held in memory, grouped by partition.
    const parts = new Map<string, { partition: Record<string, unknown>; batches: arrow.RecordBatch[] }>();
    for (const b of await collect(batches, target, this.ident)) {
      for (const s of splitByPartition(b, schema, spec)) {
        const k = `${spec['spec-id']}/${s.key}`;
        let p = parts.get(k); if (!p) parts.set(k, (p = { partition: s.partition, batches: [] }));
        p.batches.push(s.batch);
      }
    }
    const planned = await planFiles(this.view(), snapshotById(this.meta, this.meta['current-snapshot-id']));
    const w = this.writer();
    const written: string[] = [];
    let inserted = 0, updated = 0;
    const previous: Record<string, unknown>[] = [];
    const allHits = new Map<string, { pf: PlannedFile; positions: number[] }>();
    return this.guarded(() => [...w.written.map((f) => f.file_path), ...written], async () => {
      for (const [pk, p] of parts) {
        let input = concatBatches(target, p.batches);
        const types = matchCols.map((c) => String(schema.fields[c].type));
        let probe = keyProbe(matchCols.map((c) => input.data.children[c]), types, input.numRows);
        if (probe.size !== input.numRows) {
          // Last row wins for keys repeated in the input (the probe maps each key to its last row).
          const find = probe.bind(matchCols.map((c) => input.data.children[c]));
          const lastRows: number[] = [];
          for (let i = 0; i < input.numRows; i++) if (find(i) === i) lastRows.push(i);
          input = takeBatch(input, lastRows);
          probe = keyProbe(matchCols.map((c) => input.data.children[c]), types, input.numRows);
        }
        const ranges = this.keyRanges(input, matchCols);
        const candidates = planned.data.filter((d) => d.partKey === pk && fileMayMatch(d.entry, schema, ranges));
        const deletes = planned.deletes.filter((d) => d.partKey === pk || specById(this.meta, d.specId).fields.length === 0);
        const keep = [...new Set([...carry, ...prevCols, ...(prevCols.length ? keyCols : [])])];
        const m = await this.matchKeys(candidates, deletes, matchCols, probe, input.numRows, keep);
        for (const [path, h] of m.hits) allHits.set(path, h);
        updated += m.matched; inserted += probe.size - m.matched;
        if (m.old) {
          const old = m.old;
          if (prevCols.length) {
            const vecs = [...keyCols, ...prevCols].map((c) => arrow.makeVector(old.data.children[keep.indexOf(c)]));
            const names = [...keyCols, ...prevCols].map((c) => schema.fields[c].name);
            for (let i = 0; i < old.numRows; i++) previous.push(Object.fromEntries(names.map((n, j) => [n, vecs[j].get(i)])));
          }
          if (carry.length) {
            // Output column = input value, or the table's value for updated rows: one take over [input ++ old].
            const idx = new Int32Array(input.numRows);
            for (let i = 0; i < input.numRows; i++) idx[i] = m.oldOf[i] < 0 ? i : input.numRows + m.oldOf[i];
            const children = input.data.children.map((d, c) => {
              if (!carry.includes(c)) return d;
              const one = new arrow.Schema([target.fields[c]]);
              const both = concatBatches(one, [makeBatch(one, [d], input.numRows), makeBatch(one, [old.data.children[keep.indexOf(c)]], old.numRows)]);
              return takeData(both.data.children[0], idx);
            });
            input = makeBatch(target, children, input.numRows);
          }
        }
        await w.write(input);
      }
      const files = await w.close();
      const delFiles = await this.writeDeletes(allHits);
      written.push(...delFiles.map((d) => d.file_path));
      const base = { inserted, updated, ...(opts.returnPrevious ? { previous } : {}) };
      if (!files.length && !delFiles.length) return { ...noop(this.metaLoc), ...base };
      const r = await this.commitChange({ operation: 'overwrite', added: [...files, ...delFiles], removed: [], touched: new Set(parts.keys()) });
      return { ...r, ...base };
    });
  }

  async deleteWhere(opts: DeleteOptions): Promise<CommitResult & { deleted: number }> {
    if (!opts.partition && !opts.keys) throw new Error('lake: deleteWhere needs partition or keys');
    const schema = this.schema();
    const planned = await planFiles(this.view(), snapshotById(this.meta, this.meta['current-snapshot-id']), { partition: opts.partition });
    if (!opts.keys) {
      const removed = [...planned.data, ...planned.deletes];
      if (!removed.length) return { ...noop(this.metaLoc), deleted: 0 };
      const live = planned.data.reduce((s, d) => s + Number(d.entry.data_file.record_count), 0)
        - planned.deletes.filter((d) => d.entry.data_file.content === 1).reduce((s, d) => s + Number(d.entry.data_file.record_count), 0);
      const r = await this.commitChange({ operation: 'delete', added: [], removed, touched: new Set(removed.map((p) => p.partKey)) });
      return { ...r, deleted: live };
    }
    const keyCols = opts.keys.columns.map((k) => { const i = schema.fields.findIndex((f) => f.name === k); if (i < 0) throw new Error(`lake: delete key ${k} is not a column of ${this.ident}`); return i; });
    // Key strings built the same way as from Arrow rows: through a one-batch table of the key values.
    const keyFields = keyCols.map((c) => arrowSchemaOf({ type: 'struct', 'schema-id': 0, fields: [schema.fields[c]] }).fields[0]);
    const cols = keyFields.map((f, j) => arrow.vectorFromArray(opts.keys!.values.map((row) => toArrowValue(f.type, row[j])), f.type).data[0]);
    const kb = makeBatch(new arrow.Schema(keyFields), cols, opts.keys.values.length);
    const probe = keyProbe(cols, keyCols.map((c) => String(schema.fields[c].type)), kb.numRows);
    const ranges = this.keyRanges(makeBatch(this.arrowSchema(), this.arrowSchema().fields.map((f, c) => { const j = keyCols.indexOf(c); return j >= 0 ? kb.data.children[j] : nullDataFor(f.type, kb.numRows); }), kb.numRows), keyCols);
    const candidates = planned.data.filter((d) => fileMayMatch(d.entry, schema, ranges));
    const m = await this.matchKeys(candidates, planned.deletes, keyCols, probe, kb.numRows, []);
    let deleted = 0;
    for (const h of m.hits.values()) deleted += h.positions.length;
    if (!deleted) return { ...noop(this.metaLoc), deleted: 0 };
    const delFiles = await this.writeDeletes(m.hits);
    return this.guarded(() => delFiles.map((d) => d.file_path), async () => {
      const r = await this.commitChange({ operation: 'delete', added: delFiles, removed: [], touched: new Set([...m.hits.values()].map((h) => h.pf.partKey)) });
      return { ...r, deleted };
    });
  }

  async *scan(opts: ScanOptions = {}): AsyncGenerator<arrow.RecordBatch> {
    const snap = opts.snapshotId !== undefined ? snapshotById(this.meta, opts.snapshotId) : snapshotById(this.meta, this.meta['current-snapshot-id']);
    const schemaId = opts.snapshotId !== undefined && snap?.['schema-id'] !== undefined ? snap['schema-id'] : this.meta['current-schema-id'];
    const schema = this.meta.schemas.find((s) => s['schema-id'] === schemaId) ?? this.schema();
    const target = arrowSchemaOf(schema);
    const cols = opts.columns ?? schema.fields.map((f) => f.name);
    const colIdx = cols.map((c) => { const i = schema.fields.findIndex((f) => f.name === c); if (i < 0) throw new Error(`lake: column ${c} is not in ${this.ident}`); return i; });
    const outSchema = new arrow.Schema(colIdx.map((i) => target.fields[i]));
    const view = { ...this.view(), metadata: { ...this.meta, 'current-schema-id': schema['schema-id'] } };
    const planned = await planFiles(view, snap, { partition: opts.partition });
    const idx = deleteIndex(view, planned.deletes);
    rowFilter(schema, opts.filter); // an unknown filter column fails here, before any file is read
    let left = opts.limit ?? Infinity;
    for (const pf of planned.data) {
      if (left <= 0) return;
      if (!fileMayMatch(pf.entry, schema, opts.filter)) continue;
      const pos = await idx.positions(pf);
      const eq = await idx.equality(pf);
      const ids = new Set(colIdx.map((i) => schema.fields[i].id));
      for (const r of opts.filter ?? []) ids.add(schema.fields.find((f) => f.name === r.column)!.id);
      for (const e of eq) for (const id of e.ids) ids.add(id);
      // read only the columns needed here (output, filter, equality deletes)
      const sub: IcebergSchema = { ...schema, fields: schema.fields.filter((f) => ids.has(f.id)) };
      const out = colIdx.map((i) => sub.fields.findIndex((f) => f.id === schema.fields[i].id));
      const subFilter = rowFilter(sub, opts.filter);
      for await (const { batch, rowBase } of readDataFile(view, pf, sub, arrowSchemaOf(sub), ids)) {
        let b = applyDeletes(batch, rowBase, sub, pos, eq, subFilter);
        if (!b.numRows) continue;
        if (b.numRows > left) b = b.slice(0, left);
        left -= b.numRows;
        yield makeBatch(outSchema, out.map((i) => b.data.children[i]), b.numRows);
        if (left <= 0) return;
      }
    }
  }

  async files(snapshotId?: bigint): Promise<DataFileInfo[]> {
    const snap = snapshotById(this.meta, snapshotId ?? this.meta['current-snapshot-id']);
    const planned = await planFiles(this.view(), snap);
    const schema = this.schema();
    return [...planned.data, ...planned.deletes].map((p) => {
      const spec = specById(this.meta, p.specId);
      const partition: Record<string, unknown> = {};
      for (const f of spec.fields) {
        const t = partitionFieldType(schema, f);
        const v = fromComparable(t, partitionValueFromAvro(t, p.entry.data_file.partition[f.name]));
        partition[f.name] = typeof v === 'bigint' ? (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : String(v)) : v;
      }
      const c = p.entry.data_file.content;
      return { path: p.entry.data_file.file_path, content: c === 0 ? 'data' : c === 1 ? 'position-deletes' : 'equality-deletes', partition, recordCount: Number(p.entry.data_file.record_count), fileSizeInBytes: Number(p.entry.data_file.file_size_in_bytes) };
    });
  }

  async evolveSchema(target: arrow.Schema): Promise<{ changes: string[]; rewritten: boolean }> {
    const cur = this.schema();
    const spec = specById(this.meta, this.meta['default-spec-id']);
    const changes: string[] = [];
    let nextId = this.meta['last-column-id'];
    let rewrite = false;
    const fields = cur.fields.map((f) => ({ ...f }));
    for (const tf of target.fields) {
      const want = icebergTypeOf(tf);
      const i = fields.findIndex((f) => f.name === tf.name);
      if (i < 0) {
        fields.push({ id: ++nextId, name: tf.name, required: false, type: want });
        changes.push(`add column ${tf.name} ${want}`);
        continue;
      }
      const f = fields[i];
      if (tf.nullable && f.required) { f.required = false; changes.push(`make ${f.name} optional`); }
      if (f.type === want) continue;
      const widened = widenType(f.type, want);
      if (!widened) throw new Error(`lake: cannot evolve column ${f.name} of ${this.ident} from ${f.type} to ${want}`);
      if (widened === f.type) continue; // incoming narrower type: writes are cast up
      if (isLegalPromotion(f.type, widened)) {
        changes.push(`promote ${f.name} ${f.type} -> ${widened}`);
        f.type = widened;
      } else {
        if (spec.fields.some((p) => p['source-id'] === f.id)) throw new Error(`lake: cannot change the type of partition column ${f.name} of ${this.ident} from ${f.type} to ${widened}`);
        // Not a legal in-place promotion (e.g. a decimal scale change): the column gets a new
        // field id (drop + add, which the spec allows) and every row is rewritten under it.
        changes.push(`rewrite ${f.name} ${f.type} -> ${widened} (new field id ${nextId + 1})`);
        fields[i] = { ...f, id: ++nextId, type: widened };
        rewrite = true;
      }
    }
    if (!changes.length) return { changes, rewritten: false };
    const schemaId = Math.max(...this.meta.schemas.map((s) => s['schema-id'])) + 1;
    const schema: IcebergSchema = { type: 'struct', 'schema-id': schemaId, fields, ...(cur['identifier-field-ids'] ? { 'identifier-field-ids': cur['identifier-field-ids'] } : {}) };
    const properties = { 'schema.name-mapping.default': nameMapping(schema) };
    if (!rewrite) {
      await this.commitLoop(async (base) => {
        const meta: TableMetadata = { ...base, 'last-updated-ms': Math.max(Date.now(), base['last-updated-ms'] + 1), properties: { ...base.properties, ...properties } };
        applySchema(meta, schema);
        return { meta, written: [] };
      }, async (original) => {
        if (this.meta['current-schema-id'] !== original['current-schema-id']) throw new CommitConflict(`lake: ${this.ident}: schema changed by a concurrent commit`);
      });
      this.ctx.logger.info('lake schema evolved', { table: this.ident, changes });
      return { changes, rewritten: false };
    }
    // Rewrite: read every live row under the old schema, cast into the widened one, replace all files at once.
    const newArrow = arrowSchemaOf(schema);
    const w = this.writer(schema);
    const planned = await planFiles(this.view(), snapshotById(this.meta, this.meta['current-snapshot-id']));
    await this.guarded(() => w.written.map((f) => f.file_path), async () => {
      for await (const b of this.scan()) {
        // same column order; the rewritten columns carry new ids, so rename-free positional conform
        const children = newArrow.fields.map((nf, c) => {
          const j = cur.fields.findIndex((f) => f.name === nf.name);
          return j < 0 ? nullDataFor(nf.type, b.numRows) : b.data.children[j];
        });
        const src = new arrow.Schema(newArrow.fields.map((nf, c) => new arrow.Field(nf.name, children[c].type, true)));
        await w.write(conformBatch(makeBatch(src, children, b.numRows), newArrow, this.ident));
      }
      const files = await w.close();
      await this.commitChange({ operation: 'overwrite', added: files, removed: [...planned.data, ...planned.deletes], touched: 'all', schema, properties });
    });
    this.ctx.logger.warn('lake schema evolved by rewriting the table', { table: this.ident, changes });
    return { changes, rewritten: true };
  }

  async compact(opts: { partition?: Record<string, unknown> } = {}): Promise<CommitResult> {
    const planned = await planFiles(this.view(), snapshotById(this.meta, this.meta['current-snapshot-id']), { partition: opts.partition });
    const target = this.prop('write.target-file-size-bytes', 128 * 1024 * 1024);
    // Per partition: worth it when there are deletes to fold in or several files below target size.
    const byPart = new Map<string, { data: PlannedFile[]; deletes: PlannedFile[] }>();
    for (const p of planned.data) { let g = byPart.get(p.partKey); if (!g) byPart.set(p.partKey, (g = { data: [], deletes: [] })); g.data.push(p); }
    for (const p of planned.deletes) { let g = byPart.get(p.partKey); if (!g) byPart.set(p.partKey, (g = { data: [], deletes: [] })); g.deletes.push(p); }
    const chosen = [...byPart.entries()].filter(([, g]) => g.deletes.length > 0 || g.data.filter((d) => Number(d.entry.data_file.file_size_in_bytes) < target * 0.75).length > 1);
    if (!chosen.length) return noop(this.metaLoc);
    const w = this.writer();
    const schema = this.schema(); const arrowT = arrowSchemaOf(schema);
    return this.guarded(() => w.written.map((f) => f.file_path), async () => {
      for (const [, g] of chosen) {
        const idx = deleteIndex(this.view(), planned.deletes);
        for (const pf of g.data) {
          const pos = await idx.positions(pf);
          const eq = await idx.equality(pf);
          for await (const { batch, rowBase } of readDataFile(this.view(), pf, schema, arrowT)) {
            const b = applyDeletes(batch, rowBase, schema, pos, eq, null);
            if (b.numRows) await w.write(b);
          }
        }
      }
      const files = await w.close();
      const removed = chosen.flatMap(([, g]) => [...g.data, ...g.deletes]);
      return this.commitChange({ operation: 'replace', added: files, removed, touched: new Set(chosen.map(([k]) => k)) });
    });
  }

  async expireSnapshots(opts: { now?: number; maxSnapshotAgeMs?: number; minSnapshotsToKeep?: number } = {}): Promise<{ expiredSnapshots: number; deletedFiles: string[] }> {
    const now = opts.now ?? Date.now();
    const maxAge = opts.maxSnapshotAgeMs ?? this.prop('history.expire.max-snapshot-age-ms', 5 * 24 * 3600 * 1000);
    const minKeep = opts.minSnapshotsToKeep ?? this.prop('history.expire.min-snapshots-to-keep', 1);
    let expired: Snapshot[] = [], kept: Snapshot[] = [];
    await this.commitLoop(async (base) => {
      const cur = base['current-snapshot-id'];
      // ancestors of the current snapshot, newest first
      const byId = new Map(base.snapshots.map((s) => [String(s['snapshot-id']), s]));
      const ancestors: Snapshot[] = [];
      for (let s = cur === null || cur === undefined ? undefined : byId.get(String(cur)); s; s = s['parent-snapshot-id'] === undefined ? undefined : byId.get(String(s['parent-snapshot-id']))) ancestors.push(s);
      const keep = new Set<string>();
      if (ancestors[0]) keep.add(String(ancestors[0]['snapshot-id']));
      ancestors.slice(0, Math.max(1, minKeep)).forEach((s) => keep.add(String(s['snapshot-id'])));
      for (const r of Object.values(base.refs)) keep.add(String(r['snapshot-id']));
      for (const s of base.snapshots) if (s['timestamp-ms'] >= now - maxAge) keep.add(String(s['snapshot-id']));
      kept = base.snapshots.filter((s) => keep.has(String(s['snapshot-id'])));
      expired = base.snapshots.filter((s) => !keep.has(String(s['snapshot-id'])));
      const meta: TableMetadata = {
        ...base,
        'last-updated-ms': Math.max(Date.now(), base['last-updated-ms'] + 1),
        snapshots: kept,
        'snapshot-log': base['snapshot-log'].filter((l) => keep.has(String(l['snapshot-id']))),
      };
      return { meta, written: [] };
    }, async () => { /* expiry is recomputed on the new base */ });
    if (!expired.length) return { expiredSnapshots: 0, deletedFiles: [] };
    // Files reachable from kept snapshots stay; files reachable only from expired ones go.
    const view = this.view();
    const reach = async (snaps: Snapshot[], liveOnly: boolean) => {
      const out = new Set<string>();
      for (const s of snaps) {
        out.add(s['manifest-list']);
        let list;
        try { list = await loadManifestList(view, s); } catch { continue; }
        for (const mf of list) {
          out.add(mf.manifest_path);
          let entries;
          try { entries = await loadManifest(view, mf.manifest_path); } catch { continue; }
          for (const e of entries) if (!liveOnly || e.status !== 2) out.add(e.data_file.file_path);
        }
      }
      return out;
    };
    const keepFiles = await reach(kept, true);
    const gone = [...await reach(expired, false)].filter((p) => !keepFiles.has(p));
    await Promise.all(gone.map((p) => this.ctx.storage.delete(p)));
    for (const p of gone) this.ctx.cache.delete(p);
    this.ctx.logger.info('lake snapshots expired', { table: this.ident, expired: expired.length, deletedFiles: gone.length });
    return { expiredSnapshots: expired.length, deletedFiles: gone.sort() };
  }
}

function nullDataFor(type: arrow.DataType, n: number) {
  return arrow.vectorFromArray(new Array(n).fill(null), type).data[0];
}

/** A comparable statistic back to a value `toComparable` accepts. */
function fromRaw(type: string, v: unknown): unknown {
  if (v instanceof Uint8Array) return type === 'string' ? new TextDecoder().decode(v) : v;
  return v;
}

/** A user value (from CLI/JSON) as what Arrow's builders take for `type`. */
function toArrowValue(type: arrow.DataType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case arrow.Type.Int: return (type as arrow.Int).bitWidth === 64 ? BigInt(v as number) : Number(v);
    case arrow.Type.Float: return Number(v);
    case arrow.Type.Utf8: return String(v);
    case arrow.Type.Decimal: {
      const t = type as arrow.Decimal;
      const s = String(v); const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
      if (!m) throw new Error(`lake: ${s} is not a decimal`);
      let u = BigInt((m[2] || '0') + (m[3] ?? '').padEnd(t.scale, '0').slice(0, t.scale)); if (m[1]) u = -u;
      const out = new Uint32Array(4); let x = BigInt.asUintN(128, u);
      for (let k = 0; k < 4; k++) { out[k] = Number(x & 0xffffffffn); x >>= 32n; }
      return out;
    }
    case arrow.Type.Date: return v instanceof Date ? v : new Date(typeof v === 'number' ? v * 86_400_000 : String(v));
    case arrow.Type.Timestamp: return v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : Number(v);
    default: return v;
  }
}

export const _internal = { crypto };

/**
 * When a data file's manifest entry shows a fixed-width column constant (no
 * nulls, lower bound = upper bound), a maker of that column for n rows;
 * otherwise null. Bounds are Iceberg's single-value serialisation
 * (little-endian for these types).
 */
function constantColumnValue(df: DataFileRec, field: IcebergSchema['fields'][number]): ((type: arrow.DataType, n: number) => arrow.Data) | null {
  const width = ({ int: 4, date: 4, float: 4, long: 8, double: 8, time: 8, timestamp: 8, timestamptz: 8 } as Record<string, number>)[String(field.type)];
  if (!width) return null;
  const nulls = df.null_value_counts?.find((x) => x.key === field.id)?.value;
  const lo = df.lower_bounds?.find((x) => x.key === field.id)?.value;
  const hi = df.upper_bounds?.find((x) => x.key === field.id)?.value;
  if (nulls === undefined || Number(nulls) !== 0 || !lo || !hi || lo.length !== width || !Buffer.from(lo).equals(Buffer.from(hi))) return null;
  const v = new DataView(lo.buffer, lo.byteOffset, width);
  return (type, n) => {
    let data: Int32Array | Float32Array | Float64Array | BigInt64Array;
    switch (String(field.type)) {
      case 'int': case 'date': data = new Int32Array(n).fill(v.getInt32(0, true)); break;
      case 'float': data = new Float32Array(n).fill(v.getFloat32(0, true)); break;
      case 'double': data = new Float64Array(n).fill(v.getFloat64(0, true)); break;
      default: data = new BigInt64Array(n).fill(v.getBigInt64(0, true));
    }
    return arrow.makeData({ type, length: n, nullCount: 0, data } as never);
  };
}
