import path from 'node:path';
import { z } from 'zod';
import { defineJob, type JobContext } from '../../jobs/types';
import { registerSlices } from '../run/register';
import { parseProbeRequest, parseSplitRequest, probeAction, splitAction } from './actions';
import { runFolder } from './store-recommendation';
import { openSourceDialect, sourceFromConnectionName, sourceFromEnv, type SourceConfig } from './source';
import { DEPTHS, STRATEGIES } from './validate';

const pos = z.number().int().positive();

/** Where a job reads from: a Tributary connection (by name) or a Postgres URL. */
const SourceFields = {
  /** Name of an oracle/postgres row of `connections`. */
  connection: z.string().min(1).optional(),
  /** A postgres:// URL (when no connection is named). */
  sourceUrl: z.string().min(1).optional(),
};
const TemplateFields = {
  /** The SQL template with ~SPLIT~ (or `queryFile`, a path the worker can read). */
  query: z.string().min(1).optional(),
  queryFile: z.string().min(1).optional(),
  table: z.string().min(1),
  alias: z.string().min(1).optional(),
};

async function sourceOf(ctx: JobContext, p: { connection?: string; sourceUrl?: string }): Promise<SourceConfig> {
  if (p.connection) return sourceFromConnectionName(ctx.pool, p.connection, { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir });
  if (p.sourceUrl) return sourceFromEnv({}, { engine: 'postgres', sourceUrl: p.sourceUrl });
  throw new Error('slices: a probe/split job needs `connection` or `sourceUrl`');
}

export const probeJob = defineJob({
  kind: 'slices.probe',
  description: 'Race split strategies on bounded samples and store the recommendation',
  payload: z.strictObject({
    ...TemplateFields,
    ...SourceFields,
    depth: z.enum(DEPTHS).default('bakeoff'),
    targetSliceSeconds: pos.optional(),
    sampleRows: pos.optional(),
    timeBudgetSeconds: pos.optional(),
    maxConcurrency: pos.optional(),
    runId: pos.optional(),
  }),
  async run(ctx, p) {
    const req = await parseProbeRequest(p, {}, ctx.env.dataDir);
    const dialect = await openSourceDialect(await sourceOf(ctx, p), { logger: ctx.logger, oracleClientLibDir: ctx.env.ORACLE_CLIENT_LIB_DIR });
    try {
      ctx.progress(0, 1);
      const out = await probeAction(dialect, req, { pool: ctx.pool, logger: ctx.logger, signal: ctx.signal });
      ctx.logger.info(out.panel);
      ctx.progress(1, 1);
      return { file: out.file, id: out.id, recommendation: out.recommendation };
    } finally {
      await dialect.exec.close();
    }
  },
});

export const splitJob = defineJob({
  kind: 'slices.split',
  description: 'Write the queryfile of disjoint slices and register them under a run',
  payload: z.strictObject({
    ...TemplateFields,
    ...SourceFields,
    target: z.string().min(1),
    strategy: z.enum(STRATEGIES).default('auto'),
    column: z.string().min(1).optional(),
    chunks: pos.optional(),
    subpartitions: z.boolean().default(false),
    assort: z.boolean().default(false),
    waveSize: pos.optional(),
    asOfScn: z.string().regex(/^(\d+|current)$/).optional(),
    sampleRows: pos.optional(),
    runId: pos,
    /** Queryfile path. (Default: <data>/runs/<runId>/queryfile.txt) */
    output: z.string().min(1).optional(),
  }),
  async run(ctx, p) {
    const req = await parseSplitRequest({ ...p, output: p.output ?? path.join(runFolder(ctx.env.dataDir, p.runId), 'queryfile.txt') }, {});
    const dialect = await openSourceDialect(await sourceOf(ctx, p), { logger: ctx.logger, oracleClientLibDir: ctx.env.ORACLE_CLIENT_LIB_DIR });
    try {
      const out = await splitAction(dialect, req, {
        logger: ctx.logger,
        register: (runId, slices, queryFile) => registerSlices(ctx.pool, { runId, slices, queryFile }),
      });
      if (out.waveSummary) ctx.logger.info(out.waveSummary);
      ctx.progress(out.lines.length, out.lines.length);
      return { file: out.file, slices: out.lines.length, strategy: out.plan.strategy, method: out.plan.method, registered: out.registered, scn: out.scn };
    } finally {
      await dialect.exec.close();
    }
  },
});

export const planningJobs = [probeJob, splitJob];
