// POST /api/v1/cdc/:branch/stop - stop the branch's stream after a last flush, keeping its slot; cancels its queued or running cdc.stream runs (operator)
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { stopStream } from '@/lib/cdc/control';
import { CdcBranchParam } from '@/lib/cdc/request';

export const POST = apiHandler({ role: 'operator', params: CdcBranchParam }, async ({ req, deps, params, principal }) => stopStream(deps.pool, params.branch, auditActor(principal, req)));
