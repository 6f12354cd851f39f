// GET /api/v1/setup - whether the first-run admin still has to be created (no auth)
// POST /api/v1/setup - create the first admin { name, password }; refused once any user exists
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { json } from '@/lib/api';
import { clientAddress, countUsers, createFirstAdmin } from '@/lib/auth';
import { AppError } from '@/lib/errors';

export const GET = apiHandler({ role: 'public' }, async ({ deps }) => ({ needed: (await countUsers(deps.prisma)) === 0 }));

const Body = z.object({
  name: z.string().min(1, 'name is required'),
  password: z.string().min(8, 'password must have at least 8 characters'),
});

export const POST = apiHandler({ role: 'public', body: Body, maxBodyBytes: 4096 }, async ({ req, deps, body }) => {
  const user = await createFirstAdmin(deps.prisma, body, { address: clientAddress(req.headers) });
  if (!user) throw new AppError('conflict', 'Tributary is already set up: sign in instead');
  return json(user, 201);
});
