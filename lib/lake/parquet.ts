/**
 * Parquet I/O through parquet-wasm: Arrow batches (already conformed to the
 * table schema, each field carrying `PARQUET:field_id`) → one Parquet file,
 * and one Parquet file → Arrow batches, one row group at a time so memory is
 * bounded by the row group, not the file.
 */
import * as arrow from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { columnStats, emptyStats, mergeStats, type ColumnStats } from './bounds';
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

const CODECS: Record<Codec, pw.Compression> = {
  zstd: pw.Compression.ZSTD, snappy: pw.Compression.SNAPPY, gzip: pw.Compression.GZIP, uncompressed: pw.Compression.UNCOMPRESSED,
};

export function codecOf(name: string | undefined): Codec {
  const c = (name ?? 'zstd').toLowerCase();
  if (c === 'none') return 'uncompressed';
  if (c in CODECS) return c as Codec;
  throw new Error(`lake: unsupported write.parquet.compression-codec ${name}`);
}

/** Encode batches of one schema into a Parquet file. */
export function encodeParquet(schema: arrow.Schema, batches: arrow.RecordBatch[], opts: EncodeOptions = {}): Uint8Array {
  const ipc = arrow.tableToIPC(new arrow.Table(schema, batches), 'stream');
  const table = pw.Table.fromIPCStream(ipc);
  let b = new pw.WriterPropertiesBuilder()
    .setCompression(CODECS[opts.codec ?? 'zstd'])
    .setMaxRowGroupSize(opts.rowGroupRows ?? 262_144)
    .setCreatedBy('tributary lake (parquet-wasm 0.8)');
  if (opts.keyValue) b = b.setKeyValueMetadata(new Map(Object.entries(opts.keyValue)));
  return pw.writeParquet(table, b.build());
}

/** Statistics by field id over batches (which carry `PARQUET:field_id`). */
export function statsOf(schema: arrow.Schema, batches: arrow.RecordBatch[], types: Map<number, string>): Map<number, ColumnStats> {
  const out = new Map<number, ColumnStats>();
  schema.fields.forEach((f, c) => {
    const id = Number(f.metadata.get(FIELD_ID));
    const type = types.get(id)!;
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
export async function* readParquetBatches(bytes: Uint8Array, what: string, opts: { fieldIds?: Set<number>; batchSize?: number } = {}): AsyncGenerator<arrow.RecordBatch> {
  let pf: pw.ParquetFile;
  let groups: number;
  let columns: string[] | undefined;
  try {
    pf = await pw.ParquetFile.fromFile(new Blob([bytes as Uint8Array<ArrayBuffer>]));
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
    throw new Error(`lake: corrupt Parquet file ${what}: ${(e as Error).message}`, { cause: e });
  }
  try {
    for (let rg = 0; rg < groups; rg++) {
      let t: arrow.Table;
      try {
        const wt = await pf.read({ rowGroups: [rg], batchSize: opts.batchSize ?? 65_536, ...(columns ? { columns } : {}) });
        t = arrow.tableFromIPC(wt.intoIPCStream());
      } catch (e) {
        throw new Error(`lake: cannot read Parquet file ${what}: ${(e as Error).message}`, { cause: e });
      }
      for (const b of t.batches) yield b;
    }
  } finally { pf.free(); }
}
