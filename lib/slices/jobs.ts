import { z } from 'zod';
import { defineJob, type JobDefinition } from '../jobs/types';
import { planningJobs } from './planning/jobs';

/**
 * Job kinds of the slices engine. Handlers import the engine lazily (the web
 * process only validates payloads). Settings come from the worker's
 * environment (seed 001's names: STRIIM_NODE, CONCURRENT_APPS_MAX, …) with the
 * payload's fields overriding them, exactly as CLI flags do.
 */
const runId = z.number().int().min(1);
const num = z.number().min(0);

const runPayload = z.object({
  runId,
  /** Queryfile contents (`SQL|TARGET` lines), for a fresh run. */
  queryFileText: z.string().optional(),
  /** Or a queryfile path readable by the worker. */
  queryFile: z.string().optional(),
  templateText: z.string().optional(),
  executor: z.enum(['striim', 'native']).optional(),
  concurrency: z.number().int().min(1).optional(),
  monitorInterval: num.optional(),
  deployWait: num.optional(),
  stallTimeout: num.optional(),
  maxAttempts: z.number().int().min(1).optional(),
  retryFailed: z.boolean().optional(),
  retryDelay: num.optional(),
  sourceUrl: z.string().optional(),
  targetUrl: z.string().optional(),
  targetLake: z.string().optional(),
  mergeKeys: z.string().optional(),
  batchRows: z.number().int().min(1).optional(),
  forceFresh: z.boolean().optional(),
  striimUrl: z.string().optional(),
});

export const slicesRunJob = defineJob({
  kind: 'slices.run',
  description: 'Register (fresh) or resume a slice run and drive it to completion (Striim or native executor)',
  payload: runPayload,
  async run(ctx, p) {
    const fs = await import('node:fs/promises');
    const { resolveSettings } = await import('./run/settings');
    const { runSlices } = await import('./run/orchestrator');
    const { createNativeExecutor } = await import('./run/native-executor');
    const { lakeTargetFromSettings } = await import('./run/lake-writer');
    const s = resolveSettings(process.env, p, ctx.env.dataDir);
    const queryFileText = p.queryFileText ?? (p.queryFile ? await fs.readFile(p.queryFile, 'utf8') : null);
    const r = await runSlices({
      pool: ctx.pool, settings: s, logger: ctx.logger, signal: ctx.signal, queryFileText, queryFilePath: p.queryFile ?? null,
      templateText: p.templateText ?? null, progress: ctx.progress,
      nativeExecutor: async (x) => createNativeExecutor({ ...x, lakeWriter: s.targetLake ? await lakeTargetFromSettings(ctx.pool, s, ctx.env.warehouse, ctx.env.s3) : null }),
    });
    return { verdict: r.verdict, mode: r.mode, counts: r.counts, watermark: r.watermark, apiRetries: r.apiRetries, apiReauths: r.apiReauths };
  },
});

export const slicesResetJob = defineJob({
  kind: 'slices.reset',
  description: 'Re-queue FAILED (optionally COMPLETED-FAILEDDROP / QUARANTINED) slices of a run as NEW',
  payload: z.object({ runId, includeFaileddrop: z.boolean().optional(), includeQuarantined: z.boolean().optional(), withStriimCleanup: z.boolean().optional() }),
  async run(ctx, p) {
    const { resetRun } = await import('./run/manage');
    const { resolveSettings } = await import('./run/settings');
    const { createStriimClient } = await import('./run/striim-client');
    const s = resolveSettings(process.env, { runId: p.runId }, ctx.env.dataDir);
    return resetRun(ctx.pool, p.runId, { ...p, striim: p.withStriimCleanup ? createStriimClient(s.striim) : null, prefix: s.namespacePrefix });
  },
});

export const slicesClearJob = defineJob({
  kind: 'slices.clear',
  description: "Retire a run from the active view (history kept), or hard-delete its rows",
  role: 'admin',
  payload: z.object({ runId, hard: z.boolean().optional(), withStriimCleanup: z.boolean().optional() }),
  async run(ctx, p) {
    const { clearRun } = await import('./run/manage');
    const { resolveSettings } = await import('./run/settings');
    const { createStriimClient } = await import('./run/striim-client');
    const s = resolveSettings(process.env, { runId: p.runId }, ctx.env.dataDir);
    return clearRun(ctx.pool, p.runId, { hard: p.hard, striim: p.withStriimCleanup ? createStriimClient(s.striim) : null, prefix: s.namespacePrefix });
  },
});

export const slicesReconcileJob = defineJob({
  kind: 'slices.reconcile',
  description: 'Per-slice source COUNT(*) (AS OF SCN on Oracle) against the target, with deltas',
  role: 'viewer',
  payload: z.object({ runId, sourceUrl: z.string().optional(), targetUrl: z.string().optional(), targetLake: z.string().optional() }),
  async run(ctx, p) {
    const { resolveSettings } = await import('./run/settings');
    const { openSource } = await import('./run/source');
    const { reconcileRun } = await import('./run/reconcile');
    const { createPool } = await import('../db/pool');
    const { lakeCounter } = await import('./run/lake-writer');
    const s = resolveSettings(process.env, p, ctx.env.dataDir);
    const source = await openSource(s);
    const tpool = s.targetUrl && !s.targetLake ? createPool(s.targetUrl, { max: 2 }) : null;
    try {
      return await reconcileRun(ctx.pool, p.runId, {
        source, engine: s.sourceEngine,
        target: tpool ? { kind: 'postgres', pool: tpool } : s.targetLake ? { kind: 'lake', count: lakeCounter(ctx.pool, s.targetLake === 'default' ? ctx.env.warehouse : s.targetLake, ctx.env.s3) } : null,
      });
    } finally { await source?.close().catch(() => {}); await tpool?.end().catch(() => {}); }
  },
});

/** Every slices job kind: run / reset / clear / reconcile here, probe / split from planning. */
export const slicesJobs: JobDefinition[] = [slicesRunJob, slicesResetJob, slicesClearJob, slicesReconcileJob, ...planningJobs] as JobDefinition[];
