import { z } from 'zod';
import { defineJob, type JobContext } from '../jobs/types';
import type { Command } from './types';
import { AppError } from '../errors';
import { parseCliVars } from './cli-vars';

const list = z.union([z.string(), z.array(z.string())]).optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]).flatMap((s) => s.split(/\s+/)).filter(Boolean));

/** Payload of `models.run`, `models.test`, `models.build` and `models.seed`: the CLI's flags. */
export const ModelsPayload = z.strictObject({
  select: list.describe('dbt selectors (`name`, `+name`, `name+`, `tag:x`, `path:dir`); a string may hold several. (Default: everything)'),
  exclude: list.describe('dbt selectors to leave out (same syntax as select). (Default: none)'),
  fullRefresh: z.boolean().default(false).describe('Rebuild incremental models from scratch. (Default: false)'),
  vars: z.union([z.string(), z.record(z.string(), z.unknown())]).default({})
    .transform((v, ctx) => {
      if (typeof v !== 'string') return v;
      // a string is what the CLI's --vars takes: dbt's YAML mapping
      try { return parseCliVars(v); } catch (e) { ctx.addIssue({ code: 'custom', message: (e as Error).message }); return z.NEVER; }
    })
    .describe("Values for var('name'), over dbt_project.yml's vars: an object, or a YAML mapping as dbt's --vars takes it (`{days: 7}`)."),
  target: z.string().min(1).max(100).optional().describe("A `clickhouse` connection's name, or `embedded`. (Default: embedded)"),
});

export const ModelsQueryPayload = z.strictObject({
  sql: z.string().min(1).max(100_000).describe('One SQL query (SELECT) to run against the target.'),
  target: z.string().min(1).max(100).optional().describe("A `clickhouse` connection's name, or `embedded`. (Default: embedded)"),
});

/** What the models service takes from a job's context. */
const serviceDeps = (ctx: JobContext) => ({ pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal });

function commandJob(command: Command, description: string) {
  return defineJob({
    kind: `models.${command}`,
    description,
    role: 'operator',
    // dbt test has no --full-refresh (tests render no model), so neither has models.test. dbt seed has one; here a seed
    // is re-created on every load anyway, so models.seed takes it and has nothing more to do.
    payload: command === 'test' ? ModelsPayload.omit({ fullRefresh: true }) : ModelsPayload,
    // dbt test builds nothing: only run and build are lineage (a test's outcome is a DQ matter, left out here).
    ...(command === 'test' ? {} : { lineage: { jobType: 'MODEL' as const } }),
    async run(ctx: JobContext, p) {
      const { runModelsCommand } = await import('./service');
      const s = await runModelsCommand(serviceDeps(ctx), {
        command, select: p.select, exclude: p.exclude, fullRefresh: 'fullRefresh' in p && p.fullRefresh === true, vars: p.vars, target: p.target, runId: ctx.runId,
        onResult: (_r, done, total) => ctx.progress(done, total),
        onLineage: ctx.reportLineage,
      });
      // The job's result stays small: SQL and failing rows are in model_results.
      const results = s.results.map(({ sql, failingRows, ...r }) => { void sql; return { ...r, failingRows: failingRows?.length ? failingRows.slice(0, 10) : undefined }; });
      const bad = s.results.filter((r) => r.status === 'error' || r.status === 'fail' || r.status === 'skipped');
      // Like etl.run: a run with a failed model or test is a failed job; every result is in model_results under this run's id.
      if (!s.ok) throw new AppError('fatal', `models: ${command}: ${bad.length} of ${s.results.length} did not succeed: ${bad.slice(0, 8).map((r) => `${r.kind} ${r.name} ${r.status.toUpperCase()}${r.error ? ` (${r.error.slice(0, 200)})` : ''}`).join(', ')}${bad.length > 8 ? ', …' : ''}`);
      return { command, ok: s.ok, target: s.target, durationMs: s.durationMs, warnings: s.warnings.map((w) => w.message), results };
    },
  });
}

export const modelsJobs = [
  commandJob('run', 'Materialise the selected SQL models in ClickHouse (dbt run)'),
  commandJob('test', 'Run the tests of the selected SQL models (dbt test)'),
  commandJob('build', 'Seeds, models then their tests in DAG order, skipping what lies downstream of a failure (dbt build)'),
  commandJob('seed', 'Load the selected seeds (seeds/*.csv) into tables of the models target (dbt seed)'),
  defineJob({
    kind: 'models.query',
    description: 'A read-only SELECT on the models target (first 1,000 rows)',
    role: 'viewer',
    payload: ModelsQueryPayload,
    run: (ctx, p) => import('./service').then((m) => m.queryModels(serviceDeps(ctx), { sql: p.sql, target: p.target })),
  }),
];
