import type * as pw from 'parquet-wasm';

export type ParquetCompression = 'zstd' | 'snappy' | 'gzip' | 'uncompressed' | 'lz4';

export interface WriterPropertiesOptions {
  /** (Default: zstd) */
  compression?: ParquetCompression;
  /** Dictionary encoding (pages capped at DICTIONARY_PAGE_LIMIT). (Default: true) */
  dictionary?: boolean;
  /** Rows per row group. (Default: 262144) */
  rowGroupRows?: number;
  /** Footer key/value metadata (e.g. `iceberg.schema`). (Default: none) */
  keyValue?: Record<string, string>;
  /** Top-level integer-like columns (INT32/INT64 physical types) whose non-dictionary pages use DELTA_BINARY_PACKED. (Default: none: plain) */
  deltaColumns?: string[];
  /** The footer's `created_by`. (Default: parquet-wasm's) */
  createdBy?: string;
}

export declare const DICTIONARY_PAGE_LIMIT: number;

/** Writer properties for `pw.writeParquet`, built with the parquet-wasm module `pwModule` the file is written with. */
export declare function writerProperties(pwModule: Pick<typeof pw, 'WriterPropertiesBuilder' | 'Compression' | 'Encoding'>, o?: WriterPropertiesOptions): pw.WriterProperties;
