/**
 * What the scheduler does for one flow at one tick. Pure, so the policies
 * are tested without a clock or a database.
 *
 * `cursor` is the last fire time already dealt with (or the moment the
 * schedule was set), `latest` the latest fire time at or before now. A fire
 * is on time when now is within `graceMs` of it; later than that it was
 * missed (no scheduler ran then) and the catch-up policy decides: `skip`
 * drops it, `once` runs it once, however many fires were missed.
 */
export type FirePlan =
  | { action: 'none' }
  | { action: 'fire'; at: Date; late: boolean }
  | { action: 'skip-missed'; at: Date };

export function planFire(p: { cursor: Date; latest: Date | null; now: Date; catchup: 'skip' | 'once'; graceMs: number }): FirePlan {
  if (!p.latest || p.latest.getTime() <= p.cursor.getTime()) return { action: 'none' };
  const late = p.now.getTime() - p.latest.getTime() > p.graceMs;
  if (!late) return { action: 'fire', at: p.latest, late: false };
  return p.catchup === 'once' ? { action: 'fire', at: p.latest, late: true } : { action: 'skip-missed', at: p.latest };
}

/**
 * The overlap policy, when a fire comes: `skip` drops it while a run is
 * going; `queue` keeps one run waiting behind it (a further fire while one
 * waits is dropped).
 */
export function planOverlap(policy: 'skip' | 'queue', active: { running: number; queued: number }): { start: boolean; reason?: string } {
  if (active.running + active.queued === 0) return { start: true };
  if (policy === 'queue' && active.queued === 0) return { start: true };
  return {
    start: false,
    reason: policy === 'skip' ? 'the previous run is still going (overlap: skip)' : 'a run is already queued behind the running one (overlap: queue)',
  };
}
