// GET /api/v1/tokens - API tokens (yours; an admin sees everyone's), never the secret
// POST /api/v1/tokens - create a token { name } for yourself; the token is in this answer only
import { z } from 'zod';
import { apiHandler, auditActor, json } from '@/lib/api';
import { createApiToken, listApiTokens } from '@/lib/auth';

const ListQuery = z.object({ includeRevoked: z.enum(['true', 'false', '1', '0']).optional() });

export const GET = apiHandler({ query: ListQuery }, async ({ deps, principal, query }) => {
  const tokens = await listApiTokens(deps.prisma, {
    userId: principal.role === 'admin' ? undefined : principal.userId,
    includeRevoked: query.includeRevoked === 'true' || query.includeRevoked === '1',
  });
  return { tokens };
});

export const POST = apiHandler({ body: z.object({ name: z.string().trim().min(1, 'name is required').max(100) }) }, async ({ req, deps, principal, body }) => {
  const t = await createApiToken(deps.prisma, { user: principal.userId, name: body.name }, auditActor(principal, req));
  return json(t, 201);
});
