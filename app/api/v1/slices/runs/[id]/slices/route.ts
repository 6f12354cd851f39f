// GET /api/v1/slices/runs/:id/slices - the run's slices (current registration), in order (?status=FAILED,QUARANTINED)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { AppError } from '@/lib/errors';
import { getStatus, STATUSES } from '@/lib/slices';

const Params = z.object({ id: z.coerce.number().int().min(0).max(2_147_483_647) });
const Query = z.object({
  status: z.string().optional().transform((v, ctx) => {
    if (!v) return undefined;
    const list = v.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
    const bad = list.find((s) => !(STATUSES as readonly string[]).includes(s));
    if (bad) { ctx.addIssue({ code: 'custom', message: `unknown status ${bad} (one of ${STATUSES.join(', ')})` }); return z.NEVER; }
    return list;
  }),
});

type Status = { found: boolean; rows?: { status: string }[] } & Record<string, unknown>;

export const GET = apiHandler({ params: Params, query: Query }, async ({ deps, params, query }) => {
  const s = (await getStatus(deps.pool, { runId: params.id, rows: true })) as Status;
  if (!s.found) throw new AppError('not_found', `slice run ${params.id} not found`);
  const rows = s.rows ?? [];
  return { runId: params.id, slices: query.status ? rows.filter((r) => query.status!.includes(r.status)) : rows };
});
