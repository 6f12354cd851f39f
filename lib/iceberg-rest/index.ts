// The Iceberg REST catalog (read-only) that the web process serves under /iceberg/v1,
// so Spark, Trino, DuckDB, pyiceberg and ClickHouse attach to Tributary's lake.
export { handleIcebergRest, ENDPOINTS, type IcebergRestDeps } from './catalog';
export { storageProperties } from './storage-properties';
