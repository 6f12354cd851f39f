// PATCH /api/v1/users/:id - change role and/or password { role?, password? } (admin)
// DELETE /api/v1/users/:id - delete a user and their tokens (admin; not yourself)
// A role or password change ends the user's panel sessions.
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { deleteUser, RoleSchema, updateUser } from '@/lib/auth';
import { AppError } from '@/lib/errors';

const Params = z.object({ id: z.string() });
const PatchBody = z.object({ role: RoleSchema.optional(), password: z.string().min(8, 'password must have at least 8 characters').optional() }).strict();

export const PATCH = apiHandler({ role: 'admin', params: Params, body: PatchBody }, async ({ req, deps, params, body, principal }) => {
  if (params.id === principal.userId && body.role && body.role !== 'admin') {
    throw new AppError('conflict', 'you cannot take the admin role from yourself', { field: 'role' });
  }
  return updateUser(deps.prisma, params.id, body, auditActor(principal, req));
});

export const DELETE = apiHandler({ role: 'admin', params: Params }, async ({ req, deps, params, principal }) => {
  if (params.id === principal.userId) throw new AppError('conflict', 'you cannot delete yourself');
  await deleteUser(deps.prisma, params.id, auditActor(principal, req));
  return { deleted: params.id };
});
