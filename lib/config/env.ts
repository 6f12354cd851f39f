import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../errors';
import { readDecimal, readInteger } from './number-text';

/**
 * The process environment, parsed once at start-up. Engines never read
 * `process.env`; they receive the plain values from their caller.
 */
// Messages name the variable and quote the bad value, as the seeds' loaders do
// (`PROBE_SAMPLE_ROWS must be an integer, got 'abc'`).
const got = (input: unknown) => `got '${String(input)}'`;
/** A variable read by `read` (lib/config/number-text.ts) and kept in [min, max]. */
const numericVar = (read: (v: unknown) => number | null, kind: string) => (name: string, min: number, max: number) =>
  z.string().transform((v, ctx) => {
    const n = read(v);
    if (n === null) { ctx.addIssue({ code: 'custom', message: `${name} must be ${kind}, ${got(v)}` }); return z.NEVER; }
    if (n < min) { ctx.addIssue({ code: 'custom', message: `${name} must be >= ${min}, ${got(v)}` }); return z.NEVER; }
    if (n > max) { ctx.addIssue({ code: 'custom', message: `${name} must be <= ${max}, ${got(v)}` }); return z.NEVER; }
    return n;
  });
/** An integer variable in [min, max]. */
const intVar = numericVar(readInteger, 'an integer');
/** A number variable (seconds, milliseconds) in [min, max]. */
const numVar = numericVar(readDecimal, 'a number');
/** A yes/no variable: 1/true/yes/on or 0/false/no/off. */
const boolVar = (name: string) => z.string().regex(/^(1|0|true|false|yes|no|on|off)$/i, { error: (i) => `${name} must be 1/0 (true/false), ${got(i.input)}` })
  .transform((v) => /^(1|true|yes|on)$/i.test(v));
const engineVar = (name: string) => z.string().transform((v) => v.toLowerCase()).pipe(z.enum(['oracle', 'postgres'], { error: (i) => `${name} must be oracle or postgres, ${got(i.input)}` }));
/** A size in bytes, in PostgreSQL's memory units (`max_slot_wal_keep_size`): a number of bytes, or with kB, MB, GB or TB (× 1024ⁿ). */
const bytesVar = (name: string) => z.string().transform((v, ctx) => {
  const m = /^\s*(\d+)\s*(B|kB|MB|GB|TB)?\s*$/.exec(v);
  if (!m) { ctx.addIssue({ code: 'custom', message: `${name} must be a size in bytes such as 1073741824, 512MB or 10GB (units kB, MB, GB, TB), ${got(v)}` }); return z.NEVER; }
  const n = Number(m[1]) * 1024 ** ['B', 'kB', 'MB', 'GB', 'TB'].indexOf(m[2] ?? 'B');
  if (!Number.isSafeInteger(n)) { ctx.addIssue({ code: 'custom', message: `${name} is too large, ${got(v)}` }); return z.NEVER; }
  return n;
});
const nameVar = (name: string) => z.string().regex(/^[A-Za-z_]\w*$/, { error: (i) => `${name} must be a plain name, ${got(i.input)}` });

/**
 * Slices engine, Striim and slice-source settings (seed 001's names). Every
 * one is optional here: the slices engine resolves flag > variable > default
 * (some defaults depend on ENV=DEV/PROD), so "unset" must stay visible.
 * Bad values fail at start-up, naming the variable.
 */
const SlicesEnvShape = {
  // ── source of a slice load (also the read-only built-in connection `env:source`) ──
  /** Source engine: oracle | postgres. (Default: postgres when SOURCE_PG_HOST or SLICES_SOURCE_URL is set, else oracle) */
  SOURCE_DB_TYPE: engineVar('SOURCE_DB_TYPE').optional(),
  /** Target engine of the TQL template: oracle | postgres. (Default: the source engine) */
  TARGET_DB_TYPE: engineVar('TARGET_DB_TYPE').optional(),
  /** Oracle connect string `host:port/service`, instead of ORACLE_HOST/PORT/SERVICE. (Default: unset) */
  ORACLE_DSN: z.string().min(1).optional(),
  /** Oracle host. (Default: unset) */
  ORACLE_HOST: z.string().min(1).optional(),
  /** Oracle listener port, 1–65535. (Default: 1521) */
  ORACLE_PORT: intVar('ORACLE_PORT', 1, 65535).optional(),
  /** Oracle service name. (Default: unset) */
  ORACLE_SERVICE: z.string().min(1).optional(),
  /** Oracle user. (Default: unset) */
  ORACLE_USER: z.string().min(1).optional(),
  /** Oracle password. (Default: empty) */
  ORACLE_PASSWORD: z.string().optional(),
  /** PostgreSQL source host. (Default: unset) */
  SOURCE_PG_HOST: z.string().min(1).optional(),
  /** PostgreSQL source port, 1–65535. (Default: 5432) */
  SOURCE_PG_PORT: intVar('SOURCE_PG_PORT', 1, 65535).optional(),
  /** PostgreSQL source database. (Default: postgres) */
  SOURCE_PG_DATABASE: z.string().min(1).optional(),
  /** PostgreSQL source user. (Default: unset) */
  SOURCE_PG_USER: z.string().min(1).optional(),
  /** PostgreSQL source password. (Default: empty) */
  SOURCE_PG_PASSWORD: z.string().optional(),
  /** libpq sslmode of the PostgreSQL source. (Default: libpq's, prefer) */
  SOURCE_PG_SSLMODE: z.enum(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'], { error: (i) => `SOURCE_PG_SSLMODE must be a libpq sslmode, ${got(i.input)}` }).optional(),
  /** PostgreSQL source as one postgres:// URL, instead of SOURCE_PG_*. (Default: unset) */
  SLICES_SOURCE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'SLICES_SOURCE_URL must be a postgres:// URL').optional(),
  /** PostgreSQL target of the native executor and reconcile. (Default: unset) */
  SLICES_TARGET_URL: z.string().regex(/^postgres(ql)?:\/\//, 'SLICES_TARGET_URL must be a postgres:// URL').optional(),
  /** Native executor: merge into this lake warehouse instead ("default" = TRIBUTARY_WAREHOUSE). (Default: unset) */
  SLICES_TARGET_LAKE: z.string().min(1).optional(),
  /** Lake merge key columns, comma-separated. (Default: unset) */
  SLICES_MERGE_KEYS: z.string().optional(),

  // ── Striim (also the read-only built-in connection `env:striim`) ──
  /** Striim node `host:port`. (Default: localhost:9080) */
  STRIIM_NODE: z.string().min(1).optional(),
  /** Scheme put before STRIIM_NODE. (Default: http:// in DEV, https:// in PROD) */
  STRIIM_URL_PREFIX: z.string().regex(/^https?:\/\/$/, 'STRIIM_URL_PREFIX must be http:// or https://').optional(),
  /** Full Striim base URL, instead of STRIIM_URL_PREFIX + STRIIM_NODE. (Default: unset) */
  STRIIM_URL: z.string().url('STRIIM_URL must be a URL').regex(/^https?:/, 'STRIIM_URL must be http(s)').optional(),
  /** Striim admin user. (Default: admin) */
  STRIIM_ADMIN_USER: z.string().min(1).optional(),
  /** Striim admin password. (Default: empty) */
  STRIIM_ADMIN_PWD: z.string().optional(),
  /** Striim API token, used instead of user/password. (Default: unset) */
  STRIIM_API_TOKEN: z.string().optional(),
  /** Retries of Striim network errors and 5xx, 0–100. (Default: 5) */
  STRIIM_API_RETRIES: intVar('STRIIM_API_RETRIES', 0, 100).optional(),
  /** First Striim retry delay in ms, doubled per retry, 0–600000. (Default: 1000) */
  STRIIM_BACKOFF_BASE_MS: numVar('STRIIM_BACKOFF_BASE_MS', 0, 600_000).optional(),
  /** Striim retry delay ceiling in ms, 0–3600000. (Default: 30000) */
  STRIIM_BACKOFF_MAX_MS: numVar('STRIIM_BACKOFF_MAX_MS', 0, 3_600_000).optional(),
  /** Provider type substituted for the template's source adapter. (Default: from SOURCE_DB_TYPE) */
  STRIIM_SOURCE_PROVIDER_TYPE: z.string().min(1).optional(),
  /** Provider type substituted for the template's target adapter. (Default: from TARGET_DB_TYPE) */
  STRIIM_TARGET_PROVIDER_TYPE: z.string().min(1).optional(),
  /** DEV or PROD: presets for the timings and the Striim scheme. (Default: DEV) */
  ENV: z.string().transform((v) => v.toUpperCase()).pipe(z.enum(['DEV', 'PROD'], { error: (i) => `ENV must be DEV or PROD, ${got(i.input)}` })).optional(),
  /** Striim deployment group. (Default: default) */
  DEPLOYMENT_GROUP_TARGET: nameVar('DEPLOYMENT_GROUP_TARGET').optional(),
  /** Namespace prefix of the per-slice apps. (Default: ILA_) */
  ILA_NS_BASE: nameVar('ILA_NS_BASE').optional(),
  /** TQL template file. (Default: the built-in admin.SW.tql) */
  SOURCE_TQL_FILE: z.string().min(1).optional(),

  // ── run loop ──
  /** Executor: striim (one app per slice) or native (Tributary copies). (Default: striim) */
  SLICES_EXECUTOR: z.enum(['striim', 'native'], { error: (i) => `SLICES_EXECUTOR must be striim or native, ${got(i.input)}` }).optional(),
  /** Slices in flight (and the assort wave size), 1–256. (Default: 5) */
  CONCURRENT_APPS_MAX: intVar('CONCURRENT_APPS_MAX', 1, 256).optional(),
  /** Minimum pause between deploys, seconds, 0–86400. (Default: 20 in DEV, 120 in PROD) */
  DEPLOY_WAIT_TIME_SECONDS: numVar('DEPLOY_WAIT_TIME_SECONDS', 0, 86_400).optional(),
  /** How often Striim's `mon` is polled, seconds, 0–86400. (Default: 15 in DEV, 60 in PROD) */
  APP_MONITOR_INTERVAL_SECONDS: numVar('APP_MONITOR_INTERVAL_SECONDS', 0, 86_400).optional(),
  /** Fail a slice RUNNING longer than this, seconds; 0 = off, up to 30 days. (Default: 0) */
  SLICE_MAX_RUNTIME_SECONDS: numVar('SLICE_MAX_RUNTIME_SECONDS', 0, 2_592_000).optional(),
  /** Attempts before a slice is QUARANTINED, 1–100. (Default: 3) */
  SLICE_MAX_ATTEMPTS: intVar('SLICE_MAX_ATTEMPTS', 1, 100).optional(),
  /** Re-dispatch FAILED slices within the run. (Default: 1) */
  SLICE_RETRY_IN_RUN: boolVar('SLICE_RETRY_IN_RUN').optional(),
  /** Wait before re-dispatching a failed slice, doubled per attempt, seconds, 0–86400. (Default: 30) */
  SLICE_RETRY_DELAY_SECONDS: numVar('SLICE_RETRY_DELAY_SECONDS', 0, 86_400).optional(),
  /** Start fresh even if the run had rows. (Default: 0) */
  FORCE_FRESH: boolVar('FORCE_FRESH').optional(),
  /** Run id used when --run-id is not given, 1–2147483647. (Default: unset) */
  UNIQUE_RUN_ID: intVar('UNIQUE_RUN_ID', 1, 2_147_483_647).optional(),
  /** Folder of the watermark sidecar. (Default: `<data>/slices/logging`) */
  SLICES_LOG_DIR: z.string().min(1).optional(),
  /** The seed's log file; its folder holds the watermark sidecar when SLICES_LOG_DIR is unset. (Default: unset) */
  LOG_OUTPUT_PATH: z.string().min(1).optional(),
  /** Native executor: rows per upsert batch, 1–10000000. (Default: 50000) */
  NATIVE_BATCH_ROWS: intVar('NATIVE_BATCH_ROWS', 1, 10_000_000).optional(),
  /** Native executor: read every Postgres slice from one exported snapshot. (Default: 1) */
  NATIVE_SNAPSHOT: boolVar('NATIVE_SNAPSHOT').optional(),

  // ── probe ──
  /** Probe depth: lightweight | bakeoff | adaptive. (Default: bakeoff) */
  PROBE_DEPTH_DEFAULT: z.enum(['lightweight', 'bakeoff', 'adaptive'], { error: (i) => `PROBE_DEPTH_DEFAULT must be lightweight, bakeoff or adaptive, ${got(i.input)}` }).optional(),
  /** Row cap of every probe timing query (and values sampled for boundaries), 1–100000000. (Default: 100000) */
  PROBE_SAMPLE_ROWS: intVar('PROBE_SAMPLE_ROWS', 1, 100_000_000).optional(),
  /** Wall-clock cap of every probe timing query, seconds, 1–86400. (Default: 20) */
  PROBE_TIME_BUDGET_SECONDS: intVar('PROBE_TIME_BUDGET_SECONDS', 1, 86_400).optional(),
  /** Desired per-slice runtime, seconds, 1–604800. (Default: 600) */
  PROBE_TARGET_SLICE_SECONDS: intVar('PROBE_TARGET_SLICE_SECONDS', 1, 604_800).optional(),
  /** Ceiling of the adaptive concurrency ramp, 1–256. (Default: 32) */
  PROBE_MAX_CONCURRENCY: intVar('PROBE_MAX_CONCURRENCY', 1, 256).optional(),
};

/** The slices / Striim / source section of the environment, as engines receive it. */
export type SlicesEnv = z.infer<z.ZodObject<typeof SlicesEnvShape>>;

const EnvSchema = z.object({
  ...SlicesEnvShape,
  /** Postgres to use. (Default: unset — an embedded PostgreSQL under the data folder) */
  DATABASE_URL: z.string().url().optional(),
  /** Folder for the embedded database, the warehouse, secrets and run files. (Default: `./.data`) */
  TRIBUTARY_DATA_DIR: z.string().min(1).default('.data'),
  /** Port the panel serves on. (Default: 8765) */
  PORT: intVar('PORT', 1, 65535).default(8765),
  /** Interface the panel binds to. (Default: 127.0.0.1) */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** First admin's user name, created at start when no such user exists. (Default: unset) */
  TRIBUTARY_ADMIN_USER: z.string().min(1).optional(),
  /** First admin's password. (Default: unset) */
  TRIBUTARY_ADMIN_PASSWORD: z.string().min(8, 'TRIBUTARY_ADMIN_PASSWORD: at least 8 characters').optional(),
  /** Secret for session signing and for encrypting connection secrets at rest. (Default: generated once into `<data>/secret.key`) */
  TRIBUTARY_SECRET: z.string().min(16).optional(),
  /** (Default: http://HOST:PORT) — base URL used in alert mail links and for origin checks */
  TRIBUTARY_PUBLIC_URL: z.string().url().optional(),
  /** Failed sign-ins per account within the login window before the account is locked. (Default: 5) */
  TRIBUTARY_LOGIN_MAX_FAILURES: intVar('TRIBUTARY_LOGIN_MAX_FAILURES', 1, 1000).default(5),
  /** Failed sign-ins per client address within the login window before the address is locked. (Default: 30) */
  TRIBUTARY_LOGIN_MAX_FAILURES_PER_ADDRESS: intVar('TRIBUTARY_LOGIN_MAX_FAILURES_PER_ADDRESS', 1, 100_000).default(30),
  /** Login window and first lockout, seconds; each further lockout of an account within a day doubles it. (Default: 900) */
  TRIBUTARY_LOGIN_WINDOW_SECONDS: intVar('TRIBUTARY_LOGIN_WINDOW_SECONDS', 1, 86_400).default(900),
  /** Jobs one worker runs at once. (Default: 2) */
  TRIBUTARY_WORKER_CONCURRENCY: intVar('TRIBUTARY_WORKER_CONCURRENCY', 1, 64).default(2),
  /**
   * The API answers 429 (with Retry-After) to new work — POST /jobs, pipeline and flow runs — while this many
   * runs or more wait for a worker; 0 = no limit. (Default: 5000)
   */
  TRIBUTARY_QUEUE_MAX_DEPTH: intVar('TRIBUTARY_QUEUE_MAX_DEPTH', 0, 10_000_000).default(5000),
  /** The same, while the oldest waiting run has waited this many seconds or more; 0 = no limit. (Default: 900) */
  TRIBUTARY_QUEUE_MAX_AGE_SECONDS: intVar('TRIBUTARY_QUEUE_MAX_AGE_SECONDS', 0, 604_800).default(900),
  /** Retry-After of that 429, seconds. (Default: 30) */
  TRIBUTARY_QUEUE_RETRY_AFTER_SECONDS: intVar('TRIBUTARY_QUEUE_RETRY_AFTER_SECONDS', 1, 3600).default(30),
  /** A running job whose worker has not heartbeated for this long is failed. (Default: 30) */
  TRIBUTARY_JOB_STALE_SECONDS: intVar('TRIBUTARY_JOB_STALE_SECONDS', 3, 86_400).default(30),
  /** Iceberg warehouse root, `file:///abs/path` or `s3://bucket/prefix`. (Default: `file://<data>/warehouse`) */
  TRIBUTARY_WAREHOUSE: z.string().regex(/^(file:\/\/\/|s3a?:\/\/[^/]+|\/)/, 'TRIBUTARY_WAREHOUSE: file:///abs/path, /abs/path or s3://bucket/prefix').optional(),
  /** Access key of an s3:// warehouse. (Default: unset — the AWS SDK's default credential chain) */
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** Secret key of an s3:// warehouse. (Default: unset) */
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Region of an s3:// warehouse's bucket. (Default: us-east-1) */
  AWS_REGION: z.string().min(1).optional(),
  /** Endpoint of an S3-compatible store (MinIO, Ceph, R2), e.g. `http://minio:9000`. (Default: AWS's endpoint for the region) */
  TRIBUTARY_S3_ENDPOINT: z.string().regex(/^https?:\/\/[^/\s]+/, 'TRIBUTARY_S3_ENDPOINT: an http:// or https:// URL').optional(),
  /** Path-style addressing (`endpoint/bucket/key`) for S3-compatible stores. (Default: false) */
  TRIBUTARY_S3_FORCE_PATH_STYLE: z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1').optional(),
  /**
   * Wait before restarting an embedded PostgreSQL that exited on its own (killed, crashed); doubles
   * per failed attempt, up to 10 s. (Default: 1)
   */
  TRIBUTARY_DB_RESTART_SECONDS: numVar('TRIBUTARY_DB_RESTART_SECONDS', 0.1, 10).default(1),
  /**
   * A CLI command that finds no server leaves the embedded PostgreSQL it starts running (kept by a
   * small background process) for the next commands, and this many seconds without a client
   * connection stop it. 0: each command starts and stops its own, as before. (Default: 900)
   */
  TRIBUTARY_DB_IDLE_SECONDS: intVar('TRIBUTARY_DB_IDLE_SECONDS', 0, 604_800).default(900),
  /** On SIGTERM a worker takes no new jobs and waits this long for its running ones (an ETL unit, a slice) to finish before aborting them. (Default: 120) */
  TRIBUTARY_DRAIN_SECONDS: intVar('TRIBUTARY_DRAIN_SECONDS', 0, 86_400).default(120),
  /**
   * Whether an ETL run fans its (table × branch) units, and a native slice run its slices, out as
   * queue jobs that every worker shares: `on` always, `off` never (one worker runs the whole run),
   * `auto` when another worker is alive as the run starts. (Default: auto)
   */
  TRIBUTARY_FANOUT: z.enum(['auto', 'on', 'off']).default('auto'),
  /** The SQL model project (dbt layout: models/, tests/, macros/). (Default: `<data>/models`) */
  TRIBUTARY_MODELS_DIR: z.string().min(1).optional(),
  /** State folder of the embedded ClickHouse (chdb) models materialise into. (Default: `<data>/chdb`) */
  TRIBUTARY_CHDB_DIR: z.string().min(1).optional(),
  /** Models and tests one models command runs at once. (Default: 4) */
  TRIBUTARY_MODELS_THREADS: intVar('TRIBUTARY_MODELS_THREADS', 1, 64).default(4),
  /**
   * Lag alert of streamed branches (`cdc: log`): one mail when a branch's slot retains more WAL on its source than
   * this, one when it is back under 80 % of it; bytes, or 512MB, 10GB (PostgreSQL's units). 0 = no alert. (Default: 0)
   */
  TRIBUTARY_CDC_LAG_ALERT_BYTES: bytesVar('TRIBUTARY_CDC_LAG_ALERT_BYTES').default(0),
  /** Log level: debug, info, warn, error. (Default: info) */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),

  /** next-auth's canonical URL of the panel; `https://` turns on secure cookies. (Default: http://HOST:PORT, set by `tributary serve`) */
  NEXTAUTH_URL: z.string().url().optional(),

  // — etl / dq —
  /** The table definitions etl and dq runs use when a run names none. (Default: `./tables.json`, relative to the working directory) */
  TRIBUTARY_TABLES_FILE: z.string().min(1).default('tables.json'),
  // — OpenLineage (names as the OpenLineage clients read them; lib/lineage) —
  /** OpenLineage HTTP endpoint's base URL, e.g. `http://marquez:5000`; unset (and no file transport) = no events. (Default: unset) */
  OPENLINEAGE_URL: z.string().url('OPENLINEAGE_URL: an http:// or https:// URL').regex(/^https?:\/\//, 'OPENLINEAGE_URL: an http:// or https:// URL').optional(),
  /** Path under OPENLINEAGE_URL events are POSTed to. (Default: api/v1/lineage) */
  OPENLINEAGE_ENDPOINT: z.string().min(1).default('api/v1/lineage'),
  /** Sent as `Authorization: Bearer <key>`. (Default: unset) */
  OPENLINEAGE_API_KEY: z.string().min(1).optional(),
  /** Namespace of Tributary's jobs in lineage events. (Default: tributary) */
  OPENLINEAGE_NAMESPACE: z.string().min(1).max(200).default('tributary'),
  /** `true` turns lineage events off whatever else is set. (Default: false) */
  OPENLINEAGE_DISABLED: z.enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False']).transform((v) => v.toLowerCase() === 'true').optional(),
  /** `file` writes events to OPENLINEAGE__TRANSPORT__LOG_FILE_PATH, one JSON per line; `http` (or unset) uses OPENLINEAGE_URL. (Default: http) */
  OPENLINEAGE__TRANSPORT__TYPE: z.enum(['http', 'file']).optional(),
  /** The file transport's file, appended to (one event per line). (Default: unset) */
  OPENLINEAGE__TRANSPORT__LOG_FILE_PATH: z.string().min(1).optional(),
  /** Oracle Instant Client folder: thick mode (what Oracle 11g needs); a folder missing on this host is ignored. (Default: unset — thick from the system library path if it loads, else thin) */
  ORACLE_CLIENT_LIB_DIR: z.string().min(1).optional(),
});

/** Object-store settings of an s3:// warehouse, handed to the lake as they are (the lake's `S3Settings`). */
export interface EnvS3 { region?: string; accessKeyId?: string; secretAccessKey?: string; endpoint?: string; forcePathStyle: boolean }

/**
 * The environment variables dbt's `env_var()` may read in a models project:
 * names starting `DBT_`, as dbt's docs name them (`DBT_ENV_SECRET_` ones
 * excepted: dbt itself refuses those outside profiles and packages). Nothing
 * else is readable, so a project can never print Tributary's own settings and
 * secrets (`DATABASE_URL`, `TRIBUTARY_SECRET`, `AWS_*`, connection passwords).
 */
export const DBT_ENV_VAR = /^DBT_(?!ENV_SECRET_)[A-Za-z0-9_]*$/;

export type Env = z.infer<typeof EnvSchema> & {
  dataDir: string; warehouse: string; s3: EnvS3;
  /** The variables a models project's `env_var()` reads (DBT_ENV_VAR's names only). (Default: none) */
  dbtEnv: Record<string, string>;
};

/**
 * The raw process environment, for the two things that need all of it: the
 * variables a parent hands its child processes (`tributary serve`, the panel
 * build) and `${VAR}` interpolation in connection files. Everything else reads
 * the parsed `Env`; this module is the only one in lib/ that touches process.env.
 */
export function processEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}

/**
 * Parse the environment; a bad value fails with the variable's name (a `usage`
 * error: the CLI exits 2, a server refuses to start).
 * `overrides` win over `source` (the slices setup wizard's answers), so no
 * caller ever needs to write to `process.env`.
 */
export function parseEnv(source: Readonly<Record<string, string | undefined>> = process.env, overrides: Record<string, string> = {}): Env {
  const cleaned = Object.fromEntries(Object.entries({ ...source, ...overrides }).filter(([, v]) => v !== ''));
  // Parsed once per process: zod's compiled fast path for this large object would cost more to
  // generate (tens of ms at every CLI start) than it saves on one parse.
  const r = EnvSchema.safeParse(cleaned, { jitless: true });
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new AppError('usage', `config: invalid environment — ${msg}`);
  }
  const dataDir = path.resolve(r.data.TRIBUTARY_DATA_DIR);
  const warehouse = r.data.TRIBUTARY_WAREHOUSE ?? `file://${path.join(dataDir, 'warehouse')}`;
  const s3: EnvS3 = {
    region: r.data.AWS_REGION, accessKeyId: r.data.AWS_ACCESS_KEY_ID, secretAccessKey: r.data.AWS_SECRET_ACCESS_KEY,
    endpoint: r.data.TRIBUTARY_S3_ENDPOINT, forcePathStyle: r.data.TRIBUTARY_S3_FORCE_PATH_STYLE ?? false,
  };
  const dbtEnv = Object.fromEntries(Object.entries(cleaned).filter((e): e is [string, string] => DBT_ENV_VAR.test(e[0]) && typeof e[1] === 'string'));
  return { ...r.data, dataDir, warehouse, s3, dbtEnv };
}
