// DELETE /api/v1/tokens/:id - revoke a token (your own; an admin may revoke any)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { revokeApiToken } from '@/lib/auth';

export const DELETE = apiHandler({ params: z.object({ id: z.string() }) }, async ({ req, deps, principal, params }) => {
  return revokeApiToken(deps.prisma, params.id, { userId: principal.role === 'admin' ? undefined : principal.userId, audit: auditActor(principal, req) });
});
