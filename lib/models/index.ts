/**
 * SQL models over the lake, materialised in ClickHouse (embedded chdb or a
 * server): dbt's project format, template subset, selection syntax and
 * run / test / build / compile. Public entry of `lib/models/`.
 */
export { compileModels, compileModelsConfined, ensureModelsProject, loadModelsProject, loadModelsProjectConfined, projectDir, queryModels, resolveTarget, runModelsCommand, chdbStateDir, EMBEDDED, type ModelsDeps } from './service';
export { readProjectFiles, writeProjectFile, deleteProjectFile, checkProjectPath } from './project-dir';
export { listResults, lastResults, type StoredResult } from './results-store';
export { projectView, type ProjectView } from './project-view';
export { layoutDag, type DagLayout } from './dag-layout';
export { ModelsPayload, ModelsQueryPayload } from './jobs';
export { readOnlyQuery, queryLimits, QUERY_ROW_LIMIT, QUERY_LIMITS } from './read-only-query';
export { checkSql, lakeRoots, SQL_REFUSED } from './sql-guard';
export type { NodeResult, RunSummary, Command as ModelsCommand } from './types';
