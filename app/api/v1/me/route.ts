// GET /api/v1/me - who the request is authenticated as
import { apiHandler } from '@/app/_server/deps';

export const GET = apiHandler({}, async ({ principal }) => ({
  id: principal.userId, name: principal.userName, role: principal.role, via: principal.via,
}));
