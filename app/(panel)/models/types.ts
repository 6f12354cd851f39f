/** Shapes the Models page reads from /api/v1/models (kept loose: the server is the source of truth). */
export interface LastRun { status: string; rows: number | null; durationMs: number; error?: string; runId: string; createdAt: string }
export interface ProjectModel { name: string; path: string; materialized: string; tags: string[]; refs: string[]; sources: string[]; description?: string; columns?: { name: string; description?: string; data_type?: string }[]; last: LastRun | null }
export interface ProjectTest { name: string; path: string; model?: string; refs: string[]; severity: string; type: string; last: LastRun | null }
export interface ProjectSeed { name: string; path: string; tags: string[]; description?: string; columns?: { name: string; description?: string; data_type?: string }[]; last: LastRun | null }
export interface ProjectData {
  root: string; name: string;
  files: { path: string; kind: 'model' | 'seed' | 'schema' | 'docs' | 'test' | 'macro' | 'project' }[];
  models: ProjectModel[]; tests: ProjectTest[]; seeds: ProjectSeed[];
  errors: { path: string; message: string }[];
  warnings: { path: string; message: string }[];
}
export interface NodeResult {
  runId: string; command: string; name: string; kind: 'model' | 'test' | 'seed'; status: string; materialized?: string;
  rows: number | null; durationMs: number; sql?: string; error?: string; failingRows?: Record<string, unknown>[]; skippedBecause?: string; createdAt: string;
}
