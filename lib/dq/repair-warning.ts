import type { RepairOutcome } from './repair';

/**
 * Why a repair did nothing, or left differences, as one sentence for a `warn`
 * line (null when it fixed everything it was asked to). A bare `rows=0` at info
 * level told the operator nothing.
 */
export function repairWarning(o: RepairOutcome): string | null {
  if (o.status === 'FAILED') return `the repair failed: ${o.error ?? 'no error given'}`;
  const why: string[] = [];
  const req = o.requested ?? { merge: 0, delete: 0 };
  if (req.merge > 0 && (o.merged?.rows ?? 0) === 0) why.push(`none of the ${req.merge} differing key(s) was found again at the source (their key values did not match there), so nothing was merged`);
  if (req.delete > 0 && (o.deleted ?? 0) === 0) why.push(`none of the ${req.delete} lake-only key(s) matched a live lake row, so nothing was deleted`);
  const changed = (o.merged?.rows ?? 0) + (o.deleted ?? 0);
  if (o.status === 'REPAIRED' && changed > 0) return null;
  if (changed === 0 && req.merge === 0 && req.delete === 0) why.push('no difference was one this repair may change');
  if (o.note) why.push(o.note);
  const left = o.recheck ? o.recheck.only_in_source + o.recheck.only_in_lake + o.recheck.hash_mismatch : 0;
  if (left > 0) why.push(`the re-check still differs on ${left} of ${o.recheck!.keys} key(s)`);
  return why.length ? why.join('; ') : null;
}
