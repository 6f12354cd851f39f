/**
 * Snapshot expiry (pyiceberg `ExpireSnapshots`): snapshots older than the
 * maximum age go, except the newest `minSnapshotsToKeep` ancestors of the
 * current one and whatever a ref names; then the files only the expired
 * snapshots referenced are deleted (the reachability walk). Recomputed on the
 * new metadata after a lost race, so it always retries.
 */
import { commitWithRetry } from './commit';
import { reachableFiles } from './reachability';
import type { TableHandle } from './table-context';
import { baseRequirements } from './table-update';
import type { Snapshot, TableMetadata } from './types';

export interface ExpireOptions {
  /** "Now" for the age test. (Default: Date.now()) */
  now?: number;
  /** (Default: table property history.expire.max-snapshot-age-ms, else 5 days) */
  maxSnapshotAgeMs?: number;
  /** (Default: table property history.expire.min-snapshots-to-keep, else 1) */
  minSnapshotsToKeep?: number;
}

/** The snapshots to keep and to expire in `base`. */
export function snapshotsToExpire(base: TableMetadata, now: number, maxAge: number, minKeep: number): { kept: Snapshot[]; expired: Snapshot[] } {
  const cur = base['current-snapshot-id'];
  // ancestors of the current snapshot, newest first
  const byId = new Map(base.snapshots.map((s) => [String(s['snapshot-id']), s]));
  const ancestors: Snapshot[] = [];
  for (let s = cur === null || cur === undefined ? undefined : byId.get(String(cur)); s; s = s['parent-snapshot-id'] === undefined ? undefined : byId.get(String(s['parent-snapshot-id']))) ancestors.push(s);
  const keep = new Set<string>();
  if (ancestors[0]) keep.add(String(ancestors[0]['snapshot-id']));
  ancestors.slice(0, Math.max(1, minKeep)).forEach((s) => keep.add(String(s['snapshot-id'])));
  for (const r of Object.values(base.refs)) keep.add(String(r['snapshot-id']));
  for (const s of base.snapshots) if (s['timestamp-ms'] >= now - maxAge) keep.add(String(s['snapshot-id']));
  return {
    kept: base.snapshots.filter((s) => keep.has(String(s['snapshot-id']))),
    expired: base.snapshots.filter((s) => !keep.has(String(s['snapshot-id']))),
  };
}

export async function expireSnapshots(t: TableHandle, opts: ExpireOptions = {}): Promise<{ expiredSnapshots: number; deletedFiles: string[] }> {
  const now = opts.now ?? Date.now();
  const maxAge = opts.maxSnapshotAgeMs ?? t.prop('history.expire.max-snapshot-age-ms', 5 * 24 * 3600 * 1000);
  const minKeep = opts.minSnapshotsToKeep ?? t.prop('history.expire.min-snapshots-to-keep', 1);
  let { expired, kept } = snapshotsToExpire(t.metadata(), now, maxAge, minKeep);
  if (!expired.length) return { expiredSnapshots: 0, deletedFiles: [] };
  await commitWithRetry(t, async (base) => {
    ({ kept, expired } = snapshotsToExpire(base, now, maxAge, minKeep));
    return {
      // the kept set was computed from this base: main must not have moved
      requirements: baseRequirements(base),
      updates: [{ action: 'remove-snapshots', 'snapshot-ids': expired.map((s) => s['snapshot-id']) }],
      written: [],
    };
  }, async () => { /* expiry is recomputed on the new base */ });
  if (!expired.length) return { expiredSnapshots: 0, deletedFiles: [] };
  // Files reachable from kept snapshots stay; files reachable only from expired ones go.
  const view = t.view();
  const keepFiles = await reachableFiles(view, kept, { liveOnly: true });
  const gone = [...await reachableFiles(view, expired)].filter((p) => !keepFiles.has(p));
  await Promise.all(gone.map((p) => t.ctx.storage.delete(p)));
  for (const p of gone) t.ctx.cache.delete(p);
  t.ctx.logger.info('lake snapshots expired', { table: t.ident, expired: expired.length, deletedFiles: gone.length });
  return { expiredSnapshots: expired.length, deletedFiles: gone.sort() };
}
