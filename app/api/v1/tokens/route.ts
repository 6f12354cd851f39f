// GET /api/v1/tokens - API tokens (yours; an admin sees everyone's), never the secret
// POST /api/v1/tokens - create a token { name, vendCredentials? (admin only) } for yourself; the token is in this answer only
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json } from '@/lib/api';
import { createApiToken, listApiTokens } from '@/lib/auth';
import { AppError } from '@/lib/errors';

const ListQuery = z.object({ includeRevoked: z.enum(['true', 'false', '1', '0']).optional() });

export const GET = apiHandler({ query: ListQuery }, async ({ deps, principal, query }) => {
  const tokens = await listApiTokens(deps.prisma, {
    userId: principal.role === 'admin' ? undefined : principal.userId,
    includeRevoked: query.includeRevoked === 'true' || query.includeRevoked === '1',
  });
  return { tokens };
});

const CreateBody = z.object({
  name: z.string().trim().min(1, 'name is required').max(100),
  /** The Iceberg REST catalog hands the token the object store's secrets; only an admin may set it. (Default: false) */
  vendCredentials: z.boolean().optional(),
});

export const POST = apiHandler({ body: CreateBody }, async ({ req, deps, principal, body }) => {
  if (body.vendCredentials && principal.role !== 'admin') throw new AppError('forbidden', 'vendCredentials: only an admin may create a token that receives object-store credentials', { field: 'vendCredentials' });
  const t = await createApiToken(deps.prisma, { user: principal.userId, name: body.name, vendCredentials: !!body.vendCredentials }, auditActor(principal, req));
  return json(t, 201);
});
