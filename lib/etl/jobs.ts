import { z } from 'zod';
import { defineJob } from '../jobs/types';
import { executeEtl } from './execute';
import { DEFAULT_SETTINGS } from './settings';

const list = z.union([z.string(), z.array(z.string())]).optional().transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : v.split(',').map((x) => x.trim()).filter(Boolean)));

/** Payload of `etl.run`: the CLI's parameters. */
export const EtlRunPayload = z.strictObject({
  mode: z.enum(['INITIAL', 'INCREMENTAL']),
  branch: list,
  tables: list,
  category: z.enum(['masters', 'transactions', 'both']).default('both'),
  selfTest: z.boolean().default(false),
  keepStaging: z.boolean().default(false),
  maxTableWorkers: z.number().int().min(1).optional(),
  loadWorkers: z.number().int().min(1).optional(),
  poolSize: z.number().int().min(1).optional(),
  retries: z.number().int().min(0).optional(),
  /** Seconds between retries. (Default: 300) */
  retryDelay: z.number().min(0).optional(),
  fetchBatchSize: z.number().int().min(1).optional(),
  compactDeletedRatio: z.number().min(0).max(1).optional(),
  plan: z.boolean().default(false),
  tablesFile: z.string().optional(),
  namespace: z.string().regex(/^[a-z0-9_]+$/).optional(),
});

export const etlJobs = [
  defineJob({
    kind: 'etl.run',
    description: 'Multi-branch extract/load into the lake (INITIAL or INCREMENTAL)',
    role: 'operator',
    payload: EtlRunPayload,
    async run(ctx, p) {
      const d = DEFAULT_SETTINGS;
      const settings = {
        ...d, mode: p.mode, branches: p.branch, tables: p.tables, category: p.category, keepStaging: p.keepStaging,
        maxTableWorkers: p.maxTableWorkers ?? d.maxTableWorkers, loadWorkers: p.loadWorkers ?? d.loadWorkers, poolSize: p.poolSize ?? d.poolSize,
        retries: p.retries ?? d.retries, retryDelayMs: p.retryDelay !== undefined ? Math.round(p.retryDelay * 1000) : d.retryDelayMs,
        fetchBatchSize: p.fetchBatchSize ?? d.fetchBatchSize, namespace: p.namespace ?? d.namespace,
        compactDeletedRatio: p.compactDeletedRatio ?? d.compactDeletedRatio,
      };
      let phaseOffset = 0; let lastPhase = ''; let lastTotal = 0;
      const summary = await executeEtl({ pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal }, settings, {
        tablesFile: p.tablesFile, selfTest: p.selfTest, plan: p.plan, runId: `etl-${ctx.runId}`, poolSizeOverride: p.poolSize,
        oracleClientLibDirEnv: ctx.env.ORACLE_CLIENT_LIB_DIR,
        progress: (done, total, phase) => {
          if (phase !== lastPhase) { phaseOffset += lastTotal; lastPhase = phase; lastTotal = total; }
          ctx.logger.debug('progress', { phase, done, total });
          ctx.progress(phaseOffset + done, phaseOffset + total);
        },
      });
      const failed = summary.units.filter((u) => u.status !== 'SUCCESS' && u.status !== 'PLANNED');
      if (!summary.ok) throw new Error(`etl: ${failed.length} of ${summary.units.length} units did not succeed (run ${summary.runId}): ${failed.slice(0, 5).map((u) => `${u.table}@${u.branch} ${u.status}`).join(', ')}`);
      return { runId: summary.runId, ok: summary.ok, units: summary.units.map(({ sql, binds, ...u }) => { void sql; void binds; return u; }), drift: summary.drift, durationMs: summary.durationMs };
    },
  }),
];
