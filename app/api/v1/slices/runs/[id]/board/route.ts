// GET /api/v1/slices/runs/:id/board - the live board feed (percent, counts, in-flight, completions, stage watch, log tail)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { AppError } from '@/lib/errors';
import { buildBoard, getStatus } from '@/lib/slices';

const Params = z.object({ id: z.coerce.number().int().min(0).max(2_147_483_647) });
const Query = z.object({
  /** Completions listed. (Default: 10) */
  recent: z.coerce.number().int().min(1).max(200).optional(),
  /** Log lines. (Default: 20) */
  lines: z.coerce.number().int().min(1).max(500).optional(),
});

export const GET = apiHandler({ params: Params, query: Query }, async ({ deps, params, query }) => {
  // Rows/s come from the orchestration table's counters: the web process does not call Striim.
  const board = await buildBoard(deps.pool, params.id, { striim: null, recent: query.recent, logLines: query.lines });
  if (board.total === 0 && !((await getStatus(deps.pool, { runId: params.id })) as { found: boolean }).found) {
    throw new AppError('not_found', `slice run ${params.id} not found`);
  }
  return board;
});
