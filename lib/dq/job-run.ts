import { unitSummary } from './result';
import { dataDirPaths } from '../config/data-path';
import type { JobContext } from '../jobs/types';
import { executeDq } from './execute';
import type { DqRequest } from './request';
import { AppError } from '../errors';

/**
 * The worker's side of `dq.run`. A run with a MISMATCH or ERROR unit fails,
 * carrying its per-unit result, so flows and the Runs page never call it a success.
 */
export async function runDqJob(ctx: JobContext, p: DqRequest): Promise<unknown> {
  const s = await executeDq({
    pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal, paths: dataDirPaths(ctx.env.dataDir), style: 'params',
    runId: `dq-${ctx.runId}`, progress: (done, total) => ctx.progress(done, total),
  }, p);
  const bad = s.results.filter((r) => r.status === 'MISMATCH' || r.status === 'ERROR');
  const result = {
    runId: s.runId, ok: s.ok, csv: s.csvFile ?? null,
    units: s.results.map(unitSummary),
  };
  // OpenLineage (when configured): the tables it compared, failed runs included. Lineage never fails a run.
  if (ctx.reportLineage) {
    const { dqLineage } = await import('./lineage');
    await dqLineage(ctx, p, s.results).then(ctx.reportLineage, (e) => ctx.logger.warn(`openlineage: could not describe the run's datasets: ${(e as Error).message}`));
  }
  if (!s.ok) throw Object.assign(new AppError('fatal', `dq: ${bad.length} of ${s.results.length} units MISMATCH or ERROR (run ${s.runId}): ${bad.slice(0, 5).map((r) => `${r.table}@${r.branch} ${r.status}`).join(', ')}`), { result });
  return result;
}
