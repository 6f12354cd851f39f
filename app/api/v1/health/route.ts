// GET /api/v1/health - liveness of the web process and its database (no auth)
import { apiHandler } from '@/app/_server/deps';
import { json } from '@/lib/api';
import { VERSION } from '@/lib/jobs/version';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '@/lib/errors/db-unavailable';

export const GET = apiHandler({ role: 'public' }, async ({ deps }) => {
  try {
    await deps.pool.query('select 1');
    return { status: 'ok', version: VERSION, database: 'ok' };
  } catch (e) {
    // Load balancers and `tributary serve`'s own probe read the status; people read `database`.
    const down = isDatabaseUnavailable(e);
    return json({ status: 'degraded', version: VERSION, database: down ? 'unavailable' : 'error', reason: (e as Error).message }, 503,
      { 'Retry-After': String(DB_RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' });
  }
});
