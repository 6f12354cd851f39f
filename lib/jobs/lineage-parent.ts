import type pg from 'pg';

/** The OpenLineage job name of a flow's runs (the flow run's own events and its jobs' `parent` facet). */
export const flowJobName = (flowName: string) => `flows.${flowName}`;

/** The flow run that started this job run (a flow node), for the `parent` run facet; null when none did. */
export async function flowParentOf(pool: pg.Pool, jobRunId: string): Promise<{ runId: string; jobName: string } | null> {
  const r = await pool.query(
    `select n.flow_run_id, f.name from flow_run_nodes n
       join flow_runs r on r.id = n.flow_run_id join flows f on f.id = r.flow_id
      where n.job_run_id = $1 limit 1`, [jobRunId]);
  return r.rowCount ? { runId: r.rows[0].flow_run_id, jobName: flowJobName(r.rows[0].name) } : null;
}
