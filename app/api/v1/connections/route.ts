// GET /api/v1/connections - every connection (?kind=&branches=true); secrets never returned, only their names
// POST /api/v1/connections - create a branch or service connection { name, kind, isBranch?, branchKey?, params, secrets } (admin)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json } from '@/lib/api';
import { checkConnectionFields } from '@/lib/api/presenters/connection-kinds';
import { connectionsContext } from '@/lib/api/presenters/connections';
import { CONNECTION_KINDS, ConnectionInputSchema, createConnection, listConnections } from '@/lib/connections';
import { AppError } from '@/lib/errors';

const ListQuery = z.object({
  kind: z.enum(CONNECTION_KINDS).optional(),
  /** Only branches. (Default: false) */
  branches: z.enum(['true', 'false']).optional(),
});

export const GET = apiHandler({ query: ListQuery }, async ({ deps, query }) => {
  return { connections: await listConnections(connectionsContext(deps), { kind: query.kind, branchesOnly: query.branches === 'true' }) };
});

export const POST = apiHandler({ role: 'admin', body: ConnectionInputSchema, maxBodyBytes: 64 * 1024 }, async ({ req, deps, body, principal }) => {
  const problem = checkConnectionFields(body);
  if (problem) throw new AppError('validation', `${problem.field}: ${problem.message}`, { field: problem.field });
  const created = await createConnection(connectionsContext(deps), body, { audit: auditActor(principal, req) });
  return json(created, 201, { Location: `/api/v1/connections/${created.id}` });
});
