import { Cron } from 'croner';
import cronstrue from 'cronstrue';

/**
 * Cron schedules in IANA time zones. Pure and browser-safe: the flow form uses
 * it for its preview, the API for validation, the scheduler for fire times.
 *
 * Semantics are classic 5-field cron (minute hour day-of-month month
 * day-of-week) with Vixie cron's rules: when both day fields are restricted a
 * day matching either fires; across DST a wall time that does not exist (the
 * spring-forward gap) fires at the first valid minute after it, and a wall
 * time that happens twice (fall back) fires once, at its first occurrence.
 */
export interface ScheduleProblem { field: 'cron' | 'timezone'; message: string }

/** Is `tz` an IANA zone name the runtime knows (`Europe/Berlin`, `UTC`)? */
export function isValidTimeZone(tz: string): boolean {
  if (!tz || typeof tz !== 'string') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function compile(cron: string, timezone: string): Cron {
  return new Cron(cron.trim(), { timezone, paused: true, mode: '5-part', legacyMode: true });
}

const FIELDS = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];
const NUMBER_ITEM = /^(\*|\d+(-\d+)?)(\/\d+)?$/;
const NAMED_ITEM = /^(\*|(\d+|[A-Za-z]{3})(-(\d+|[A-Za-z]{3}))?)(\/\d+)?$/;

/**
 * A field's syntax beyond Vixie cron's (numbers, `a-b` ranges, `a,b` lists, `/n` steps, `*`, and
 * three-letter names in month and day-of-week): croner also reads Quartz's `L`, `W`, `#` and `?`,
 * which a crontab refuses, so a schedule that means something else elsewhere is refused here.
 */
function vixieProblem(field: string, i: number): string | null {
  const item = i >= 3 ? NAMED_ITEM : NUMBER_ITEM;
  const tok = field.split(',').find((t) => !item.test(t));
  return tok === undefined ? null
    : `${FIELDS[i]} field: '${tok}' is not cron syntax (numbers, ranges a-b, lists a,b, steps */n${i >= 3 ? ', three-letter names' : ''}; Quartz's L, W, # and ? are not supported)`;
}

/** The first problem with a cron expression and zone, or null. */
export function checkSchedule(cron: string, timezone: string): ScheduleProblem | null {
  const expr = (cron ?? '').trim();
  if (!expr) return { field: 'cron', message: 'a cron expression is required' };
  const parts = expr.split(/\s+/);
  if (parts.length !== 5) {
    return { field: 'cron', message: `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}` };
  }
  const bad = parts.map((p, i) => vixieProblem(p, i)).find(Boolean);
  if (bad) return { field: 'cron', message: bad };
  if (!isValidTimeZone(timezone)) return { field: 'timezone', message: `unknown time zone '${timezone}' (use an IANA name such as Europe/Berlin or UTC)` };
  try {
    const c = compile(expr, timezone);
    if (!c.nextRun(new Date())) return { field: 'cron', message: 'this expression never fires' };
  } catch (e) {
    return { field: 'cron', message: String((e as Error).message).replace(/^CronPattern:\s*/, '') };
  }
  return null;
}

/**
 * The next `n` fire times strictly after `after`. Throws on a bad schedule
 * (check it first with checkSchedule).
 */
export function nextFireTimes(cron: string, timezone: string, after: Date, n = 5): Date[] {
  return compile(cron, timezone).nextRuns(n, after);
}

/** The next fire time strictly after `after`, or null when there is none. */
export function nextFireTime(cron: string, timezone: string, after: Date): Date | null {
  return compile(cron, timezone).nextRun(after);
}

/**
 * Fire times in (after, until], oldest first, at most `limit` of them (the
 * scheduler only needs the latest few to apply its catch-up policy).
 */
export function fireTimesBetween(cron: string, timezone: string, after: Date, until: Date, limit = 1000): Date[] {
  const c = compile(cron, timezone);
  const out: Date[] = [];
  let cur: Date | null = after;
  while (out.length < limit) {
    cur = c.nextRun(cur);
    if (!cur || cur.getTime() > until.getTime()) break;
    out.push(cur);
  }
  return out;
}

/** The schedule in words ("At 02:30 AM, Monday through Friday"). */
export function describeCron(cron: string): string {
  try {
    return cronstrue.toString(cron.trim(), { use24HourTimeFormat: true, verbose: false });
  } catch (e) {
    return String(e);
  }
}

/** A fire time as wall-clock text in a zone: `2026-03-29 03:00 (GMT+2)`. */
export function formatInZone(d: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
    hourCycle: 'h23', timeZoneName: 'shortOffset',
  }).formatToParts(d);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} (${get('timeZoneName')})`;
}

/** The latest fire time at or before `at`, or null when there is none. */
export function latestFireAtOrBefore(cron: string, timezone: string, at: Date): Date | null {
  return compile(cron, timezone).previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
}
