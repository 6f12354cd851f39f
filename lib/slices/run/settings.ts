import path from 'node:path';
import type { SlicesEnv } from '../../config/env';
import { envSourceConnection, envStriimConnection, striimEndpoint } from '../../connections';
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

/**
 * Flags given on the command line or in a job's payload, as the request
 * schemas (`lib/slices/requests.ts`) parsed them: typed and bounded already.
 */
export type RunFlags = Partial<{
  runId: number; executor: 'striim' | 'native'; concurrency: number; monitorInterval: number; deployWait: number;
  stallTimeout: number; maxAttempts: number; retryFailed: boolean; retryDelay: number; deploymentGroup: string;
  template: string; logDir: string; sourceEngine: 'oracle' | 'postgres'; targetEngine: 'oracle' | 'postgres'; sourceUrl: string; targetUrl: string; targetLake: string;
  mergeKeys: string; batchRows: number; snapshot: boolean; forceFresh: boolean; striimUrl: string; striimRetries: number;
  backoffBase: number; backoffMax: number;
}>;

/**
 * The process's settings as the slices engine reads them: the slices section
 * of the parsed environment (`Env`, lib/config/env.ts), typed and bounded there.
 */
export type RunEnv = Partial<SlicesEnv>;

/**
 * Resolve run settings: flags, then the parsed environment, then ENV=DEV/PROD
 * presets. Both arrive parsed (flags by the request schema, the environment by
 * `parseEnv` at the process's start), so nothing is parsed again here. The
 * source and Striim read from the environment are exactly the built-in
 * connections `env:source` and `env:striim` (lib/connections/builtin.ts).
 */
export function resolveSettings(env: RunEnv, flags: RunFlags, dataDir: string): RunSettings {
  const prod = env.ENV === 'PROD';
  const runId = flags.runId ?? env.UNIQUE_RUN_ID;
  if (runId === undefined) throw new AppError('usage', 'slices: --run-id is required (or UNIQUE_RUN_ID)', { field: 'runId' });
  const executor = flags.executor ?? env.SLICES_EXECUTOR ?? 'striim';

  let sourceUrl = flags.sourceUrl || null;
  let oracle: RunSettings['oracle'] = null;
  const envSource = envSourceConnection(env);
  if (!sourceUrl && envSource) {
    const c = runSourceOf(sourceFromConnection(envSource));
    if (c.engine === 'postgres') sourceUrl = c.url;
    else oracle = { connectString: c.connectString, user: c.user, password: c.password };
  }
  if (sourceUrl && !/^postgres(ql)?:\/\//.test(sourceUrl)) throw new AppError('usage', `slices: --source-url must be a postgres:// URL`, { field: 'sourceUrl' });
  const sourceEngine = flags.sourceEngine ?? env.SOURCE_DB_TYPE ?? (sourceUrl ? 'postgres' : 'oracle');
  const targetEngine = flags.targetEngine ?? env.TARGET_DB_TYPE ?? sourceEngine;

  const envStriim = striimEndpoint(envStriimConnection(env));
  const striimUrl = flags.striimUrl || envStriim.baseUrl;
  const logDir = flags.logDir ?? env.SLICES_LOG_DIR ?? (env.LOG_OUTPUT_PATH ? path.dirname(env.LOG_OUTPUT_PATH) : undefined) ?? path.join(dataDir, 'slices', 'logging');

  return {
    runId, executor,
    concurrency: flags.concurrency ?? env.CONCURRENT_APPS_MAX ?? 5,
    monitorIntervalSeconds: flags.monitorInterval ?? env.APP_MONITOR_INTERVAL_SECONDS ?? (prod ? 60 : 15),
    // DEPLOY_WAIT_TIME_SECONDS paces Striim deploys; a native run only waits when its own flag asks.
    deployWaitSeconds: executor === 'native' ? (flags.deployWait ?? 0) : (flags.deployWait ?? env.DEPLOY_WAIT_TIME_SECONDS ?? (prod ? 120 : 20)),
    sliceMaxRuntimeSeconds: flags.stallTimeout ?? env.SLICE_MAX_RUNTIME_SECONDS ?? 0,
    maxAttempts: flags.maxAttempts ?? env.SLICE_MAX_ATTEMPTS ?? 3,
    retryFailed: flags.retryFailed ?? env.SLICE_RETRY_IN_RUN ?? true,
    retryDelaySeconds: flags.retryDelay ?? env.SLICE_RETRY_DELAY_SECONDS ?? 30,
    deploymentGroup: flags.deploymentGroup ?? env.DEPLOYMENT_GROUP_TARGET ?? 'default',
    namespacePrefix: env.ILA_NS_BASE ?? 'ILA_',
    templateFile: flags.template ?? env.SOURCE_TQL_FILE ?? null,
    logDir: path.resolve(/*turbopackIgnore: true*/ logDir),
    sourceEngine, targetEngine,
    providerSrc: env.STRIIM_SOURCE_PROVIDER_TYPE ?? null,
    providerTgt: env.STRIIM_TARGET_PROVIDER_TYPE ?? null,
    sourceUrl, oracle,
    targetUrl: flags.targetUrl || env.SLICES_TARGET_URL || null,
    targetLake: flags.targetLake || env.SLICES_TARGET_LAKE || null,
    mergeKeys: (flags.mergeKeys || env.SLICES_MERGE_KEYS || '').split(',').map((s) => s.trim()).filter(Boolean),
    nativeBatchRows: flags.batchRows ?? env.NATIVE_BATCH_ROWS ?? 50_000,
    nativeSnapshot: flags.snapshot ?? env.NATIVE_SNAPSHOT ?? true,
    forceFresh: flags.forceFresh ?? env.FORCE_FRESH ?? false,
    striim: {
      baseUrl: striimUrl,
      user: envStriim.user,
      password: envStriim.password,
      token: envStriim.token,
      retries: flags.striimRetries ?? env.STRIIM_API_RETRIES ?? 5,
      backoffBaseMs: flags.backoffBase ?? env.STRIIM_BACKOFF_BASE_MS ?? 1000,
      backoffMaxMs: flags.backoffMax ?? env.STRIIM_BACKOFF_MAX_MS ?? 30_000,
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
