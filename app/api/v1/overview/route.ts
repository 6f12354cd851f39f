// GET /api/v1/overview - workers alive with heartbeat age, queue depth, runs per hour over 24 h by status, failing units, lake freshness and DQ summary
import { apiHandler } from '@/app/_server/deps';
import { overview } from '@/lib/api/presenters/overview';

export const GET = apiHandler({}, async ({ deps }) => overview(deps.pool, { staleAfterSeconds: deps.env.TRIBUTARY_JOB_STALE_SECONDS }));
