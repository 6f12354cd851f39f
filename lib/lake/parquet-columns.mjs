// Plain JS, shared by parquet.ts and the Parquet worker thread (parquet-worker.mjs), which runs
// without a TypeScript loader; types in parquet-columns.d.mts.

/** The Parquet field-id key of an Arrow field's metadata (parquet-wasm's, and schema.ts' FIELD_ID). */
const FIELD_ID = 'PARQUET:field_id';

/**
 * The names of a file's columns whose field ids are in `fieldIds`, for a reader's column
 * projection; undefined (read every column) when a column has no field id. When none is wanted
 * the first column is still read: it gives the row count.
 */
export function columnsForFieldIds(fields, fieldIds) {
  const withIds = fields.filter((f) => f.metadata.has(FIELD_ID));
  if (withIds.length !== fields.length) return undefined;
  const columns = withIds.filter((f) => fieldIds.has(Number(f.metadata.get(FIELD_ID)))).map((f) => f.name);
  return columns.length ? columns : [fields[0].name];
}
