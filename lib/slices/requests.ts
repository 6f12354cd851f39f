import { z } from 'zod';

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

// CLI flags arrive as strings: numbers may be given as numeric text.
const numeric = (v: unknown) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v);
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
  /** Striim connection (kind striim) for the apps and cleanup. (Default: env:striim) */
  striimConnection: connectionName.optional(),
};

export const RunRequest = z.strictObject({
  runId,
  /** Source connection (watermark, native reads). (Default: env:source) */
  connection: connectionName.optional(),
  /** Postgres target connection of the native executor. (Default: SLICES_TARGET_URL) */
  targetConnection: connectionName.optional(),
  ...StriimFields,
  /** Queryfile path (`SQL|TARGET` lines), for a fresh run. */
  queryFile: filePath.optional(),
  /** Or its contents inline. */
  queryFileText: z.string().min(1).max(MAX_TEXT).optional(),
  /** TQL template path (`--template`). (Default: SOURCE_TQL_FILE, else the built-in admin.SW.tql) */
  template: filePath.optional(),
  /** Or the template inline. */
  templateText: z.string().min(1).max(MAX_TEXT).optional(),
  /** striim | native. (Default: SLICES_EXECUTOR, else striim) */
  executor: z.enum(['striim', 'native'], { error: 'must be striim or native' }).optional(),
  /** Slices in flight, 1–256. (Default: CONCURRENT_APPS_MAX, else 5) */
  concurrency: int(1, 256).optional(),
  /** `mon` poll interval, seconds, 0–86400. (Default: 15 DEV / 60 PROD) */
  monitorInterval: num(0, 86_400).optional(),
  /** Pause between deploys, seconds, 0–86400. (Default: 20 DEV / 120 PROD) */
  deployWait: num(0, 86_400).optional(),
  /** Stall timeout, seconds, 0 = off, up to 30 days. (Default: 0) */
  stallTimeout: num(0, 2_592_000).optional(),
  /** Attempts before QUARANTINED, 1–100. (Default: 3) */
  maxAttempts: int(1, 100).optional(),
  /** Re-dispatch FAILED slices within the run. (Default: true) */
  retryFailed: z.boolean().optional().meta({ cliNegated: true }),
  /** Wait before re-dispatching, seconds, 0–86400, doubled per attempt. (Default: 30) */
  retryDelay: num(0, 86_400).optional(),
  /** Striim deployment group. (Default: default) */
  deploymentGroup: z.string().regex(/^\w{1,64}$/, 'must be a plain name').optional(),
  /** Folder of the watermark sidecar. (Default: <data>/slices/logging) */
  logDir: filePath.optional(),
  sourceEngine: engine.optional(),
  targetEngine: engine.optional(),
  /** Native executor: merge into the lake ("default" = TRIBUTARY_WAREHOUSE; a job may name only that one). */
  targetLake: z.string().min(1).max(4096).optional(),
  /** Lake merge keys, comma-separated column names. */
  mergeKeys: z.string().max(1000).regex(/^[\w$#]+( *, *[\w$#]+)*$/, 'must be comma-separated column names').optional(),
  /** Native: rows per upsert batch, 1–10000000. (Default: 50000) */
  batchRows: int(1, 10_000_000).optional(),
  /** Native: share one exported snapshot across slices. (Default: true) */
  snapshot: z.boolean().optional().meta({ cliNegated: true }),
  /** Start fresh even if the run had rows. (Default: false) */
  forceFresh: z.boolean().optional(),
  /** Retries of Striim network errors and 5xx, 0–100. (Default: 5) */
  striimRetries: int(0, 100).optional(),
  /** First Striim retry delay, ms, 0–600000. (Default: 1000) */
  backoffBase: num(0, 600_000).optional(),
  /** Striim retry delay ceiling, ms, 0–3600000. (Default: 30000) */
  backoffMax: num(0, 3_600_000).optional(),
}).refine((r) => !(r.queryFile && r.queryFileText), { message: 'pass either queryFile or queryFileText, not both', path: ['queryFileText'] })
  .refine((r) => !(r.template && r.templateText), { message: 'pass either template or templateText, not both', path: ['templateText'] });
export type RunRequest = z.infer<typeof RunRequest>;

export const ResetRequest = z.strictObject({
  runId,
  /** Also re-queue COMPLETED-FAILEDDROP slices. (Default: false) */
  includeFaileddrop: z.boolean().optional(),
  /** Also re-queue QUARANTINED slices. (Default: false) */
  includeQuarantined: z.boolean().optional(),
  /** Stop/undeploy/drop the run's leftover apps first. (Default: false) */
  withStriimCleanup: z.boolean().optional(),
  ...StriimFields,
});
export type ResetRequest = z.infer<typeof ResetRequest>;

export const ClearRequest = z.strictObject({
  runId,
  /** Hard-delete the run's rows instead of retiring them. (Default: false) */
  hard: z.boolean().optional(),
  withStriimCleanup: z.boolean().optional(),
  ...StriimFields,
});
export type ClearRequest = z.infer<typeof ClearRequest>;

export const ReconcileRequest = z.strictObject({
  runId,
  /** Source connection to count. (Default: env:source) */
  connection: connectionName.optional(),
  sourceEngine: engine.optional(),
  /** Postgres target connection to count. (Default: SLICES_TARGET_URL) */
  targetConnection: connectionName.optional(),
  /** Count the lake tables instead ("default" = TRIBUTARY_WAREHOUSE; a job may name only that one). */
  targetLake: z.string().min(1).max(4096).optional(),
});
export type ReconcileRequest = z.infer<typeof ReconcileRequest>;

export const StatusRequest = z.strictObject({
  /** One run. (Default: UNIQUE_RUN_ID, else every run) */
  runId: runId.optional(),
  allRuns: z.boolean().optional(),
  /** Only FAILED / QUARANTINED slices. */
  failed: z.boolean().optional(),
  /** Individual slice rows. */
  rows: z.boolean().optional(),
});
export type StatusRequest = z.infer<typeof StatusRequest>;

export const BoardRequest = z.strictObject({
  runId,
  /** Ask Striim for live rates. (Default: true when the run uses Striim and Striim is configured) */
  striim: z.boolean().optional().meta({ cliNegated: true }),
  ...StriimFields,
});
export type BoardRequest = z.infer<typeof BoardRequest>;

const TemplateFields = {
  /** The SQL template with ~SPLIT~ inline. */
  query: z.string().min(1).max(MAX_TEXT).optional(),
  /** Or a file holding it. */
  queryFile: filePath.optional(),
  table: z.string().min(1).max(300),
  alias: z.string().min(1).max(128).optional(),
  /** Source connection (oracle or postgres). (Default: env:source) */
  connection: connectionName.optional(),
  sourceEngine: choice(['oracle', 'postgres', 'sqlserver', 'jdbc']).optional(),
};

export const ProbeRequest = z.strictObject({
  ...TemplateFields,
  /** lightweight | bakeoff | adaptive. (Default: PROBE_DEPTH_DEFAULT, else bakeoff) */
  depth: choice(['lightweight', 'bakeoff', 'adaptive']).optional(),
  /** Desired per-slice runtime, seconds. (Default: 600) */
  targetSliceSeconds: posInt(604_800).optional(),
  /** Row cap of every timing query. (Default: 100000) */
  sampleRows: posInt(100_000_000).optional(),
  /** Wall-clock cap of every timing query, seconds. (Default: 20) */
  timeBudgetSeconds: posInt(86_400).optional(),
  /** Ceiling of the adaptive concurrency ramp. (Default: 32) */
  maxConcurrency: posInt(256).optional(),
  runId: posInt(2_147_483_647).optional(),
  /** Folder for probe_recommendation.json. (Default: <data>/runs/<runId>/) */
  outputDir: filePath.optional(),
});
export type ProbeRequestInput = z.infer<typeof ProbeRequest>;

export const SplitRequest = z.strictObject({
  ...TemplateFields,
  target: z.string().min(1).max(300),
  /** auto | rowid | column | partition. (Default: auto) */
  strategy: choice(['auto', 'rowid', 'column', 'partition']).optional(),
  column: z.string().min(1).max(128).optional(),
  /** Number of slices, 1–1000000. */
  chunks: posInt(1_000_000).optional(),
  subpartitions: z.boolean().optional(),
  assort: z.boolean().optional(),
  /** Wave size for assort, 1–256. (Default: CONCURRENT_APPS_MAX, else 5) */
  waveSize: posInt(256).optional(),
  explain: z.boolean().optional(),
  asOfScn: z.string().trim().regex(/^(\d{1,30}|current)$/i, { error: (i) => `must be a positive integer SCN or 'current', got '${String(i.input)}'` }).optional(),
  sampleRows: posInt(100_000_000).optional(),
  /** Run to register under. (Default: UNIQUE_RUN_ID; none = file only) */
  runId: posInt(2_147_483_647).optional(),
  /** Queryfile to write. (Default: queryfile.txt; for a job <data>/runs/<runId>/queryfile.txt) */
  output: filePath.optional(),
});
export type SplitRequestInput = z.infer<typeof SplitRequest>;

export const AssortRequest = z.strictObject({
  /** Queryfile to read. (Default: queryfile.txt) */
  input: filePath.optional(),
  /** Queryfile to write. (Default: queryfile-assorted.txt) */
  output: filePath.optional(),
  /** Apps per wave, 1–256. (Default: CONCURRENT_APPS_MAX, else 5) */
  waveSize: posInt(256).optional(),
});
export type AssortRequest = z.infer<typeof AssortRequest>;
