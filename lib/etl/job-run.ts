import { dataDirPaths } from '../config/data-path';
import { fanoutWanted } from '../jobs/fanout';
import type { JobContext } from '../jobs/types';
import { executeEtl } from './execute';
import type { EtlRequest } from './request';
import { etlRunWarnings } from './run-warnings';
import { AppError } from '../errors';

/** The worker's side of `etl.run`: the CLI's execute, with a job's path policy and progress across phases; fanned out (TRIBUTARY_FANOUT, lib/jobs/fanout.ts) it coordinates `etl.unit` jobs. */
export async function runEtlJob(ctx: JobContext, p: EtlRequest): Promise<unknown> {
  let phaseOffset = 0; let lastPhase = ''; let lastTotal = 0;
  const summary = await executeEtl({
    pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal, paths: dataDirPaths(ctx.env.dataDir), style: 'params', runId: `etl-${ctx.runId}`,
    fanout: await fanoutWanted(ctx) ? { jobs: ctx.jobs, parentRunId: ctx.runId, runInline: ctx.runInline } : undefined,
    progress: (done, total, phase) => {
      if (phase !== lastPhase) { phaseOffset += lastTotal; lastPhase = phase; lastTotal = total; }
      ctx.logger.debug('progress', { phase, done, total });
      ctx.progress(phaseOffset + done, phaseOffset + total);
    },
  }, p);
  // A planned unit that could not be described or rendered would fail when run: a plan
  // with such units is a failed plan, not a success with notes.
  const failed = summary.units.filter((u) => (u.status !== 'SUCCESS' && u.status !== 'PLANNED') || (u.status === 'PLANNED' && u.error));
  const units = summary.units.map(({ sql, binds, ...u }) => { void sql; void binds; return u; });
  // OpenLineage (when configured): what the run read and wrote, failed runs included. Lineage never fails a run.
  if (ctx.reportLineage) {
    const { etlLineage } = await import('./lineage');
    await etlLineage(ctx, p, summary.units).then(ctx.reportLineage, (e) => ctx.logger.warn(`openlineage: could not describe the run's datasets: ${(e as Error).message}`));
  }
  if (failed.length || !summary.ok) {
    throw Object.assign(new AppError('fatal', `etl: ${failed.length} of ${summary.units.length} units did not succeed (run ${summary.runId}): ${failed.slice(0, 5).map((u) => `${u.table}@${u.branch} ${u.status}${u.error ? ` (${u.error.split('\n')[0].slice(0, 200)})` : ''}`).join(', ')}`), {
      result: { runId: summary.runId, ok: false, units, drift: summary.drift, durationMs: summary.durationMs },
    });
  }
  const warnings = etlRunWarnings(summary, !!p.selfTest);
  for (const w of warnings) ctx.logger.warn(w);
  return { runId: summary.runId, ok: summary.ok, units, drift: summary.drift, durationMs: summary.durationMs, warnings };
}
