import type pg from 'pg';

/** Append a line to a flow run's own log (scheduling decisions, alerts, mail tries). */
export async function logFlowRun(db: Pick<pg.Pool, 'query'>, flowRunId: string, level: 'info' | 'warn' | 'error', message: string): Promise<void> {
  await db.query('insert into flow_run_logs (flow_run_id, level, message) values ($1, $2, $3)', [flowRunId, level, message.slice(0, 10_000)]);
}
