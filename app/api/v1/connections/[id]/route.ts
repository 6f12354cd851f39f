// GET /api/v1/connections/:id - one connection by id or name (secret names only, never values)
// DELETE /api/v1/connections/:id - delete a connection (admin)
// (No PATCH yet: lib/connections has no update that keeps the stored secrets; re-create or re-import instead.)
import { z } from 'zod';
import { apiHandler } from '@/lib/api';
import { connectionsContext, findConnection } from '@/lib/api/presenters/connections';
import { deleteConnection } from '@/lib/connections';
import { AppError } from '@/lib/errors';

const Params = z.object({ id: z.string().min(1).max(200) });

export const GET = apiHandler({ params: Params }, async ({ deps, params }) => {
  const c = await findConnection(connectionsContext(deps), params.id);
  if (!c) throw new AppError('not_found', `connection ${params.id} not found`);
  return c;
});

export const DELETE = apiHandler({ role: 'admin', params: Params }, async ({ deps, params }) => {
  const ctx = connectionsContext(deps);
  const c = await findConnection(ctx, params.id);
  if (!c || !(await deleteConnection(ctx, c.name))) throw new AppError('not_found', `connection ${params.id} not found`);
  return { deleted: c.id, name: c.name };
});
