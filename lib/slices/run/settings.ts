import path from 'node:path';
import { z } from 'zod';
import { envSourceConnection, envStriimConnection, striimEndpoint, type EnvLike } from '../../connections';
import { AppError } from '../../errors';
import { runSourceOf, sourceFromConnection } from '../planning/source';

/**
 * Every setting of `slices run` and the management commands, resolved once from
 * the environment (seed 001's names) and CLI flags (flags win). Engines receive
 * the resulting plain object; nothing below reads the process environment.
 */
export interface StriimSettings {
  /** `STRIIM_URL_PREFIX` + `STRIIM_NODE`. (Default: http://localhost:9080 in DEV, https:// in PROD) */
  baseUrl: string;
  /** STRIIM_ADMIN_USER. (Default: admin) */
  user: string;
  /** STRIIM_ADMIN_PWD. (Default: empty) */
  password: string;
  /** STRIIM_API_TOKEN, used instead of user/password when set. */
  token: string | null;
  /** STRIIM_API_RETRIES: retries of network errors and 5xx. (Default: 5) */
  retries: number;
  /** STRIIM_BACKOFF_BASE_MS: first retry delay, doubled each retry. (Default: 1000) */
  backoffBaseMs: number;
  /** STRIIM_BACKOFF_MAX_MS. (Default: 30000) */
  backoffMaxMs: number;
}

export interface RunSettings {
  runId: number;
  /**
   * The named connections a run was started with, stored with its settings so
   * a later reconcile (or resume) of the run uses the same source and target by default. (Default: none named)
   */
  connections?: { source?: string; target?: string; striim?: string };
  /** `striim` (one Striim app per slice) or `native` (Tributary copies). (Default: striim) */
  executor: 'striim' | 'native';
  /** CONCURRENT_APPS_MAX: slices in flight. (Default: 5) */
  concurrency: number;
  /** APP_MONITOR_INTERVAL_SECONDS: how often `mon` is polled. (Default: 15 DEV / 60 PROD) */
  monitorIntervalSeconds: number;
  /** DEPLOY_WAIT_TIME_SECONDS: minimum pause between successive Striim deploys; the native executor deploys nothing, so it starts the next slice as soon as a slot frees. (Default: 20 DEV / 120 PROD; native: 0) */
  deployWaitSeconds: number;
  /** SLICE_MAX_RUNTIME_SECONDS: stall timeout, 0 = off. (Default: 0) */
  sliceMaxRuntimeSeconds: number;
  /** SLICE_MAX_ATTEMPTS: a slice failing this many times is QUARANTINED. (Default: 3) */
  maxAttempts: number;
  /** SLICE_RETRY_IN_RUN: re-dispatch FAILED slices within the same run until quarantined. (Default: true) */
  retryFailed: boolean;
  /** SLICE_RETRY_DELAY_SECONDS: wait before re-dispatching a failed slice, doubled per attempt. (Default: 30) */
  retryDelaySeconds: number;
  /** DEPLOYMENT_GROUP_TARGET. (Default: default) */
  deploymentGroup: string;
  /** ILA_NS_BASE: namespace prefix. (Default: ILA_) */
  namespacePrefix: string;
  /** SOURCE_TQL_FILE: template file; null = the built-in admin.SW.tql. */
  templateFile: string | null;
  /** Folder for the watermark sidecar (LOG_OUTPUT_PATH's folder). (Default: <data>/slices/logging) */
  logDir: string;
  /** SOURCE_DB_TYPE. (Default: postgres when a Postgres source URL is set, else oracle) */
  sourceEngine: 'oracle' | 'postgres';
  /** TARGET_DB_TYPE. (Default: the source engine) */
  targetEngine: 'oracle' | 'postgres';
  /** STRIIM_SOURCE_PROVIDER_TYPE / STRIIM_TARGET_PROVIDER_TYPE overrides. */
  providerSrc: string | null;
  providerTgt: string | null;
  /** Postgres source URL (SLICES_SOURCE_URL, or SOURCE_PG_*). */
  sourceUrl: string | null;
  /** Oracle source (ORACLE_DSN or ORACLE_HOST/PORT/SERVICE, ORACLE_USER, ORACLE_PASSWORD). */
  oracle: { connectString: string; user: string; password: string } | null;
  /** Postgres target URL for the native executor and reconcile (SLICES_TARGET_URL). */
  targetUrl: string | null;
  /** Native executor: write to this lake warehouse instead (`--target-lake`); table = the slice target. */
  targetLake: string | null;
  /** Lake merge keys (`--merge-keys a,b`). */
  mergeKeys: string[];
  /** NATIVE_BATCH_ROWS: rows per upsert batch of the native executor. (Default: 50000) */
  nativeBatchRows: number;
  /** NATIVE_SNAPSHOT: read every Postgres slice from one exported snapshot. (Default: true) */
  nativeSnapshot: boolean;
  /** FORCE_FRESH / --force-fresh. (Default: false) */
  forceFresh: boolean;
  striim: StriimSettings;
}

const num = (name: string, min = 0) => z.coerce.number({ error: `${name} must be a number` }).min(min, `${name} must be >= ${min}`);
const int = (name: string, min = 0) => z.coerce.number({ error: `${name} must be an integer` }).int(`${name} must be an integer`).min(min, `${name} must be >= ${min}`);
const bool = z.union([z.boolean(), z.string()]).transform((v) => (typeof v === 'boolean' ? v : /^(1|true|yes|on)$/i.test(v)));

/** Flags given on the command line (camelCase, as commander yields them). */
export type RunFlags = Partial<{
  runId: string | number; executor: string; concurrency: string | number; monitorInterval: string | number; deployWait: string | number;
  stallTimeout: string | number; maxAttempts: string | number; retryFailed: boolean; retryDelay: string | number; deploymentGroup: string;
  template: string; logDir: string; sourceEngine: string; targetEngine: string; sourceUrl: string; targetUrl: string; targetLake: string;
  mergeKeys: string; batchRows: string | number; snapshot: boolean; forceFresh: boolean; striimUrl: string; striimRetries: string | number;
  backoffBase: string | number; backoffMax: string | number;
}>;

function pick<T>(...vals: (T | undefined | null | '')[]): T | undefined {
  for (const v of vals) if (v !== undefined && v !== null && v !== '') return v as T;
  return undefined;
}

function parse<T>(schema: z.ZodType<T>, v: unknown, name: string): T {
  const r = schema.safeParse(v);
  if (!r.success) throw new AppError('usage', `slices: ${r.error.issues[0]?.message ?? `bad ${name}`} (got '${String(v)}')`);
  return r.data;
}

/**
 * Resolve run settings: flags, then environment, then ENV=DEV/PROD presets.
 * `env` is the parsed environment (`CliContext.env` / `JobContext.env`) or a
 * plain record of the same names (tests); never the raw process environment.
 * The source and Striim read from the environment are exactly the built-in
 * connections `env:source` and `env:striim` (lib/connections/builtin.ts).
 */
export function resolveSettings(env: EnvLike, flags: RunFlags, dataDir: string): RunSettings {
  const e = (k: string) => (env[k] === '' || env[k] === undefined || env[k] === null ? undefined : String(env[k]));
  const prod = (e('ENV') ?? 'DEV').toUpperCase() === 'PROD';
  const runIdRaw = pick(flags.runId, e('UNIQUE_RUN_ID'));
  if (runIdRaw === undefined) throw new AppError('usage', 'slices: --run-id is required (or UNIQUE_RUN_ID)', { field: 'runId' });
  const runId = parse(int('--run-id', 1), runIdRaw, 'run id');
  const executor = parse(z.enum(['striim', 'native'], { error: '--executor must be striim or native' }), pick(flags.executor, e('SLICES_EXECUTOR')) ?? 'striim', 'executor');

  let sourceUrl = flags.sourceUrl || null;
  let oracle: RunSettings['oracle'] = null;
  const envSource = envSourceConnection(env);
  if (!sourceUrl && envSource) {
    const c = runSourceOf(sourceFromConnection(envSource));
    if (c.engine === 'postgres') sourceUrl = c.url;
    else oracle = { connectString: c.connectString, user: c.user, password: c.password };
  }
  if (sourceUrl && !/^postgres(ql)?:\/\//.test(sourceUrl)) throw new AppError('usage', `slices: --source-url must be a postgres:// URL`, { field: 'sourceUrl' });
  const engineSchema = z.enum(['oracle', 'postgres'], { error: '--source-engine must be oracle or postgres' });
  const sourceEngine = parse(engineSchema, pick(flags.sourceEngine, e('SOURCE_DB_TYPE')) ?? (sourceUrl ? 'postgres' : 'oracle'), 'engine');
  const targetEngine = parse(engineSchema, pick(flags.targetEngine, e('TARGET_DB_TYPE')) ?? sourceEngine, 'engine');

  const envStriim = striimEndpoint(envStriimConnection(env));
  const striimUrl = flags.striimUrl || envStriim.baseUrl;
  const logDir = pick(flags.logDir, e('SLICES_LOG_DIR'), e('LOG_OUTPUT_PATH') ? path.dirname(e('LOG_OUTPUT_PATH')!) : undefined) ?? path.join(dataDir, 'slices', 'logging');

  return {
    runId, executor,
    concurrency: parse(int('--concurrency', 1), pick(flags.concurrency, e('CONCURRENT_APPS_MAX')) ?? 5, 'concurrency'),
    monitorIntervalSeconds: parse(num('--monitor-interval'), pick(flags.monitorInterval, e('APP_MONITOR_INTERVAL_SECONDS')) ?? (prod ? 60 : 15), 'interval'),
    // DEPLOY_WAIT_TIME_SECONDS paces Striim deploys; a native run only waits when its own flag asks.
    deployWaitSeconds: parse(num('--deploy-wait'), executor === 'native' ? (pick(flags.deployWait) ?? 0) : (pick(flags.deployWait, e('DEPLOY_WAIT_TIME_SECONDS')) ?? (prod ? 120 : 20)), 'wait'),
    sliceMaxRuntimeSeconds: parse(num('--stall-timeout'), pick(flags.stallTimeout, e('SLICE_MAX_RUNTIME_SECONDS')) ?? 0, 'stall'),
    maxAttempts: parse(int('--max-attempts', 1), pick(flags.maxAttempts, e('SLICE_MAX_ATTEMPTS')) ?? 3, 'attempts'),
    retryFailed: parse(bool, pick<unknown>(flags.retryFailed, e('SLICE_RETRY_IN_RUN')) ?? true, 'retry'),
    retryDelaySeconds: parse(num('--retry-delay'), pick(flags.retryDelay, e('SLICE_RETRY_DELAY_SECONDS')) ?? 30, 'retry delay'),
    deploymentGroup: parse(z.string().regex(/^\w+$/, '--deployment-group must be a plain name'), pick(flags.deploymentGroup, e('DEPLOYMENT_GROUP_TARGET')) ?? 'default', 'group'),
    namespacePrefix: parse(z.string().regex(/^[A-Za-z]\w*$/, 'ILA_NS_BASE must be a plain name'), e('ILA_NS_BASE') ?? 'ILA_', 'prefix'),
    templateFile: pick(flags.template, e('SOURCE_TQL_FILE')) ?? null,
    logDir: path.resolve(/*turbopackIgnore: true*/ logDir),
    sourceEngine, targetEngine,
    providerSrc: e('STRIIM_SOURCE_PROVIDER_TYPE') ?? null,
    providerTgt: e('STRIIM_TARGET_PROVIDER_TYPE') ?? null,
    sourceUrl, oracle,
    targetUrl: pick(flags.targetUrl, e('SLICES_TARGET_URL')) ?? null,
    targetLake: pick(flags.targetLake, e('SLICES_TARGET_LAKE')) ?? null,
    mergeKeys: (pick(flags.mergeKeys, e('SLICES_MERGE_KEYS')) ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    nativeBatchRows: parse(int('--batch-rows', 1), pick(flags.batchRows, e('NATIVE_BATCH_ROWS')) ?? 50_000, 'batch'),
    nativeSnapshot: parse(bool, pick<unknown>(flags.snapshot, e('NATIVE_SNAPSHOT')) ?? true, 'snapshot'),
    forceFresh: parse(bool, pick<unknown>(flags.forceFresh, e('FORCE_FRESH')) ?? false, 'force fresh'),
    striim: {
      baseUrl: striimUrl,
      user: envStriim.user,
      password: envStriim.password,
      token: envStriim.token,
      retries: parse(int('--striim-retries'), pick(flags.striimRetries, e('STRIIM_API_RETRIES')) ?? 5, 'retries'),
      backoffBaseMs: parse(num('--backoff-base'), pick(flags.backoffBase, e('STRIIM_BACKOFF_BASE_MS')) ?? 1000, 'backoff'),
      backoffMaxMs: parse(num('--backoff-max'), pick(flags.backoffMax, e('STRIIM_BACKOFF_MAX_MS')) ?? 30_000, 'backoff'),
    },
  };
}

/** The settings as stored with a run (secrets removed). */
export function publicSettings(s: RunSettings): Record<string, unknown> {
  const redactUrl = (u: string | null) => (u ? u.replace(/(\/\/[^:/@]+:)[^@]+@/, '$1***@') : null);
  return {
    ...s,
    sourceUrl: redactUrl(s.sourceUrl), targetUrl: redactUrl(s.targetUrl),
    oracle: s.oracle ? { connectString: s.oracle.connectString, user: s.oracle.user } : null,
    striim: { ...s.striim, password: s.striim.password ? '***' : '', token: s.striim.token ? '***' : null },
  };
}
