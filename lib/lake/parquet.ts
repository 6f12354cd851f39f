/**
 * Parquet I/O through parquet-wasm: Arrow batches (already conformed to the
 * table schema, each field carrying `PARQUET:field_id`) → one Parquet file,
 * and one Parquet file → Arrow batches, one row group at a time so memory is
 * bounded by the row group, not the file.
 */
import { AppError } from '../errors';
import * as arrow from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { isValidAt } from './arrow-util';
import { GuardedBlob } from './guarded-blob';
import { columnStats, emptyStats, mergeStats, type ColumnStats, type Comparable } from './bounds';
import { writerProperties } from './parquet-writer-properties.mjs';
import { FIELD_ID } from './schema';

export type Codec = 'zstd' | 'snappy' | 'gzip' | 'uncompressed';

export interface EncodeOptions {
  /** (Default: zstd) */
  codec?: Codec;
  /** Rows per row group. (Default: 262144) */
  rowGroupRows?: number;
  /** Key/value metadata for the footer (e.g. `iceberg.schema`). */
  keyValue?: Record<string, string>;
}

const CODECS: Codec[] = ['zstd', 'snappy', 'gzip', 'uncompressed'];

export function codecOf(name: string | undefined): Codec {
  const c = (name ?? 'zstd').toLowerCase();
  if (c === 'none') return 'uncompressed';
  if ((CODECS as string[]).includes(c)) return c as Codec;
  throw new AppError('validation', `lake: unsupported write.parquet.compression-codec ${name}`, { field: 'properties' });
}

/** Encode batches of one schema into a Parquet file. */
export function encodeParquet(schema: arrow.Schema, batches: arrow.RecordBatch[], opts: EncodeOptions = {}): Uint8Array {
  const ipc = arrow.tableToIPC(new arrow.Table(schema, batches), 'stream');
  const table = pw.Table.fromIPCStream(ipc);
  const props = writerProperties(pw, { compression: opts.codec ?? 'zstd', rowGroupRows: opts.rowGroupRows ?? 262_144, keyValue: opts.keyValue, deltaColumns: deltaColumns(schema), createdBy: 'tributary lake (parquet-wasm 0.8)' });
  return pw.writeParquet(table, props);
}

/** Rows per piece handed to the streaming writer: a piece's IPC copy stays a few MiB. */
const STREAM_PIECE_ROWS = 65_536;

/**
 * Encode batches into a Parquet file through parquet-wasm's streaming writer, piece by piece.
 * Why not `encodeParquet`: that serialises the whole file to one Arrow IPC buffer, copies it into
 * the WASM heap as a Table and only then encodes — two full copies of the file's rows at once
 * (and a WASM heap, which never shrinks, grown to the largest file). Here each piece of at most
 * STREAM_PIECE_ROWS rows is copied in, encoded into the open row group and released, so the extra
 * memory is one piece plus the row group being encoded; the output is the same file (same row
 * groups, encodings and footer). A file with no rows goes through `encodeParquet` (the stream
 * writer learns the schema from the first batch).
 */
export async function encodeParquetStreaming(schema: arrow.Schema, batches: arrow.RecordBatch[], opts: EncodeOptions = {}): Promise<Uint8Array> {
  const pieces: arrow.RecordBatch[] = [];
  for (const b of batches) for (let at = 0; at < b.numRows; at += STREAM_PIECE_ROWS) pieces.push(b.slice(at, Math.min(b.numRows, at + STREAM_PIECE_ROWS)));
  if (!pieces.length) return encodeParquet(schema, batches, opts);
  const props = writerProperties(pw, { compression: opts.codec ?? 'zstd', rowGroupRows: opts.rowGroupRows ?? 262_144, keyValue: opts.keyValue, deltaColumns: deltaColumns(schema), createdBy: 'tributary lake (parquet-wasm 0.8)' });
  let next = 0;
  const input = new ReadableStream({
    pull(c) {
      if (next >= pieces.length) { c.close(); return; }
      const piece = pieces[next]; pieces[next++] = undefined as never; // released once copied in
      const t = pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(schema, [piece]), 'stream'));
      try { c.enqueue(t.recordBatch(0)); } finally { t.free(); }
    },
  });
  const out = (await pw.transformParquetStream(input, props)) as unknown as AsyncIterable<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of out) { chunks.push(chunk); size += chunk.length; }
  const bytes = new Uint8Array(size);
  let o = 0;
  for (const chunk of chunks) { bytes.set(chunk, o); o += chunk.length; }
  return bytes;
}

/** Top-level columns stored as INT32/INT64 (integers, dates, times, timestamps; not decimals): see `deltaColumns` of writerProperties. */
function deltaColumns(schema: arrow.Schema): string[] {
  const ints = new Set([arrow.Type.Int, arrow.Type.Date, arrow.Type.Time, arrow.Type.Timestamp]);
  return schema.fields.filter((f) => ints.has(f.type.typeId)).map((f) => f.name);
}

/** Statistics by field id over batches (which carry `PARQUET:field_id`). */
export function statsOf(schema: arrow.Schema, batches: arrow.RecordBatch[], types: Map<number, string>): Map<number, ColumnStats> {
  const out = new Map<number, ColumnStats>();
  schema.fields.forEach((f, c) => {
    const id = Number(f.metadata.get(FIELD_ID));
    const type = types.get(id);
    if (type === undefined) {
      // a list column: statistics belong to its leaf, the element — value and null counts, no bounds
      // (metrics are keyed by leaf field ids; element bounds would say nothing about a row)
      const el = (f.type as arrow.List).children?.[0];
      if (f.type.typeId !== arrow.Type.List || !el?.metadata.has(FIELD_ID)) return;
      const st = emptyStats();
      for (const b of batches) {
        const d = b.data.children[c];
        const offs = d.valueOffsets as Int32Array;
        const child = d.children[0];
        for (let e = offs[0]; e < offs[d.length]; e++) { st.valueCount++; if (!isValidAt(child, e)) st.nullCount++; }
      }
      out.set(Number(el.metadata.get(FIELD_ID)), st);
      return;
    }
    let st = emptyStats();
    for (const b of batches) st = mergeStats(st, columnStats(b.data.children[c], type));
    out.set(id, st);
  });
  return out;
}

export interface ParquetLayout {
  rowGroups: number;
  rows: number;
  /** Compressed bytes per top-level column name. */
  columnSizes: Map<string, number>;
}

export async function parquetLayout(bytes: Uint8Array): Promise<ParquetLayout> {
  const pf = await pw.ParquetFile.fromFile(new Blob([bytes as Uint8Array<ArrayBuffer>]));
  try {
    const md = pf.metadata();
    const sizes = new Map<string, number>();
    let rows = 0;
    const groups = md.rowGroups();
    for (const rg of groups) {
      rows += rg.numRows();
      for (const c of rg.columns()) {
        const name = c.columnPath()[0];
        sizes.set(name, (sizes.get(name) ?? 0) + c.compressedSize());
      }
    }
    return { rowGroups: groups.length, rows, columnSizes: sizes };
  } finally { pf.free(); }
}

/**
 * Batches of one Parquet file, row group by row group (in file order, so row
 * positions are stable). `fieldIds` limits decoding to those columns (by
 * `PARQUET:field_id`; all columns when the file has no ids).
 */
export async function* readParquetBatches(bytes: Uint8Array | Blob, what: string, opts: { fieldIds?: Set<number>; batchSize?: number } = {}): AsyncGenerator<arrow.RecordBatch> {
  let pf: pw.ParquetFile;
  let groups: number;
  let columns: string[] | undefined;
  // A lazily read file (an object store's) is read from inside parquet-wasm: see GuardedBlob.
  const blob = bytes instanceof Blob ? new GuardedBlob(bytes) : null;
  const readFailure = (e: unknown) => blob?.failure.error
    ? new AppError('internal', `lake: cannot read Parquet file ${what}: ${(blob.failure.error as Error).message}`, { cause: blob.failure.error })
    : null;
  const failed = (e: unknown) => readFailure(e) ?? new AppError('fatal', `lake: cannot read Parquet file ${what}: ${(e as Error).message}`, { cause: e });
  try {
    pf = await pw.ParquetFile.fromFile(blob ?? new Blob([bytes as Uint8Array<ArrayBuffer>]));
    groups = pf.metadata().numRowGroups();
    if (opts.fieldIds) {
      const schema = arrow.tableFromIPC(pf.schema().intoIPCStream()).schema;
      const withIds = schema.fields.filter((f) => f.metadata.has(FIELD_ID));
      if (withIds.length === schema.fields.length) {
        columns = withIds.filter((f) => opts.fieldIds!.has(Number(f.metadata.get(FIELD_ID)))).map((f) => f.name);
        if (columns.length === 0) columns = [schema.fields[0].name]; // still need the row count
      }
    }
  } catch (e) {
    throw readFailure(e) ?? new AppError('fatal', `lake: corrupt Parquet file ${what}: ${(e as Error).message}`, { cause: e });
  }
  try {
    for (let rg = 0; rg < groups; rg++) {
      // Batch by batch out of the WASM heap, not the row group whole (`pf.read`): a whole group of
      // every column sat there decoded and again as its IPC copy (~100 MiB for 262k rows of ten
      // columns), and that heap never shrinks — the lake bench's peak RSS was set by its scan.
      const stream = await pf.stream({ rowGroups: [rg], batchSize: opts.batchSize ?? batchRows(columns?.length ?? Infinity), ...(columns ? { columns } : {}) }).catch((e) => { throw failed(e); });
      const it = (stream as unknown as AsyncIterable<pw.RecordBatch>)[Symbol.asyncIterator]();
      let done = false;
      try {
        for (;;) {
          let t: arrow.Table;
          try {
            const r = await it.next();
            if ((done = !!r.done)) break;
            t = arrow.tableFromIPC(r.value.intoIPCStream());
          } catch (e) { done = true; throw failed(e); }
          // Zeros a failed read handed over may even decode: never yield what the store did not send.
          { const f = readFailure(null); if (f) throw f; }
          for (const b of t.batches) yield b;
        }
      } finally {
        // a caller that stopped early (or a failed read) leaves the group's stream open: cancel it
        if (!done) await it.return?.().catch(() => {});
      }
    }
  } finally { pf.free(); }
}

/**
 * Rows a read batch holds: 65,536 of a wide read, up to a whole default row group (262,144) when
 * only a column or two are read (a merge's key or carried column) — each batch costs an IPC
 * conversion, and a few narrow columns of a group take little room.
 */
const batchRows = (columns: number) => 65_536 * Math.max(1, Math.min(4, Math.floor(8 / columns)));

/** hyparquet parsers that keep statistics in their raw comparable form (no Date objects, no string decoding). */
const RAW_PARSERS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
  dateFromDays: (v: number) => v,
  stringFromBytes: (v: Uint8Array) => v,
  geometryFromBytes: (v: Uint8Array) => v,
  geographyFromBytes: (v: Uint8Array) => v,
};

/**
 * Column statistics from a Parquet file's footer (row-group min/max/null
 * counts), without decoding any page. Exact only where the footer is exact:
 * a column whose statistics are missing, inexact (truncated), or whose
 * comparable form the footer cannot give losslessly (fixed-length decimals:
 * hyparquet turns them into floats; floats/doubles: no NaN count) is listed in
 * `decode` for the caller to compute from the column's values. Returns null
 * when the file's schema is not exactly `target` (names, types, field ids).
 */
export async function footerStats(file: Uint8Array | Blob, target: arrow.Schema, types: Map<number, string>): Promise<{ rows: number; stats: Map<number, ColumnStats>; decode: Set<number> } | null> {
  const { parquetMetadataAsync } = await import('hyparquet');
  // a Blob is read lazily: only the footer's bytes are fetched
  const guarded = file instanceof Blob ? new GuardedBlob(file) : null;
  const blob = guarded ?? new Blob([file as Uint8Array<ArrayBuffer>]);
  let pf: pw.ParquetFile;
  try { pf = await pw.ParquetFile.fromFile(blob); } catch (e) {
    const cause = guarded?.failure.error;
    if (cause) throw new AppError('fatal', `lake: cannot read Parquet footer: ${(cause as Error).message}`, { cause });
    throw e;
  }
  if (guarded?.failure.error) throw new AppError('fatal', `lake: cannot read Parquet footer: ${(guarded.failure.error as Error).message}`, { cause: guarded.failure.error });
  let fileSchema: arrow.Schema;
  try { fileSchema = arrow.tableFromIPC(pf.schema().intoIPCStream()).schema; } finally { pf.free(); }
  if (fileSchema.fields.length !== target.fields.length) return null;
  for (let i = 0; i < target.fields.length; i++) {
    const a = fileSchema.fields[i], b = target.fields[i];
    if (a.name !== b.name || String(a.type) !== String(b.type) || a.metadata.get(FIELD_ID) !== b.metadata.get(FIELD_ID)) return null;
    if (a.type.typeId === arrow.Type.Struct || a.type.typeId === arrow.Type.List || a.type.typeId === arrow.Type.Map) return null;
  }
  // hyparquet reads in JavaScript, where a failed read rejects as it should: it gets the unguarded file.
  const raw = file instanceof Blob ? file : blob;
  const md = await parquetMetadataAsync({ byteLength: raw.size, slice: (start: number, end?: number) => raw.slice(start, end).arrayBuffer() }, { parsers: RAW_PARSERS as never });
  const rows = Number(md.num_rows);
  const stats = new Map<number, ColumnStats>();
  const decode = new Set<number>();
  target.fields.forEach((f) => {
    const id = Number(f.metadata.get(FIELD_ID));
    const t = types.get(id) ?? '';
    if (t.startsWith('decimal') || t === 'float' || t === 'double') { decode.add(id); return; }
    let st: ColumnStats = { ...emptyStats(), valueCount: 0 };
    for (const rg of md.row_groups) {
      const cc = rg.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === f.name);
      const s = cc?.meta_data?.statistics;
      const n = Number(rg.num_rows);
      if (!s || s.null_count === undefined) { decode.add(id); return; }
      const nulls = Number(s.null_count);
      const cur: ColumnStats = { valueCount: n, nullCount: nulls, nanCount: 0, min: null, max: null };
      if (nulls < n) {
        if (s.min_value === undefined || s.max_value === undefined || s.is_min_value_exact === false || s.is_max_value_exact === false) { decode.add(id); return; }
        const conv = (v: unknown): Comparable | null => {
          if (typeof v === 'boolean') return v ? 1 : 0;
          if (v instanceof Uint8Array) return v.slice();
          if (typeof v === 'bigint') return t === 'long' || t === 'time' || t.startsWith('timestamp') ? v : null;
          if (typeof v === 'number') return t === 'long' || t === 'time' || t.startsWith('timestamp') ? BigInt(v) : v;
          return null;
        };
        cur.min = conv(s.min_value); cur.max = conv(s.max_value);
        if (cur.min === null || cur.max === null) { decode.add(id); return; }
      }
      st = mergeStats(st, cur);
    }
    stats.set(id, st);
  });
  return { rows, stats, decode };
}
