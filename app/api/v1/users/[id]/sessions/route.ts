// DELETE /api/v1/users/:id/sessions - end every panel session of a user at once (admin; API tokens are revoked separately)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { endSessions } from '@/lib/auth';

export const DELETE = apiHandler({ role: 'admin', params: z.object({ id: z.string() }) }, async ({ req, deps, params, principal }) => {
  const u = await endSessions(deps.prisma, params.id, auditActor(principal, req));
  return { ended: true, user: u.name };
});
