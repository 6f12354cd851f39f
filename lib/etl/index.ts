/** The multi-branch extract/load engine. Public entry of `lib/etl/`. */
export { runEtl, type RunEtlDeps } from './runner';
export { selectBranches, EtlUsageError } from './select-branches';
export type { BranchHandle, EtlRunSummary, UnitResult } from './run-types';
export { executeEtl, resolveTables, type EtlContext, type EtlOverrides } from './execute';
export { EtlRequest, etlSettingsOf } from './request';
export { unionSchemas, widen, SchemaUnionError, type Drift, type UnionColumn } from '../sources';
export { listEtlControl, listEtlRuns, type Watermark } from './control';
export { DEFAULT_SETTINGS, cutoverMessage, type EtlSettings } from './settings';
export { lakeTarget, lakeArrowSchema, type LakeTarget } from './lake-target';
export { branchHandles, syntheticBranches } from './branches';
// tables.json is the config layer's (lib/config/tables-json.ts); re-exported because runEtl takes its TableDefs
export { loadTablesConfig, parseTablesConfig, TablesConfigError, type TableDef } from '../config/tables-json';
export { selectTables } from '../config/select-tables';
