// GET /api/v1/health - liveness of the web process and its database (no auth)
import { apiHandler, json } from '@/lib/api';
import { VERSION } from '@/lib/jobs/version';

export const GET = apiHandler({ role: 'public' }, async ({ deps }) => {
  try {
    await deps.pool.query('select 1');
    return { status: 'ok', version: VERSION, database: 'ok' };
  } catch (e) {
    return json({ status: 'degraded', version: VERSION, database: (e as Error).message }, 503);
  }
});
