// POST /api/v1/flows/validate - check a flow definition without saving it → { ok, flow, description, nextFires }
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { describeCron, nextFireTimes, validateFlow, formatInZone } from '@/lib/flows';

export const POST = apiHandler({ body: z.record(z.string(), z.unknown()), maxBodyBytes: 512 * 1024 }, async ({ deps, body }) => {
  const f = await validateFlow(deps.pool, deps, body);
  const next = f.cron ? nextFireTimes(f.cron, f.timezone, new Date(), 5) : [];
  return {
    ok: true, flow: f, description: f.cron ? describeCron(f.cron) : null,
    nextFires: next.map((d) => ({ utc: d.toISOString(), local: formatInZone(d, f.timezone) })),
  };
});
