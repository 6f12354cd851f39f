import type pg from 'pg';
import { toError } from '../errors';
import { publicUrl } from '../config/public-url';
import { requestCancel } from '../jobs/runs';
import type { Logger } from '../log';
import type { JobCatalog } from '../jobs/types';
import { planFlowStep } from './step-plan';
import { applyFlowStep, loadFlowStep } from './step-apply';
import type { LineageEmitter, LineageRunState } from '../lineage';
import { flowJobName } from '../jobs/lineage-parent';

/**
 * The DAG executor. It keeps no state of its own: every call reads a run's
 * nodes and their job runs from the database, moves them on, and commits,
 * all under a row lock taken with SKIP LOCKED. So any worker can advance
 * any run, two never advance the same one at once, and a worker killed
 * mid-way loses nothing (its transaction rolls back; the next tick redoes it).
 */
export interface ExecutorOptions {
  pool: pg.Pool;
  /** The job kinds and settings of this process (its edge's): a node's job is enqueued through them. */
  catalog: JobCatalog;
  logger: Logger;
  /** Base URL for links in alert mail. (Default: http://127.0.0.1:8765) */
  publicUrl?: string;
  /** OpenLineage: a FLOW run's START when it starts and COMPLETE / FAIL / ABORT when it closes. (Default: none) */
  lineage?: LineageEmitter | null;
}

/** Advance every queued or running flow run once. @returns how many runs were looked at */
export async function advanceFlowRuns(o: ExecutorOptions): Promise<number> {
  const r = await o.pool.query(`select id from flow_runs where status in ('queued', 'running') order by created_at limit 200`);
  for (const row of r.rows) {
    try {
      await advanceFlowRun(o, row.id);
    } catch (e) {
      o.logger.warn('flows: could not advance a run; next tick tries again', { flowRunId: row.id, error: toError(e).message });
    }
  }
  return r.rowCount ?? 0;
}

/**
 * Advance one run under its lock: load its state, plan the step (a pure
 * function, step-plan.ts), write the plan (step-apply.ts), commit. When a
 * node could not start, plan again in the same transaction: its failure may
 * skip its downstream or end the run at once.
 */
export async function advanceFlowRun(o: ExecutorOptions, runId: string): Promise<void> {
  const client = await o.pool.connect();
  let cancelJobs: string[] = [];
  // Sent once the transaction commits: a rolled-back tick redoes (and reports) the change.
  const lineage: LineageRunState[] = [];
  try {
    await client.query('begin');
    // Ends: every pass that fails a start turns a pending node into a failed one.
    for (;;) {
      const loaded = await loadFlowStep(client, runId);
      if (!loaded) break;
      const plan = planFlowStep(loaded.state, new Date());
      cancelJobs = plan.cancelJobs;
      const { startFailed } = await applyFlowStep(client, o.catalog, o.publicUrl ?? publicUrl(), loaded, plan);
      const jobName = flowJobName(loaded.run.flow_name);
      if (plan.startRun) lineage.push({ eventType: 'START', runId, jobName, jobType: 'FLOW' });
      if (plan.close) {
        const { status, error } = plan.close;
        lineage.push({ eventType: status === 'succeeded' ? 'COMPLETE' : status === 'failed' ? 'FAIL' : 'ABORT', runId, jobName, jobType: 'FLOW', error: error ?? undefined });
      }
      if (!startFailed) break;
    }
    await client.query('commit');
  } catch (e) {
    await client.query('rollback').catch(() => {}); // the original error is what matters; a failed ROLLBACK means the connection is already gone
    throw e;
  } finally {
    client.release();
  }
  for (const s of lineage) o.lineage?.emit(s);
  for (const j of cancelJobs) await requestCancel(o.pool, j).catch(() => {}); // a job that already ended cannot be cancelled: nothing to do
}
