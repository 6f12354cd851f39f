// GET /api/v1/audit - the audit log, newest first (admin; ?actor=&action=&target=&since=&until=&before=&limit=)
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { listAuditEvents } from '@/lib/audit';

const Query = z.object({
  /** Exact actor: `user:alice`, `token:alice/ci`, `login:alice`. */
  actor: z.string().min(1).max(300).optional(),
  /** Exact action (`user.update`) or a prefix ending in `.` (`login.`). */
  action: z.string().min(1).max(100).optional(),
  /** Exact target (`connection:erp`) or a prefix ending in `:` (`job:`). */
  target: z.string().min(1).max(300).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  /** Only events with a smaller id: pass the last id of a page for the next one. */
  before: z.string().regex(/^\d{1,19}$/, 'an event id').optional(),
  /** (Default: 100, at most 1000) */
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const GET = apiHandler({ role: 'admin', query: Query }, async ({ deps, query }) => {
  const limit = query.limit ?? 100;
  const events = await listAuditEvents(deps.pool, {
    actor: query.actor, action: query.action, target: query.target,
    since: query.since ? new Date(query.since) : undefined, until: query.until ? new Date(query.until) : undefined,
    beforeId: query.before, limit,
  });
  return { events, next: events.length === limit ? events[events.length - 1].id : null };
});
