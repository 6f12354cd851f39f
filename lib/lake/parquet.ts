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
import { deltaColumns } from './delta-columns';
import { GuardedBlob } from './guarded-blob';
import { columnsForFieldIds } from './parquet-columns.mjs';
import { BOUND_TRUNCATE, columnStats, emptyStats, mergeStats, type ColumnStats, type Comparable } from './bounds';
import { lakeEncoders } from './encoder-pool';
import { writerProperties, type WriterPropertiesOptions } from './parquet-writer-properties.mjs';
import { FIELD_ID, parseDecimal } from './schema';

export type Codec = 'zstd' | 'snappy' | 'gzip' | 'uncompressed';

export interface EncodeOptions {
  /** (Default: zstd) */
  codec?: Codec;
  /** Rows per row group. (Default: 262144) */
  rowGroupRows?: number;
  /** Key/value metadata for the footer (e.g. `iceberg.schema`). */
  keyValue?: Record<string, string>;
  /** `encodeParquetFile`: on the calling thread, or on an encoder thread the caller found idle (then only a very small file is encoded here). (Default: an encoder thread when one is idle; a small file here) */
  on?: 'caller' | 'encoder';
}

const CODECS: Codec[] = ['zstd', 'snappy', 'gzip', 'uncompressed'];

export function codecOf(name: string | undefined): Codec {
  const c = (name ?? 'zstd').toLowerCase();
  if (c === 'none') return 'uncompressed';
  if ((CODECS as string[]).includes(c)) return c as Codec;
  throw new AppError('validation', `lake: unsupported write.parquet.compression-codec ${name}`, { field: 'properties' });
}

/** The lake's writer properties for a file of `schema`. */
function settingsOf(schema: arrow.Schema, opts: EncodeOptions): WriterPropertiesOptions {
  return { compression: opts.codec ?? 'zstd', rowGroupRows: opts.rowGroupRows ?? 262_144, keyValue: opts.keyValue, deltaColumns: deltaColumns(schema), createdBy: 'tributary lake (parquet-wasm 0.8)' };
}

/** Encode batches of one schema into a Parquet file. */
export function encodeParquet(schema: arrow.Schema, batches: arrow.RecordBatch[], opts: EncodeOptions = {}): Uint8Array {
  const ipc = arrow.tableToIPC(new arrow.Table(schema, batches), 'stream');
  const table = pw.Table.fromIPCStream(ipc);
  return pw.writeParquet(table, writerProperties(pw, settingsOf(schema, opts)));
}

/** Rows per piece handed to the streaming writer: a piece's IPC copy stays a few MiB. */
const STREAM_PIECE_ROWS = 65_536;
/** Files of at most this many rows are encoded on the calling thread: a round trip to a worker costs more. */
const INLINE_MAX_ROWS = 20_000;
/** …unless the caller hands them to an idle encoder (`on: 'encoder'`): then only files this small are. */
const HANDOFF_MIN_ROWS = 2_000;

/**
 * Encode batches into a Parquet file: a large file on one of the process's encoder threads
 * (`lakeEncoders`), so the thread feeding the writer goes on while files are encoded beside it —
 * one thread could only alternate between the two — and a small one here. A large file is also
 * encoded here when the caller says so (`on: 'caller'`: the writer's thread has nothing better to
 * do) or, unsaid, when every encoder thread is busy. The `batches` array is consumed (emptied as
 * its rows go to the encoder).
 */
export async function encodeParquetFile(schema: arrow.Schema, batches: arrow.RecordBatch[], opts: EncodeOptions = {}): Promise<Uint8Array> {
  const rows = batches.reduce((a, b) => a + b.numRows, 0);
  const pool = lakeEncoders();
  // every encoder busy: this thread encodes the file rather than queue it behind theirs. A small file
  // is encoded here too — unless the caller hands it to an encoder it found idle (`on: 'encoder'`):
  // its thread has other work then (a merge reads and probes the next partition while the last
  // one's rows are encoded; the lake bench's 1% merge encoded all seven partitions' rows here)
  const on = opts.on ?? (pool.idle ? 'encoder' : 'caller');
  const here = on === 'caller' || rows <= (opts.on === 'encoder' ? HANDOFF_MIN_ROWS : INLINE_MAX_ROWS);
  if (here) return encodeParquetStreaming(schema, batches.splice(0), opts);
  return pool.encode(schema, batches, settingsOf(schema, opts), STREAM_PIECE_ROWS);
}

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
  const props = writerProperties(pw, settingsOf(schema, opts));
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
    if (opts.fieldIds) columns = columnsForFieldIds(arrow.tableFromIPC(pf.schema().intoIPCStream()).schema.fields, opts.fieldIds);
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
export const batchRows = (columns: number) => 65_536 * Math.max(1, Math.min(4, Math.floor(8 / columns)));

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
  return { rows: Number(md.num_rows), ...statsFromFooter(md as unknown as FooterMetadata, target, types) };
}

/** The parts of hyparquet's footer metadata read here. */
interface FooterMetadata {
  row_groups: {
    num_rows: bigint | number;
    columns: { meta_data?: { path_in_schema: string[]; type: string; total_compressed_size: bigint | number; statistics?: {
      null_count?: bigint | number; min_value?: unknown; max_value?: unknown; is_min_value_exact?: boolean; is_max_value_exact?: boolean;
    } } }[];
  }[];
}

/**
 * Statistics of `target`'s top-level columns from a footer read with RAW_PARSERS. A column the
 * footer cannot give exactly is listed in `decode` instead: a list, a float or double (no NaN
 * count), a decimal stored as fixed-length bytes (hyparquet turns those into floats; one stored
 * as INT32/INT64 is its exact unscaled value), missing or truncated statistics.
 */
function statsFromFooter(md: FooterMetadata, target: arrow.Schema, types: Map<number, string>, boundsOnly = false): { stats: Map<number, ColumnStats>; decode: Set<number> } {
  const stats = new Map<number, ColumnStats>();
  const decode = new Set<number>();
  const integral = (t: string) => t === 'long' || t === 'time' || t.startsWith('timestamp') || t.startsWith('decimal');
  target.fields.forEach((f) => {
    const id = Number(f.metadata.get(FIELD_ID));
    const t = types.get(id) ?? '';
    if (!t || t === 'float' || t === 'double') { decode.add(id); return; }
    let st: ColumnStats = { ...emptyStats(), valueCount: 0 };
    for (const rg of md.row_groups) {
      const meta = rg.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === f.name)?.meta_data;
      const s = meta?.statistics;
      const n = Number(rg.num_rows);
      if (!meta || !s || s.null_count === undefined || (t.startsWith('decimal') && meta.type !== 'INT32' && meta.type !== 'INT64')) { decode.add(id); return; }
      const nulls = Number(s.null_count);
      const cur: ColumnStats = { valueCount: n, nullCount: nulls, nanCount: 0, min: null, max: null };
      if (nulls < n) {
        if (s.min_value === undefined || s.max_value === undefined) { decode.add(id); return; }
        const exact = (v: unknown, flag?: boolean) => flag !== false || (boundsOnly && keepsBound(t, v));
        if (!exact(s.min_value, s.is_min_value_exact) || !exact(s.max_value, s.is_max_value_exact)) { decode.add(id); return; }
        const conv = (v: unknown): Comparable | null => {
          if (typeof v === 'boolean') return v ? 1 : 0;
          if (v instanceof Uint8Array) return v.slice();
          if (typeof v === 'bigint') return integral(t) ? v : null;
          if (typeof v === 'number') return integral(t) ? BigInt(v) : v;
          return null;
        };
        cur.min = conv(s.min_value); cur.max = conv(s.max_value);
        if (cur.min === null || cur.max === null) { decode.add(id); return; }
      }
      st = mergeStats(st, cur);
    }
    stats.set(id, st);
  });
  return { stats, decode };
}

/**
 * Whether a truncated footer value of a string or binary column still gives the exact Iceberg bound
 * (`encodeBound`, which keeps BOUND_TRUNCATE characters or bytes): the footer's minimum is a prefix
 * of the true minimum, and its maximum is a prefix of the true maximum with its last character
 * incremented; while that value is longer than the bound keeps, its head is the true value's head,
 * and so is the bound made from it.
 */
function keepsBound(type: string, v: unknown): boolean {
  if (!(v instanceof Uint8Array)) return false;
  if (type === 'binary') return v.length > BOUND_TRUNCATE;
  if (type !== 'string') return false;
  let chars = 0;
  for (const byte of v) if ((byte & 0xc0) !== 0x80 && ++chars > BOUND_TRUNCATE) return true;
  return false;
}

/**
 * The top-level fields whose statistics a footer never gives exactly (see `statsFromFooter`): lists
 * and other nested columns, floats and doubles, decimals stored as fixed-length bytes. A writer
 * scans these in its rows (`statsOf`) before they go to the encoder.
 */
export function scannedByType(schema: arrow.Schema, types: Map<number, string>): arrow.Schema {
  return new arrow.Schema(schema.fields.filter((f) => {
    const t = types.get(Number(f.metadata.get(FIELD_ID))) ?? '';
    const dec = parseDecimal(t);
    return !t || t === 'float' || t === 'double' || (dec !== null && dec.precision > 18);
  }));
}

/** Batches narrowed to `fields` (a subset of their schema's, by name). */
export function narrowBatches(fields: arrow.Schema, batches: arrow.RecordBatch[]): arrow.RecordBatch[] {
  return batches.map((b) => {
    const children = fields.fields.map((f) => b.data.children[b.schema.fields.findIndex((g) => g.name === f.name)]);
    return new arrow.RecordBatch(fields, arrow.makeData({ type: new arrow.Struct(fields.fields), length: b.numRows, nullCount: 0, children }));
  });
}

/**
 * The statistics and compressed column sizes (by top-level name) of a file just encoded: read
 * from its footer, which the encoder filled while it wrote. `prescanned`: the statistics of the
 * `scannedByType` columns, computed from the rows by the caller; a column the footer could not give
 * for this file's data (a string whose truncated statistics no longer give the bound) is decoded
 * from the file. Scanning every column instead cost the lake's append about a sixth of its CPU.
 * The statistics are for the manifest's bounds: a long string's may be the truncated footer value
 * that gives the same bound. No `prescanned`: sizes only (the caller has the statistics).
 */
export async function writtenFileFacts(bytes: Uint8Array, schema: arrow.Schema, types: Map<number, string>, prescanned: Map<number, ColumnStats> | null): Promise<{ stats: Map<number, ColumnStats>; columnSizes: Map<string, number>; decoded: Set<number> }> {
  const { parquetMetadata } = await import('hyparquet');
  const buf = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer as ArrayBuffer : bytes.slice().buffer;
  const md = parquetMetadata(buf, { parsers: RAW_PARSERS as never }) as unknown as FooterMetadata;
  const columnSizes = new Map<string, number>();
  for (const rg of md.row_groups) for (const c of rg.columns) {
    const m = c.meta_data;
    if (m) columnSizes.set(m.path_in_schema[0], (columnSizes.get(m.path_in_schema[0]) ?? 0) + Number(m.total_compressed_size));
  }
  if (!prescanned) return { stats: new Map(), columnSizes, decoded: new Set() };
  const { stats, decode } = statsFromFooter(md, schema, types, true);
  const byType = new Set(scannedByType(schema, types).fields.map((f) => Number(f.metadata.get(FIELD_ID))));
  for (const [id, st] of prescanned) stats.set(id, st);
  const left = new Set([...decode].filter((id) => !byType.has(id)));
  if (left.size) {
    const acc = new Map([...left].map((id) => [id, emptyStats()]));
    for await (const b of readParquetBatches(bytes, 'a file just written', { fieldIds: left })) {
      b.schema.fields.forEach((f, c) => {
        const id = Number(f.metadata.get(FIELD_ID));
        if (acc.has(id)) acc.set(id, mergeStats(acc.get(id)!, columnStats(b.data.children[c], types.get(id)!)));
      });
    }
    for (const [id, st] of acc) stats.set(id, st);
  }
  return { stats, columnSizes, decoded: left };
}
