import type { RunRequest } from '../requests';
import { lakeTargetFromSettings } from '../run/lake-writer';
import { defaultMergeKeys } from '../run/merge-keys';
import { createNativeExecutor } from '../run/native-executor';
import { createFanoutExecutor } from '../run/fanout-executor';
import { runSlices, type RunResult } from '../run/orchestrator';
import { resolveSettings, type RunFlags, type RunSettings } from '../run/settings';
import { lakeOf, postgresUrlOf, readFileOf, sourceOf, striimOf, writePathOf, type SlicesContext } from './context';
import { runSourceOf } from '../planning/source';

/** A request's run tunables as the settings resolver takes them (flags win over the environment). */
function flagsOf(r: Partial<RunRequest> & { runId: number }): RunFlags {
  return {
    runId: r.runId, executor: r.executor, concurrency: r.concurrency, monitorInterval: r.monitorInterval, deployWait: r.deployWait,
    stallTimeout: r.stallTimeout, maxAttempts: r.maxAttempts, retryFailed: r.retryFailed, retryDelay: r.retryDelay,
    deploymentGroup: r.deploymentGroup, template: r.template, logDir: r.logDir, sourceEngine: r.sourceEngine, targetEngine: r.targetEngine,
    targetLake: r.targetLake, mergeKeys: r.mergeKeys, batchRows: r.batchRows, snapshot: r.snapshot, forceFresh: r.forceFresh,
    striimRetries: r.striimRetries, backoffBase: r.backoffBase, backoffMax: r.backoffMax,
  };
}

/**
 * A request's settings: tunables from the request over the environment, and
 * the source, target and Striim from connections only (named, else the
 * environment's `env:source` / `env:striim`). Every connection is resolved
 * here, before anything is contacted.
 */
export async function settingsOf(ctx: SlicesContext, r: Partial<RunRequest> & { runId: number; connection?: string; targetConnection?: string; striimConnection?: string }): Promise<RunSettings> {
  const s = resolveSettings(ctx.env, flagsOf({ ...r, targetLake: lakeOf(ctx, r.targetLake) }), ctx.env.dataDir);
  if (r.connection) {
    const src = runSourceOf((await sourceOf(ctx, r.connection))!);
    s.sourceEngine = r.sourceEngine ?? src.engine;
    s.sourceUrl = src.engine === 'postgres' ? src.url : null;
    s.oracle = src.engine === 'oracle' ? { connectString: src.connectString, user: src.user, password: src.password } : null;
    if (!r.targetEngine) s.targetEngine = s.sourceEngine;
  }
  if (r.targetConnection) s.targetUrl = await postgresUrlOf(ctx, r.targetConnection, 'targetConnection');
  s.striim = { ...s.striim, ...(await striimOf(ctx, r.striimConnection)) };
  s.connections = { source: r.connection, target: r.targetConnection, striim: r.striimConnection };
  if (r.logDir && !ctx.local) s.logDir = await writePathOf(ctx, r.logDir, 'logDir');
  return s;
}

export interface RunOutcome extends RunResult { settings: RunSettings }

/** `slices run` / `slices.run`: register (fresh) or resume a run and drive its slices to completion. */
export async function executeRun(ctx: SlicesContext, r: RunRequest): Promise<RunOutcome> {
  const s = await settingsOf(ctx, r);
  const q = r.queryFile ? await readFileOf(ctx, r.queryFile, 'queryFile') : null;
  // A request's template path is checked like any request file; SOURCE_TQL_FILE is the operator's own setting.
  const t = r.template ? await readFileOf(ctx, r.template, 'template')
    : s.templateFile ? await readFileOf({ ...ctx, local: true }, s.templateFile, 'template') : null;
  const result = await runSlices({
    pool: ctx.pool, settings: s, logger: ctx.logger, signal: ctx.signal,
    queryFileText: r.queryFileText ?? q?.text ?? null, queryFilePath: q?.path ?? null,
    templateText: r.templateText ?? t?.text ?? null,
    print: ctx.print, progress: ctx.progress,
    nativeExecutor: async (x) => {
      if (s.targetLake && !s.mergeKeys.length) {
        s.mergeKeys = await defaultMergeKeys(ctx.pool, s, { oracleClientLibDir: ctx.env.ORACLE_CLIENT_LIB_DIR });
        x.log.info(`lake merge keys: ${s.mergeKeys.join(', ')} (the primary key of the table the slices read)`);
        await ctx.pool.query(`update slice_runs set settings = jsonb_set(settings, '{mergeKeys}', $2::jsonb) where run_id = $1`, [s.runId, JSON.stringify(s.mergeKeys)]);
      }
      const local = await createNativeExecutor({ ...x, lakeWriter: s.targetLake ? await lakeTargetFromSettings(ctx.pool, s, ctx.env.warehouse, ctx.env.s3) : null });
      if (!ctx.fanout) return local;
      // Slices go to every worker; this one keeps the snapshot and the run's state. Inline files stay here.
      const { queryFileText, templateText, ...rest } = r;
      void queryFileText; void templateText;
      // Merge keys looked up above travel with the slices, so every worker's lake writer merges on the same key.
      const request = { ...rest, mergeKeys: s.mergeKeys.length ? s.mergeKeys.join(',') : rest.mergeKeys };
      // No signal: the orchestrator's stop is graceful (in-flight slices finish); close() cancels what is left.
      return createFanoutExecutor({ ...ctx.fanout, pool: ctx.pool, env: ctx.env, logger: ctx.logger, request, local });
    },
  });
  return { ...result, settings: s };
}

