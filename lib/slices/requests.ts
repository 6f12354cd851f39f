import { z } from 'zod';
import { readDecimal } from '../config/number-text';

/**
 * One request schema per slices action, shared by the CLI (its flags map to
 * these fields, camelCased) and the job payloads (`slices.<action>`). Pure zod,
 * no engine imports: the web process validates payloads with these alone.
 *
 * Security: no field carries an endpoint, a host or a credential. The source,
 * target and Striim come from connections named here (stored ones, or the
 * environment's read-only `env:source` / `env:striim`); the CLI turns its
 * `--source-url` / `--target-url` / `--striim-url` into transient connections
 * that never reach a job. File fields are paths a job may only use under the
 * data folder (checked when the action runs), or inline text.
 */

// CLI flags arrive as strings: numbers may be given as numeric text (read as everywhere, lib/config/number-text.ts);
// anything else is left for the schema to refuse with the seed's wording.
const numeric = (v: unknown) => (typeof v === 'string' ? readDecimal(v) ?? v : v);
const int = (min: number, max: number) => z.preprocess(numeric, z.number({ error: 'must be an integer' })
  .int('must be an integer').min(min, `must be >= ${min}`).max(max, `must be <= ${max}`));
const num = (min: number, max: number) => z.preprocess(numeric, z.number({ error: 'must be a number' })
  .min(min, `must be >= ${min}`).max(max, `must be <= ${max}`));

/** Planning counts and budgets, with the seed's wording (`argument --chunks: must be a positive integer (>= 1)`). */
const POSITIVE = 'must be a positive integer (>= 1)';
const posInt = (max: number) => z.preprocess(numeric, z.number({ error: POSITIVE }).int(POSITIVE).min(1, POSITIVE).max(max, `must be <= ${max}`));
/** One of a list, case-insensitive, with the seed's wording (`invalid choice: 'deep' (choose from …)`). */
const choice = <T extends string>(list: readonly [T, ...T[]]) => z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(list, { error: (i) => `invalid choice: '${String(i.input ?? '')}' (choose from ${list.join(', ')})` }));

const runId = int(1, 2_147_483_647);
/** A connection's name (see `tributary connections list`; `env:source`, `env:striim` are built in). */
const connectionName = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'must be a connection name (letters, digits and _ . : -)');
/** A file path: anywhere for the CLI; under the data folder for a job. */
const filePath = z.string().min(1).max(4096);
const engine = z.enum(['oracle', 'postgres'], { error: 'must be oracle or postgres' });
const MAX_TEXT = 16 * 1024 * 1024;

const StriimFields = {
  striimConnection: connectionName.optional().describe('Striim connection (kind striim) for the apps and cleanup. (Default: env:striim)'),
};

export const RunRequest = z.strictObject({
  runId: runId.describe('The slice run to execute (its run id).'),
  connection: connectionName.optional().describe('Source connection (watermark, native reads). (Default: env:source)'),
  targetConnection: connectionName.optional().describe('Postgres target connection of the native executor. (Default: SLICES_TARGET_URL)'),
  ...StriimFields,
  queryFile: filePath.optional().describe('Queryfile path (`SQL|TARGET` lines), for a fresh run.'),
  queryFileText: z.string().min(1).max(MAX_TEXT).optional().describe("The queryfile's contents inline, instead of queryFile."),
  template: filePath.optional().describe('TQL template path (`--template`). (Default: SOURCE_TQL_FILE, else the built-in admin.SW.tql)'),
  templateText: z.string().min(1).max(MAX_TEXT).optional().describe('The TQL template inline, instead of template.'),
  executor: z.enum(['striim', 'native'], { error: 'must be striim or native' }).optional().describe('striim | native. (Default: SLICES_EXECUTOR, else striim)'),
  concurrency: int(1, 256).optional().describe('Slices in flight, 1–256. (Default: CONCURRENT_APPS_MAX, else 5)'),
  monitorInterval: num(0, 86_400).optional().describe('`mon` poll interval, seconds, 0–86400. (Default: 15 DEV / 60 PROD)'),
  deployWait: num(0, 86_400).optional().describe('Pause between deploys, seconds, 0–86400. (Default: 20 DEV / 120 PROD)'),
  stallTimeout: num(0, 2_592_000).optional().describe('Stall timeout, seconds, 0 = off, up to 30 days. (Default: 0)'),
  maxAttempts: int(1, 100).optional().describe('Attempts before QUARANTINED, 1–100. (Default: 3)'),
  retryFailed: z.boolean().optional().meta({ cliNegated: true }).describe('Re-dispatch FAILED slices within the run. (Default: true)'),
  retryDelay: num(0, 86_400).optional().describe('Wait before re-dispatching, seconds, 0–86400, doubled per attempt. (Default: 30)'),
  deploymentGroup: z.string().regex(/^\w{1,64}$/, 'must be a plain name').optional().describe('Striim deployment group. (Default: default)'),
  logDir: filePath.optional().describe('Folder of the watermark sidecar. (Default: <data>/slices/logging)'),
  sourceEngine: engine.optional().describe('Source database engine: oracle or postgres. (Default: SOURCE_DB_TYPE)'),
  targetEngine: engine.optional().describe('Target database engine: oracle or postgres. (Default: TARGET_DB_TYPE, else the source engine)'),
  targetLake: z.string().min(1).max(4096).optional().describe('Native executor: merge into the lake ("default" = TRIBUTARY_WAREHOUSE; a job may name only that one).'),
  mergeKeys: z.string().max(1000).regex(/^[\w$#]+( *, *[\w$#]+)*$/, 'must be comma-separated column names').optional().describe('Lake merge keys, comma-separated column names.'),
  batchRows: int(1, 10_000_000).optional().describe('Native: rows per upsert batch, 1–10000000. (Default: 50000)'),
  snapshot: z.boolean().optional().meta({ cliNegated: true }).describe('Native: share one exported snapshot across slices. (Default: true)'),
  forceFresh: z.boolean().optional().describe('Start fresh even if the run had rows. (Default: false)'),
  striimRetries: int(0, 100).optional().describe('Retries of Striim network errors and 5xx, 0–100. (Default: 5)'),
  backoffBase: num(0, 600_000).optional().describe('First Striim retry delay, ms, 0–600000. (Default: 1000)'),
  backoffMax: num(0, 3_600_000).optional().describe('Striim retry delay ceiling, ms, 0–3600000. (Default: 30000)'),
}).refine((r) => !(r.queryFile && r.queryFileText), { message: 'pass either queryFile or queryFileText, not both', path: ['queryFileText'] })
  .refine((r) => !(r.template && r.templateText), { message: 'pass either template or templateText, not both', path: ['templateText'] });
export type RunRequest = z.infer<typeof RunRequest>;

export const ResetRequest = z.strictObject({
  runId: runId.describe('The slice run to reset (its run id).'),
  includeFaileddrop: z.boolean().optional().describe('Also re-queue COMPLETED-FAILEDDROP slices. (Default: false)'),
  includeQuarantined: z.boolean().optional().describe('Also re-queue QUARANTINED slices. (Default: false)'),
  withStriimCleanup: z.boolean().optional().describe("Stop/undeploy/drop the run's leftover apps first. (Default: false)"),
  ...StriimFields,
});
export type ResetRequest = z.infer<typeof ResetRequest>;

export const ClearRequest = z.strictObject({
  runId: runId.describe('The slice run to clear (its run id).'),
  hard: z.boolean().optional().describe("Hard-delete the run's rows instead of retiring them. (Default: false)"),
  withStriimCleanup: z.boolean().optional().describe("Also stop, undeploy and drop the run's leftover Striim apps. (Default: false)"),
  ...StriimFields,
});
export type ClearRequest = z.infer<typeof ClearRequest>;

export const ReconcileRequest = z.strictObject({
  runId: runId.describe('The slice run to reconcile (its run id).'),
  connection: connectionName.optional().describe('Source connection to count. (Default: env:source)'),
  sourceEngine: engine.optional().describe("Source database engine: oracle or postgres. (Default: the run's)"),
  targetConnection: connectionName.optional().describe('Postgres target connection to count. (Default: SLICES_TARGET_URL)'),
  targetLake: z.string().min(1).max(4096).optional().describe('Count the lake tables instead ("default" = TRIBUTARY_WAREHOUSE; a job may name only that one).'),
});
export type ReconcileRequest = z.infer<typeof ReconcileRequest>;

export const StatusRequest = z.strictObject({
  runId: runId.optional().describe('One run. (Default: UNIQUE_RUN_ID, else every run)'),
  allRuns: z.boolean().optional().describe('Every run in the state table. (Default: false)'),
  failed: z.boolean().optional().describe('Only FAILED / QUARANTINED slices.'),
  rows: z.boolean().optional().describe('Individual slice rows.'),
});
export type StatusRequest = z.infer<typeof StatusRequest>;

export const BoardRequest = z.strictObject({
  runId: runId.describe('The slice run to show (its run id).'),
  striim: z.boolean().optional().meta({ cliNegated: true }).describe('Ask Striim for live rates. (Default: true when the run uses Striim and Striim is configured)'),
  ...StriimFields,
});
export type BoardRequest = z.infer<typeof BoardRequest>;

const TemplateFields = {
  query: z.string().min(1).max(MAX_TEXT).optional().describe('The SQL template with ~SPLIT~ inline.'),
  queryFile: filePath.optional().describe('A file holding the SQL template, instead of query.'),
  table: z.string().min(1).max(300).describe('Driving (splitting) table, OWNER.TABLE.'),
  alias: z.string().min(1).max(128).optional().describe('Driving-table alias in the query. (Default: detected from the query)'),
  connection: connectionName.optional().describe('Source connection (oracle or postgres). (Default: env:source)'),
  sourceEngine: choice(['oracle', 'postgres', 'sqlserver', 'jdbc']).optional().describe('Source engine: oracle or postgres (sqlserver, jdbc: not yet). (Default: SOURCE_DB_TYPE, else oracle)'),
};

export const ProbeRequest = z.strictObject({
  ...TemplateFields,
  depth: choice(['lightweight', 'bakeoff', 'adaptive']).optional().describe('lightweight | bakeoff | adaptive. (Default: PROBE_DEPTH_DEFAULT, else bakeoff)'),
  targetSliceSeconds: posInt(604_800).optional().describe('Desired per-slice runtime, seconds. (Default: 600)'),
  sampleRows: posInt(100_000_000).optional().describe('Row cap of every timing query. (Default: 100000)'),
  timeBudgetSeconds: posInt(86_400).optional().describe('Wall-clock cap of every timing query, seconds. (Default: 20)'),
  maxConcurrency: posInt(256).optional().describe('Ceiling of the adaptive concurrency ramp. (Default: 32)'),
  runId: posInt(2_147_483_647).optional().describe('Run the recommendation belongs to; stored in <data>/runs/<runId>/. (Default: UNIQUE_RUN_ID, else none)'),
  outputDir: filePath.optional().describe('Folder for probe_recommendation.json. (Default: <data>/runs/<runId>/)'),
});
export type ProbeRequestInput = z.infer<typeof ProbeRequest>;

export const SplitRequest = z.strictObject({
  ...TemplateFields,
  target: z.string().min(1).max(300).describe('Target table written on each queryfile line, OWNER.TABLE.'),
  strategy: choice(['auto', 'rowid', 'column', 'partition']).optional().describe('auto | rowid | column | partition. (Default: auto)'),
  column: z.string().min(1).max(128).optional().describe('Split column for the column strategy (numeric, date or timestamp; may be alias.col).'),
  chunks: posInt(1_000_000).optional().describe('Number of slices, 1–1000000.'),
  subpartitions: z.boolean().optional().describe('One slice per subpartition or leaf partition (partition strategy). (Default: false)'),
  assort: z.boolean().optional().describe('Interleave slices so each wave spans the whole range. (Default: false)'),
  waveSize: posInt(256).optional().describe('Wave size for assort, 1–256. (Default: CONCURRENT_APPS_MAX, else 5)'),
  explain: z.boolean().optional().describe('Print the access path of the first slice. (Default: false)'),
  asOfScn: z.string().trim().regex(/^(\d{1,30}|current)$/i, { error: (i) => `must be a positive integer SCN or 'current', got '${String(i.input)}'` }).optional().describe("Oracle: read every slice AS OF this SCN; 'current' captures it now."),
  sampleRows: posInt(100_000_000).optional().describe('Values sampled for column boundaries. (Default: PROBE_SAMPLE_ROWS, else 100000)'),
  runId: posInt(2_147_483_647).optional().describe('Run to register under. (Default: UNIQUE_RUN_ID; none = file only)'),
  output: filePath.optional().describe('Queryfile to write. (Default: queryfile.txt; for a job <data>/runs/<runId>/queryfile.txt)'),
});
export type SplitRequestInput = z.infer<typeof SplitRequest>;

export const AssortRequest = z.strictObject({
  input: filePath.optional().describe('Queryfile to read. (Default: queryfile.txt)'),
  output: filePath.optional().describe('Queryfile to write. (Default: queryfile-assorted.txt)'),
  waveSize: posInt(256).optional().describe('Apps per wave, 1–256. (Default: CONCURRENT_APPS_MAX, else 5)'),
});
export type AssortRequest = z.infer<typeof AssortRequest>;
