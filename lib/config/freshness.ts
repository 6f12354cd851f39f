import { z } from 'zod';

/**
 * Freshness expectations (issue 24): how old an asset's last successful load
 * or build may get before it warns or errors. A duration is dbt's
 * `{ count: 12, period: hour }` (period minute, hour or day, as dbt's source
 * freshness takes) or the short form "30m", "2h", "1d" (also "45s").
 * At least one of warn_after / error_after; error_after ≥ warn_after.
 * Pure: used by tables.json (lib/config/tables-json.ts) and by the models
 * project's schema.yml reader (lib/freshness/schema-yml-freshness.ts).
 */
export interface FreshnessExpectation {
  /** Seconds after which the asset warns; null: never warns. */
  warnAfterS: number | null;
  /** Seconds after which the asset errors; null: never errors. */
  errorAfterS: number | null;
}

const PERIOD_S = { second: 1, minute: 60, hour: 3600, day: 86_400 } as const;
const SHORT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in seconds, or a message saying what is wrong (the caller names the field). */
export function parseDuration(v: unknown): number | string {
  if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(v);
    if (!m) return `must be a duration like "30m", "2h" or "1d", or {count, period}, got ${JSON.stringify(v)}`;
    const s = Number(m[1]) * SHORT_S[m[2]];
    return s > 0 ? s : 'must be longer than 0';
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => k !== 'count' && k !== 'period');
    if (extra.length) return `unknown field ${extra.map((k) => JSON.stringify(k)).join(', ')} (a duration is {count, period})`;
    if (typeof o.count !== 'number' || !Number.isFinite(o.count) || o.count <= 0) return `count must be a number > 0, got ${JSON.stringify(o.count)}`;
    if (typeof o.period !== 'string' || !(o.period in PERIOD_S) || o.period === 'second') return `period must be minute, hour or day, got ${JSON.stringify(o.period)}`;
    return o.count * PERIOD_S[o.period as keyof typeof PERIOD_S];
  }
  return `must be a duration like "30m", "2h" or "1d", or {count, period}, got ${JSON.stringify(v)}`;
}

/**
 * Validate a `freshness` block. `null` means "no expectation" (it switches off
 * an inherited one, as dbt's `freshness: null` does). Problems are returned as
 * `field <prefix>.warn_after: …` lines.
 * @param extraKeys keys allowed beside warn_after / error_after (dbt's `filter` on sources)
 */
export function parseFreshnessBlock(raw: unknown, prefix: string, extraKeys: readonly string[] = []): { value: FreshnessExpectation | null; problems: string[] } {
  if (raw === null) return { value: null, problems: [] };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { value: null, problems: [`field ${prefix}: must be an object {warn_after, error_after} or null`] };
  const o = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(o)) if (k !== 'warn_after' && k !== 'error_after' && !extraKeys.includes(k)) problems.push(`field ${prefix}: unknown field ${JSON.stringify(k)} (known: warn_after, error_after)`);
  const one = (k: 'warn_after' | 'error_after'): number | null => {
    // dbt writes an unset threshold as absent, null, or {count: null, period: null}
    const v = o[k];
    if (v === undefined || v === null) return null;
    if (typeof v === 'object' && !Array.isArray(v) && (v as { count?: unknown }).count === null) return null;
    const d = parseDuration(v);
    if (typeof d === 'string') { problems.push(`field ${prefix}.${k}: ${d}`); return null; }
    return d;
  };
  const warnAfterS = one('warn_after');
  const errorAfterS = one('error_after');
  if (!problems.length && warnAfterS === null && errorAfterS === null) problems.push(`field ${prefix}: needs warn_after or error_after`);
  if (warnAfterS !== null && errorAfterS !== null && errorAfterS < warnAfterS) problems.push(`field ${prefix}.error_after: must be at least warn_after`);
  return problems.length ? { value: null, problems } : { value: { warnAfterS, errorAfterS }, problems };
}

const email = z.string().trim().email('not an e-mail address');

/** tables.json's top-level `freshness_alerts`: who hears of a breach, and through which smtp connection. */
export const FreshnessAlertsSchema = z.strictObject({
  /** Mail recipients of breach alerts (1–50). */
  recipients: z.array(email, { message: 'must be a list of e-mail addresses' }).min(1, { message: 'needs at least one address' }).max(50),
  /** smtp connection to send with. (Default: the first smtp connection, as flow alerts) */
  smtp_connection: z.string().min(1).max(100).optional(),
});
export type FreshnessAlerts = z.infer<typeof FreshnessAlertsSchema>;

/** Validate tables.json's `freshness_alerts` (undefined/null: no alerts). */
export function parseFreshnessAlerts(raw: unknown, prefix = 'freshness_alerts'): { value: FreshnessAlerts | null; problems: string[] } {
  if (raw === undefined || raw === null) return { value: null, problems: [] };
  const r = FreshnessAlertsSchema.safeParse(raw);
  if (r.success) return { value: r.data, problems: [] };
  return {
    value: null,
    problems: r.error.issues.map((iss) => iss.code === 'unrecognized_keys'
      ? `field ${prefix}: unknown field ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}`
      : `field ${[prefix, ...iss.path].join('.')}: ${iss.message}`),
  };
}
