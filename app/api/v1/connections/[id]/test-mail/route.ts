// POST /api/v1/connections/:id/test-mail - send a test mail through an smtp connection: { to } → 202 { id } of the mail.test job (admin)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { json, principalLabel } from '@/lib/api';
import { connectionsContext, findConnection } from '@/lib/api/presenters/connections';
import { AppError } from '@/lib/errors';
import { enqueueJob } from '@/lib/jobs';

const Body = z.object({ to: z.string().trim().email('to: not an e-mail address') }).strict();

export const POST = apiHandler({ role: 'admin', params: z.object({ id: z.string().min(1).max(200) }), body: Body }, async ({ deps, params, body, principal }) => {
  const c = await findConnection(connectionsContext(deps), params.id);
  if (!c) throw new AppError('not_found', `connection ${params.id} not found`);
  if (c.kind !== 'smtp') throw new AppError('validation', `connection '${c.name}' is ${c.kind}, not smtp`, { field: 'id' });
  const { runId } = await enqueueJob(deps, { kind: 'mail.test', params: { connection: c.name, to: body.to }, createdBy: principalLabel(principal) });
  return json({ id: runId, kind: 'mail.test', status: 'queued' }, 202, { Location: `/api/v1/jobs/${runId}` });
});
