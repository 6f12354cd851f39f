// GET /api/v1/connections/:id - one connection by id or name (secret names only, never values)
// PATCH /api/v1/connections/:id - change params, branch flag/key or secrets; unnamed secrets are kept (admin)
// DELETE /api/v1/connections/:id - delete a connection (admin)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor } from '@/lib/api';
import { connectionsContext, findConnection } from '@/lib/api/presenters/connections';
import { checkConnectionFields } from '@/lib/api/presenters/connection-kinds';
import { ConnectionPatchSchema, deleteConnection, updateConnection } from '@/lib/connections';
import { AppError } from '@/lib/errors';

const Params = z.object({ id: z.string().min(1).max(200) });

export const GET = apiHandler({ params: Params }, async ({ deps, params }) => {
  const c = await findConnection(connectionsContext(deps), params.id);
  if (!c) throw new AppError('not_found', `connection ${params.id} not found`);
  return c;
});

export const DELETE = apiHandler({ role: 'admin', params: Params }, async ({ req, deps, params, principal }) => {
  const ctx = connectionsContext(deps);
  const c = await findConnection(ctx, params.id);
  if (!c || !(await deleteConnection(ctx, c.name, auditActor(principal, req)))) throw new AppError('not_found', `connection ${params.id} not found`);
  return { deleted: c.id, name: c.name };
});

export const PATCH = apiHandler({ role: 'admin', params: Params, body: ConnectionPatchSchema, maxBodyBytes: 64 * 1024 }, async ({ req, deps, params, body, principal }) => {
  const ctx = connectionsContext(deps);
  const c = await findConnection(ctx, params.id);
  if (!c) throw new AppError('not_found', `connection ${params.id} not found`);
  // Check the connection as it will be after the patch, before writing anything.
  const keep = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
  const nextParams = keep({ ...c.params, ...(body.params ?? {}) });
  const nextSecrets = keep({ ...Object.fromEntries(c.secretKeys.map((k) => [k, '*'])), ...(body.secrets ?? {}) }) as Record<string, string>;
  const problem = checkConnectionFields({ kind: c.kind, params: nextParams, secrets: nextSecrets });
  if (problem) throw new AppError('validation', `${problem.field}: ${problem.message}`, { field: problem.field });
  const updated = await updateConnection(ctx, c.name, body, auditActor(principal, req));
  if (!updated) throw new AppError('not_found', `connection ${params.id} not found`);
  return updated;
});
