import * as arrow from 'apache-arrow';

/**
 * Top-level columns stored as INT32/INT64 (integers, dates, times, timestamps; not decimals),
 * which every Parquet file Tributary writes — the lake's data files and lib/etl's staged files,
 * which become data files as they are — encodes DELTA_BINARY_PACKED (writerProperties'
 * `deltaColumns`: why there).
 */
export function deltaColumns(schema: arrow.Schema): string[] {
  const ints = new Set([arrow.Type.Int, arrow.Type.Date, arrow.Type.Time, arrow.Type.Timestamp]);
  return schema.fields.filter((f) => ints.has(f.type.typeId)).map((f) => f.name);
}
