/** The multi-branch extract/load engine. Public entry of `lib/etl/`. */
export { runEtl, selectTables, selectBranches, EtlUsageError, type BranchHandle, type EtlRunSummary, type UnitResult, type RunEtlDeps } from './runner';
export { executeEtl, resolveTables, type EtlContext, type EtlOverrides } from './execute';
export { EtlRequest, etlSettingsOf } from './request';
export { loadTablesConfig, parseTablesConfig, TablesConfigError, WHERE_OPERATORS, type TableDef, type TableEntry } from './tables-config';
export { unionSchemas, widen, SchemaUnionError, type Drift, type UnionColumn } from './schema-union';
export { listEtlControl, listEtlRuns, getWatermarks, type Watermark } from './control';
export { DEFAULT_SETTINGS, cutoverMessage, type EtlSettings } from './settings';
export { lakeTarget, lakeArrowSchema, BRANCH_ID, INSERT_AT, RECORDED_UPDATED_AT, type LakeTarget } from './lake-target';
export { branchHandles, syntheticBranches } from './branches';
