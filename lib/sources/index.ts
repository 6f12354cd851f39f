/**
 * Source dialects (Oracle, Postgres, synthetic): pools with backoff, query
 * rendering with binds, type mapping, batched Arrow reads, watermarks.
 * Public entry of `lib/sources/`.
 */
export type { BranchSource, Bind, ColumnType, ConstValue, Dialect, ReadStats, ReadTarget, RenderedQuery, SourceColumn, TargetField, TrackedMax } from './types';
export { renderQuery, renderDescribe, renderNumericProfile, trackedColumns, normalizeTimestampText, bindValues, HELPER_CDC, HELPER_DATE, type QuerySpec, type FilterInput, type Mode, type RenderDialect } from './render';
export { canonicalColumn } from './identifiers';
export { toJulianDay, fromJulianDay } from './julian';
export { toArrowType, fromArrowType, typeToString, sameType } from './arrow-types';
export { createPostgresSource, type PostgresBranchOptions } from './postgres-source';
export { createOracleSource, loadOracleThick, type OracleBranchOptions } from './oracle-source';
export { oracleConnectString, resolveOracleClientLibDir, type OracleDsnParams } from './oracle-config';
export { oracleColumnType } from './oracle-types';
export { pgColumnType } from './pg-types';
export { createSyntheticSource, SYNTHETIC_TABLES } from './synthetic-source';
export { SlotPool, sleep, waitForSlot } from './backoff';
export { ColumnBuilder, assembleBatch, constantColumn } from './batch-builder';
export { RowAssembler } from './row-assembler';
export { formatMicros, parseTimestampMicros, wallClockMicros, scaledToText } from './values';
