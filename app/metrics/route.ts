// GET /metrics - Prometheus metrics (text exposition format), for a token or session of any role
import { apiHandler } from '@/app/_server/deps';
import { metricsResponse } from '@/lib/metrics';

export const GET = apiHandler({}, async ({ deps }) => metricsResponse(deps));
