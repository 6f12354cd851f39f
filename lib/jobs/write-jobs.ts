import crypto from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../errors';
import { redactSecrets } from '../log/secret-scan';
import type { AuditActor } from '../audit';
import { QUEUE, bossDb, createBoss } from './queue';
import { notifyJobsQueued } from './wake';
import type { JobSource } from './runs';

/** A validated job to start: what its job_runs row and its queue job say. */
export interface JobToWrite {
  runId: string;
  kind: string;
  /** As the client wrote them (stored, and parsed again by the worker). */
  params: unknown;
  createdBy: string | null;
  source: JobSource;
  /** Record `job.start` with this actor; null for a run's own units (not a user action). */
  audit: AuditActor | null;
}

/**
 * Start any number of validated jobs on `client`, inside the caller's
 * transaction, with one statement per kind whatever their number
 * (graphile-worker's "one SQL per operation"): one INSERT of the run rows,
 * one pg-boss `insert` of their queue jobs, one INSERT of their audit events
 * and one wake-up. The queue job ids are chosen here and stored with the run
 * rows, so no UPDATE follows. Nothing commits here: the rows exist exactly
 * when the caller's own rows (a flow node's state, a pipeline's history) do.
 */
export async function writeJobs(client: Pick<pg.PoolClient, 'query'>, jobs: JobToWrite[]): Promise<void> {
  if (!jobs.length) return;
  const queueIds = jobs.map(() => crypto.randomUUID());
  await client.query(
    `insert into job_runs (id, kind, params, status, created_by, source, queue_job_id)
     select j.id, j.kind, j.params, 'queued', j.created_by, j.source, j.queue_job_id
       from unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::uuid[]) as j(id, kind, params, created_by, source, queue_job_id)`,
    [jobs.map((j) => j.runId), jobs.map((j) => j.kind), jobs.map((j) => JSON.stringify(j.params ?? {})),
      jobs.map((j) => j.createdBy), jobs.map((j) => j.source), queueIds]);
  await createBoss(client).insert(jobs.map((j, i) => ({ id: queueIds[i], name: QUEUE, data: { runId: j.runId, kind: j.kind } })), { db: bossDb(client) });
  // pg-boss's insert drops a job whose queue is missing without a word (its JOIN on the queue): count them.
  const queued = await client.query<{ n: number }>('select count(*)::int as n from pgboss.job where id = any($1::uuid[])', [queueIds]);
  if (queued.rows[0].n !== jobs.length) throw new AppError('internal', `jobs: queue '${QUEUE}' refused ${jobs.length - queued.rows[0].n} job(s) (is the database migrated?)`);
  // Wakes idle workers at commit, instead of at their next poll.
  await notifyJobsQueued(client);
  const audited = jobs.filter((j) => j.audit);
  if (audited.length) {
    await client.query(
      `insert into audit_events (actor, action, target, after, address)
       select a.actor, 'job.start', a.target, a.after, a.address from unnest($1::text[], $2::text[], $3::jsonb[], $4::text[]) with ordinality as a(actor, target, after, address, i) order by a.i`,
      [audited.map((j) => j.audit!.actor), audited.map((j) => `job:${j.runId}`),
        audited.map((j) => JSON.stringify({ kind: j.kind, params: redactSecrets(j.params ?? {}) })), audited.map((j) => j.audit!.address ?? null)]);
  }
}
