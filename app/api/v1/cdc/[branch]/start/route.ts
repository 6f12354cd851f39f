// POST /api/v1/cdc/:branch/start - start the branch's stream as a cdc.stream job: { flushInterval?, flushRows?, namespace?, tablesFile? } → 202 { id } (operator; 409 while one is queued or running)
import { apiHandler } from '@/app/_server/deps';
import { accepted, auditActor, principalLabel } from '@/lib/api';
import { queueLimits } from '@/lib/jobs';
import { startStreamJob } from '@/lib/cdc/control';
import { CdcBranchParam, CdcStartBody } from '@/lib/cdc/request';

export const POST = apiHandler({ role: 'operator', params: CdcBranchParam, body: CdcStartBody, enqueues: true }, async ({ req, deps, params, body, principal, idempotency }) => {
  const { runId, replayed } = await startStreamJob(deps, params.branch, body, {
    createdBy: principalLabel(principal), audit: auditActor(principal, req), idempotency, admission: queueLimits(deps.env),
  });
  return accepted({ id: runId, kind: 'cdc.stream', branch: params.branch }, `/api/v1/jobs/${runId}`, replayed);
});
