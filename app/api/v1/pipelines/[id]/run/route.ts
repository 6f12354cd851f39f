// POST /api/v1/pipelines/:id/run - run a pipeline now → 202 { id } of the job run (operator; Idempotency-Key honoured; 429 when the queue is full)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { accepted, principalLabel } from '@/lib/api';
import { getJobRun, queueLimits } from '@/lib/jobs';
import { assertMayRunWork } from '@/lib/api/presenters/job-role';
import { AppError } from '@/lib/errors';
import { getPipeline, runPipeline } from '@/lib/pipelines';

export const POST = apiHandler({ role: 'operator', params: z.object({ id: z.string().min(1).max(200) }), enqueues: true }, async ({ req, deps, params, principal, idempotency }) => {
  const p = await getPipeline(deps.pool, deps, params.id);
  if (!p) throw new AppError('not_found', `pipelines: no pipeline '${params.id}'`);
  await assertMayRunWork(deps.pool, deps, { principal, req }, p.kind, p.params, { action: 'pipeline.run', target: `pipeline:${p.name}`, verb: 'running a pipeline of' });
  const { runId, replayed } = await runPipeline(deps.pool, deps, p.id, principalLabel(principal), { idempotency, admission: queueLimits(deps.env) });
  const status = replayed ? (await getJobRun(deps.pool, runId, { logLimit: 0 }))?.status ?? 'queued' : 'queued';
  return accepted({ id: runId, kind: p.kind, pipeline: p.name, status }, `/api/v1/jobs/${runId}`, replayed);
});
