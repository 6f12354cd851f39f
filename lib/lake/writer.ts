/**
 * The partitioned, rolling data-file writer. Batches arrive conformed to the
 * table schema; rows are grouped by identity-partition value and buffered per
 * partition; a partition's buffer becomes one Parquet file when it reaches the
 * target file size (estimated from the observed compression ratio) or when all
 * buffers together exceed the memory budget. Peak memory is therefore bounded
 * by the budget plus the files being encoded (at most MAX_IN_FLIGHT, on encoder
 * threads while the next rows arrive) — never by the input size.
 */
import crypto from 'node:crypto';
import * as arrow from 'apache-arrow';
import { batchBytes } from './arrow-util';
import { splitByPartition } from './split';
import { compareBytes, encodeBound, type ColumnStats } from './bounds';
import { partitionKey, type DataFileRec } from './manifest';
import { lakeEncoders } from './encoder-pool';
import { encodeParquetFile, narrowBatches, scannedByType, statsOf, writtenFileFacts, type Codec } from './parquet';
import { FIELD_ID, primitiveTypes } from './schema';
import type { Storage } from './storage';
import type { IcebergSchema, PartitionSpec } from './types';

export interface WriterOptions {
  storage: Storage;
  location: string;
  schema: IcebergSchema;
  arrowSchema: arrow.Schema;
  spec: PartitionSpec;
  /** (Default: 128 MiB) */
  targetFileSize: number;
  codec: Codec;
  /** Arrow bytes buffered across partitions before the largest is flushed. (Default: 256 MiB) */
  bufferBytes?: number;
}

interface Pending { partition: Record<string, unknown>; batches: arrow.RecordBatch[]; bytes: number; rows: number }

/**
 * Files cut and not yet written (queued or being encoded) before the writer's caller waits: each
 * holds its rows until encoded.
 */
const MAX_IN_FLIGHT = 2;

/** A partition's buffer cut as one file, waiting for an encoder thread or for the writer's own. */
interface Cut { p: Pending; path: string }

export class DataFileWriter {
  private pending = new Map<string, Pending>();
  private buffered = 0;
  private ratio = 4; // Arrow bytes per Parquet byte; refined after each file
  readonly written: DataFileRec[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly queue: Cut[] = [];
  private failure: { error: unknown } | null = null;
  private readonly types: Map<number, string>;
  private readonly prefix = crypto.randomUUID();
  private seq = 0;

  constructor(private readonly o: WriterOptions) {
    this.types = primitiveTypes(o.schema);
  }

  async write(batch: arrow.RecordBatch): Promise<void> {
    if (batch.numRows === 0) return;
    for (const part of splitByPartition(batch, this.o.schema, this.o.spec)) {
      const key = partitionKey(part.partition, this.o.spec);
      let p = this.pending.get(key);
      if (!p) this.pending.set(key, (p = { partition: part.partition, batches: [], bytes: 0, rows: 0 }));
      const bytes = batchBytes(part.batch);
      p.batches.push(part.batch); p.bytes += bytes; p.rows += part.batch.numRows;
      this.buffered += bytes;
      if (p.bytes >= this.o.targetFileSize * this.ratio) await this.flush(key);
    }
    const budget = this.o.bufferBytes ?? 256 * 1024 * 1024;
    while (this.buffered > budget) {
      let bigKey = ''; let big = -1;
      for (const [k, p] of this.pending) if (p.bytes > big) { big = p.bytes; bigKey = k; }
      await this.flush(bigKey);
    }
  }

  /**
   * Cut a partition's buffer as one file. Cut files go to an encoder thread whenever one is idle
   * (`pump`, also when one finishes); past MAX_IN_FLIGHT the writer's own thread encodes a queued
   * one rather than wait. Why a queue and not "this thread encodes when every encoder is busy":
   * on two cores (one encoder) this thread then spent a whole file's encoding while the encoder,
   * done early, had nothing to take.
   */
  private async flush(key: string, bounded = true): Promise<void> {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    this.buffered -= p.bytes;
    this.throwFailure();
    const path = `${this.o.location}/data/${partitionPath(this.o.spec, p.partition)}${this.prefix}-${String(this.seq++).padStart(5, '0')}.parquet`;
    this.queue.push({ p, path });
    this.pump();
    while (bounded && this.queue.length + this.inFlight.size > MAX_IN_FLIGHT) {
      const next = this.queue.shift();
      await (next ? this.encode(next, 'caller') : Promise.race(this.inFlight));
    }
    this.throwFailure();
  }

  /** A failed file fails the writer: the next write or close reports it. */
  private throwFailure(): void {
    if (this.failure) throw this.failure.error;
  }

  /** Hand queued files to idle encoder threads. */
  private pump(): void {
    while (this.queue.length && lakeEncoders().idle) void this.encode(this.queue.shift()!, 'encoder');
  }

  /** Encode and store one cut file; its failure is the writer's (reported by the next write or close). */
  private encode(c: Cut, on: 'caller' | 'encoder'): Promise<void> {
    const { p, path } = c;
    const job: Promise<void> = writeDataFile(this.o, p.partition, p.batches, path, this.types, 0, undefined, on).then((rec) => {
      if (Number(rec.file_size_in_bytes) > 0) this.ratio = Math.max(1, Math.min(20, p.bytes / Number(rec.file_size_in_bytes)));
      this.written.push(rec);
    }, (e) => { this.failure ??= { error: e }; }).finally(() => { this.inFlight.delete(job); this.pump(); });
    this.inFlight.add(job);
    return job;
  }

  /**
   * Cut one partition's buffered rows as a file now, when the caller is done with that partition
   * (a merge, partition after partition): an idle encoder thread encodes it while the next
   * partition is read, instead of every file waiting for close. Not bounded by MAX_IN_FLIGHT:
   * the caller holds these rows anyway (a merge's input is in memory), and its own thread is
   * better spent on the next partition than on encoding; `close` shares what is still queued.
   */
  async flushPartition(partition: Record<string, unknown>): Promise<void> {
    await this.flush(partitionKey(partition, this.o.spec), false);
  }

  /** Flush everything; returns the data files written. */
  async close(): Promise<DataFileRec[]> {
    for (const k of [...this.pending.keys()]) await this.flush(k);
    // what is still queued: this thread takes one after another while encoder threads take theirs
    for (let next = this.queue.shift(); next && !this.failure; next = this.queue.shift()) await this.encode(next, 'caller');
    await this.settled();
    if (this.failure) throw this.failure.error;
    return this.written;
  }

  /** The files written so far, once none is being encoded (what a failed operation deletes). */
  async settled(): Promise<DataFileRec[]> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
    return this.written;
  }

  /** Delete every file this writer produced (on a failed operation). */
  async abort(): Promise<void> {
    this.pending.clear();
    this.queue.length = 0;
    await Promise.all((await this.settled()).map((f) => this.o.storage.delete(f.file_path)));
  }
}

/** The Hive-style folder of a partition's files under `data/` (`BRANCH_ID=3/`; '' when unpartitioned). */
export function partitionPath(spec: PartitionSpec, partition: Record<string, unknown>): string {
  if (spec.fields.length === 0) return '';
  return spec.fields.map((f) => {
    const v = partition[f.name];
    const s = v === null || v === undefined ? 'null' : Buffer.isBuffer(v) ? v.toString('hex') : String(v);
    return `${encodeURIComponent(f.name)}=${encodeURIComponent(s)}`;
  }).join('/') + '/';
}

/** Encode one Parquet data file and describe it as a manifest `data_file`. `batches` is consumed (see `encodeParquetFile`). */
export async function writeDataFile(
  o: Pick<WriterOptions, 'storage' | 'schema' | 'arrowSchema' | 'codec'>, partition: Record<string, unknown>, batches: arrow.RecordBatch[], path: string, types: Map<number, string>,
  content: 0 | 1 = 0, known?: Map<number, ColumnStats>, on?: 'caller' | 'encoder',
): Promise<DataFileRec> {
  // `known`: statistics the caller has without scanning the rows (a position-delete file's);
  // otherwise what no footer gives is scanned here, before the rows go to the encoder
  const rows = batches.reduce((s, b) => s + b.numRows, 0);
  const byType = known ? null : scannedByType(o.arrowSchema, types);
  const early = byType && statsOf(byType, narrowBatches(byType, batches), types);
  const bytes = await encodeParquetFile(o.arrowSchema, batches, { codec: o.codec, keyValue: content === 0 ? { 'iceberg.schema': JSON.stringify(o.schema) } : undefined, on });
  await o.storage.write(path, bytes);
  const facts = await writtenFileFacts(bytes, o.arrowSchema, types, early);
  const ids = new Map(o.arrowSchema.fields.map((f) => [f.name, Number(f.metadata.get(FIELD_ID))]));
  return dataFileRecord({ path, partition, rows, size: bytes.length, stats: known ?? facts.stats, types, content, columnSizes: new Map([...facts.columnSizes].map(([n, s]) => [ids.get(n)!, s])) });
}

export function dataFileRecord(a: {
  path: string; partition: Record<string, unknown>; rows: number; size: number; stats: Map<number, ColumnStats>; types: Map<number, string>;
  content: 0 | 1 | 2; columnSizes?: Map<number, number>;
}): DataFileRec {
  const ids = [...a.stats.keys()].sort((x, y) => x - y);
  const kv = <V>(f: (id: number) => V | null) => ids.flatMap((id) => { const v = f(id); return v === null ? [] : [{ key: id, value: v }]; });
  return {
    content: a.content,
    file_path: a.path,
    file_format: 'PARQUET',
    partition: a.partition,
    record_count: BigInt(a.rows),
    file_size_in_bytes: BigInt(a.size),
    column_sizes: a.columnSizes ? kv((id) => (a.columnSizes!.has(id) ? BigInt(a.columnSizes!.get(id)!) : null)) : null,
    value_counts: kv((id) => BigInt(a.stats.get(id)!.valueCount)),
    null_value_counts: kv((id) => BigInt(a.stats.get(id)!.nullCount)),
    nan_value_counts: kv((id) => { const t = a.types.get(id); return t === 'float' || t === 'double' ? BigInt(a.stats.get(id)!.nanCount) : null; }),
    lower_bounds: kv((id) => { const s = a.stats.get(id)!; if (s.min === null) return null; const b = encodeBound(a.types.get(id)!, s.min, false); return b ? Buffer.from(b) : null; }),
    upper_bounds: kv((id) => { const s = a.stats.get(id)!; if (s.max === null) return null; const b = encodeBound(a.types.get(id)!, s.max, true); return b ? Buffer.from(b) : null; }),
    key_metadata: null,
    split_offsets: null,
    equality_ids: null,
    sort_order_id: a.content === 0 ? 0 : null,
  };
}

/** Position-delete file schema (spec: "Position Delete Files"): reserved field ids. */
export const POS_DELETE_SCHEMA: IcebergSchema = {
  type: 'struct', 'schema-id': 0,
  fields: [
    { id: 2147483546, name: 'file_path', required: true, type: 'string' },
    { id: 2147483545, name: 'pos', required: true, type: 'long' },
  ],
};

export const POS_DELETE_ARROW = new arrow.Schema([
  new arrow.Field('file_path', new arrow.Utf8(), false, new Map([[FIELD_ID, '2147483546']])),
  new arrow.Field('pos', new arrow.Int64(), false, new Map([[FIELD_ID, '2147483545']])),
]);

/**
 * Write one position-delete file; rows are sorted by (file_path, pos) here, as the spec requires.
 * Columns are built straight into Arrow buffers and the statistics come from the sorted input, not
 * from a scan: a file's path repeats once per deleted row (an upsert of 1M rows names 500k rows),
 * so a per-row string, BigInt or comparison would cost more than the encoding.
 */
export async function writePositionDeletes(storage: Storage, location: string, codec: Codec, partition: Record<string, unknown>, partPath: string, rows: { path: string; positions: BigInt64Array }[]): Promise<DataFileRec> {
  const enc = rows.map((r) => ({ r, e: new Uint8Array(Buffer.from(r.path, 'utf8')) }));
  // byte order of the UTF-8 paths, the order Parquet readers and the bounds compare by
  enc.sort((a, b) => compareBytes(a.e, b.e));
  const n = enc.reduce((a, x) => a + x.r.positions.length, 0);
  const bytes = new Uint8Array(enc.reduce((a, x) => a + x.e.length * x.r.positions.length, 0));
  const offsets = new Int32Array(n + 1);
  const pos = new BigInt64Array(n);
  let at = 0, o = 0;
  let minPos: bigint | null = null, maxPos: bigint | null = null;
  for (const { r, e } of enc) {
    const k = r.positions.length;
    if (!k) continue;
    // a match names a file's rows in file order: sort only when they are not already
    const sorted = isAscending(r.positions) ? r.positions : r.positions.slice().sort();
    pos.set(sorted, at);
    if (minPos === null || sorted[0] < minPos) minPos = sorted[0];
    if (maxPos === null || sorted[k - 1] > maxPos) maxPos = sorted[k - 1];
    // the path k times: one copy, then doubling copies within the buffer
    const start = o, len = e.length * k;
    bytes.set(e, start);
    for (let filled = e.length; filled < len; filled *= 2) bytes.copyWithin(start + filled, start, start + Math.min(filled, len - filled));
    for (let i = 1; i <= k; i++) offsets[at + i] = start + i * e.length;
    o += len; at += k;
  }
  const fp = arrow.makeData({ type: new arrow.Utf8(), length: n, nullCount: 0, valueOffsets: offsets, data: bytes });
  const pv = arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: pos });
  const struct = arrow.makeData({ type: new arrow.Struct(POS_DELETE_ARROW.fields), length: n, nullCount: 0, children: [fp, pv] });
  const batch = new arrow.RecordBatch(POS_DELETE_ARROW, struct);
  const types = primitiveTypes(POS_DELETE_SCHEMA);
  const used = enc.filter((x) => x.r.positions.length > 0);
  const stats = new Map<number, ColumnStats>([
    [POS_DELETE_SCHEMA.fields[0].id, { valueCount: n, nullCount: 0, nanCount: 0, min: used.length ? used[0].e : null, max: used.length ? used[used.length - 1].e : null }],
    [POS_DELETE_SCHEMA.fields[1].id, { valueCount: n, nullCount: 0, nanCount: 0, min: minPos, max: maxPos }],
  ]);
  const path = `${location}/data/${partPath}${crypto.randomUUID()}-deletes.parquet`;
  return writeDataFile({ storage, schema: POS_DELETE_SCHEMA, arrowSchema: POS_DELETE_ARROW, codec }, partition, [batch], path, types, 1, stats);
}

function isAscending(v: BigInt64Array): boolean {
  // compared as the little-endian words of non-negative positions, so no BigInt is made per row
  const w = new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
  for (let i = 1; i < v.length; i++) {
    const hi = w[2 * i + 1], phi = w[2 * i - 1];
    if (hi < phi || (hi === phi && w[2 * i] < w[2 * i - 2])) return false;
  }
  return true;
}
