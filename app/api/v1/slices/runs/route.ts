// GET /api/v1/slices/runs - every slice run with its counts by status, verdict and watermark
import { apiHandler } from '@/app/_server/deps';
import { getStatus } from '@/lib/slices';

export const GET = apiHandler({}, async ({ deps }) => {
  const { runs } = (await getStatus(deps.pool, { allRuns: true })) as { runs: unknown[] };
  return { runs };
});
