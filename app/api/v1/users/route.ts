// GET /api/v1/users - all users (admin)
// POST /api/v1/users - create a user { name, password, role } (admin)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { auditActor, json } from '@/lib/api';
import { createUser, listUsers, RoleSchema } from '@/lib/auth';

const CreateBody = z.object({
  name: z.string().min(1, 'name is required'),
  password: z.string().min(8, 'password must have at least 8 characters'),
  role: RoleSchema,
});

export const GET = apiHandler({ role: 'admin' }, async ({ deps }) => ({ users: await listUsers(deps.prisma) }));

export const POST = apiHandler({ role: 'admin', body: CreateBody }, async ({ req, deps, body, principal }) => {
  return json(await createUser(deps.prisma, body, auditActor(principal, req)), 201);
});
