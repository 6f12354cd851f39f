// GET /api/v1/freshness - every asset with a freshness expectation and its status (pass, warn, error, unknown), lag and thresholds
import { apiHandler } from '@/app/_server/deps';
import { freshnessReport, freshnessSources } from '@/lib/freshness';

export const GET = apiHandler({}, async ({ deps }) => freshnessReport(deps.pool, freshnessSources(deps.env)));
