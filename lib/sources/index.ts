/**
 * Source dialects (Oracle, Postgres, synthetic): opening a source from its
 * descriptor, pools with backoff, Postgres TLS per sslmode, the one oracledb
 * loader, query rendering with binds, type mapping, batched Arrow reads, split
 * boundaries, EXPLAIN, watermarks (SCN/LSN). Public entry of `lib/sources/`.
 */
export type { BranchSource, Bind, ColumnType, PrimitiveType, ConstValue, Dialect, ReadStats, ReadTarget, RenderedQuery, SourceColumn, TargetField, TrackedMax } from './types';
export { renderQuery, renderDescribe, renderNumericProfile, trackedColumns, normalizeTimestampText, bindValues, HELPER_CDC, HELPER_DATE, type QuerySpec, type FilterInput, type Mode, type RenderDialect } from './render';
export { canonicalColumn } from './identifiers';
export { toJulianDay, fromJulianDay } from './julian';
export { toArrowType, fromArrowType, typeToString, sameType } from './arrow-types';
export { createPostgresSource, type PostgresBranchOptions } from './postgres-source';
export { createPgClient, createPgPool, pgClientClass, planPgTls, probeTls, sessionUsesTls, SSL_MODES, type SslMode, type PgTlsSettings, type PgConnectConfig, type PgPoolConfig } from '../db/pg-connect';
export { copyOut, CopyOutQuery } from './pg-copy-out';
export { copyIn, CopyInQuery } from './pg-copy-in';
export { createOracleSource, type OracleBranchOptions } from './oracle-source';
export { loadOracle, type OracleDriver, type OracleDriverOptions, type OracleConnection, type OraclePool } from './oracle-driver';
export { oracleConnectString, resolveOracleClientLibDir, pickOracleClientLibDir, type OracleDsnParams } from './oracle-config';
export { describeSource, pgConfigOf, postgresUrl, sourceDsn, type SourceDescriptor, type PostgresDescriptor, type OracleDescriptor } from './descriptor';
export { openSource, openSourceExecutor, openSourceDialect, openSourceQuery, postgresBranchOptions, oracleBranchOptions, type OpenSourceOptions, type OpenDialectOptions, type SourceQuery } from './open-source';
export type { SourceExecutor, StatementLogEntry, QueryOptions, TimedFetch, Purpose } from './source-executor';
export type { SourceDialect, ColumnCandidate, ColumnKind, ExplainResult, PartitionSlice, PhysicalPlan, PhysicalRange } from './dialect';
export { PostgresDialect, ctidRanges } from './postgres-dialect';
export { OracleDialect, summarizeOraclePlan, type RowidMethod } from './oracle-dialect';
export * as oracleSplitSql from './oracle-dialect-sql';
export { createPgExecutor, type PgExecutorOptions } from './postgres-executor';
export { createOracleExecutor, type OracleSourceConfig } from './oracle-executor';
export { columnPredicates, equiDepthBounds } from './column-range';
export { captureWatermark, WATERMARK_SQL, type Watermark } from './watermark';
export { primaryKeyOf, primaryKeySql } from './primary-key';
export { oracleColumnType } from './oracle-types';
export { pgColumnType } from './pg-types';
export { createSyntheticSource, SYNTHETIC_TABLES } from './synthetic-source';
export { ColumnBuilder, assembleBatch, constantColumn } from './batch-builder';
export { RowAssembler } from './row-assembler';
export { formatMicros, parseTimestampMicros, wallClockMicros, scaledToText } from './values';
export { listSchemas, listCatalogTables, watermarkCandidates, type CatalogTable, type CatalogColumn } from './catalog';
export { lakeKeys, lakeNameOf, matchName, namedColumn, targetFields } from './lake-names';
export { unionSchemas, widen, inferNumeric, SchemaUnionError, type Drift, type UnionColumn } from './schema-union';
