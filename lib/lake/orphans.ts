/**
 * Orphan-file removal (Iceberg's `remove_orphan_files`, Spark's
 * `DeleteOrphanFiles`): delete the files under a table's location that no
 * metadata reachable from the catalog references — no snapshot's manifest
 * list, manifest, data or delete file, no current or logged metadata file, no
 * statistics file — and that were last modified before a cutoff (Default: 3
 * days ago, Iceberg's `older_than`). The cutoff is what keeps an in-flight
 * writer safe: the files it has written but not yet committed are younger
 * than it. Writers that commit files older than the cutoff (an upload staged
 * for days) must not run alongside a sweep; the re-check just before
 * deleting narrows that window, it does not close it.
 *
 * Found by listing (`Storage.listDetailed`), compared by `uriKey` so the same
 * file spelt `file:///a`, `/a`, `s3a://` or `s3://` is one file. Memory: the
 * set of referenced paths and the orphans found; manifests are read one at a
 * time and not cached.
 */
import { runPool } from '../concurrency';
import { AppError } from '../errors';
import { readMetadata } from './metadata';
import { metadataFiles, reachableFiles, referencedFiles } from './reachability';
import type { TableView } from './scan';
import { catalogOf, type TableHandle } from './table-context';
import type { ManifestEntry } from './manifest';
import { isUnder, uriKey } from './uri-key';
import type { Cache } from '../cache/lru';

/** Iceberg's default `older_than`: 3 days. */
export const DEFAULT_ORPHAN_AGE_MS = 3 * 24 * 3600 * 1000;

export interface RemoveOrphansOptions {
  /** Only files last modified more than this long before `now` are removed. (Default: 3 days) */
  olderThanMs?: number;
  /** "Now" for the age test. (Default: Date.now()) */
  now?: number;
  /** List what would be deleted and delete nothing. (Default: false) */
  dryRun?: boolean;
  /** Deletes in flight at once. (Default: 16) */
  concurrency?: number;
}

export interface OrphanFile {
  uri: string;
  size: number;
  /** Last modification, ISO 8601. */
  modifiedAt: string;
}

export interface RemoveOrphansResult {
  dryRun: boolean;
  /** Files modified before this instant (ISO 8601) were old enough. */
  olderThan: string;
  /** The orphans found, by URI: deleted, or (dry run) that would be. */
  orphans: OrphanFile[];
  /** Files and bytes actually deleted (0 on a dry run). */
  deletedFiles: number;
  deletedBytes: number;
  /** Objects listed under the table's location. */
  listedFiles: number;
  /** Unreferenced files kept because they are younger than the cutoff (an uncommitted writer's, perhaps). */
  recentUnreferenced: number;
}

/**
 * Hidden names are skipped as Iceberg's DeleteOrphanFiles does (`_SUCCESS`,
 * `.crc` and other files of tools that share the folder), except partition
 * folders named `<field>=…` whose field starts with `_`, and the lake's own
 * temp files of an interrupted write (`.<name>.<12 hex>.tmp`, storage.ts),
 * which are litter this sweep exists for.
 */
function hidden(relative: string, partitionFields: string[]): boolean {
  const parts = relative.split('/');
  return parts.some((p, i) => {
    if (!p.startsWith('.') && !p.startsWith('_')) return false;
    if (i === parts.length - 1) return !/^\..+\.[0-9a-f]{12}\.tmp$/.test(p);
    return !partitionFields.some((f) => p.startsWith(`${f}=`));
  });
}

/** A manifest cache that serves what the table already holds and keeps nothing new: the sweep must not hold every manifest. */
class ReadThroughCache implements Cache<string, ManifestEntry[]> {
  constructor(private readonly base: Cache<string, ManifestEntry[]>) {}
  get(k: string) { return this.base.get(k); }
  set() {}
}

function sweepView(t: TableHandle): TableView {
  const v = t.view();
  return { ...v, cache: new ReadThroughCache(v.cache) };
}

/** Keys of what this table's metadata references, plus every other table sharing or nested in its folder. */
async function referencedKeys(t: TableHandle): Promise<Set<string>> {
  const view = sweepView(t);
  const keys = new Set<string>();
  for (const p of await referencedFiles(view, t.metadataLocation())) keys.add(uriKey(view.resolve(p)));
  const own = t.metadataLocation();
  for (const other of await catalogOf(t).tablesUnder(t.location)) {
    if (other.metadataLocation === own) continue;
    // A view (JdbcCatalog's `iceberg_type = 'VIEW'`) references no data files: its metadata file is all there is to keep.
    if (other.view) { keys.add(uriKey(other.metadataLocation)); continue; }
    const meta = await readMetadata(t.ctx.storage, other.metadataLocation, `${other.ident.namespace}.${other.ident.name}`);
    for (const p of await referencedFiles({ ...view, ident: `${other.ident.namespace}.${other.ident.name}`, metadata: meta }, other.metadataLocation)) keys.add(uriKey(p));
  }
  return keys;
}

export async function removeOrphanFiles(t: TableHandle, opts: RemoveOrphansOptions = {}): Promise<RemoveOrphansResult> {
  const olderThanMs = opts.olderThanMs ?? DEFAULT_ORPHAN_AGE_MS;
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) throw new AppError('validation', `lake: olderThanMs must be a duration ≥ 0, got ${olderThanMs}`, { field: 'olderThan' });
  const cutoff = (opts.now ?? Date.now()) - olderThanMs;
  catalogOf(t); // a table opened from its folder has no catalog to say what is reachable
  await t.refresh();
  const seenMeta = t.metadataLocation();
  const seenSnapshots = new Set(t.metadata().snapshots.map((s) => String(s['snapshot-id'])));
  const referenced = await referencedKeys(t);

  const location = t.location.replace(/\/+$/, '');
  const root = uriKey(location);
  const fields = [...new Set(t.metadata()['partition-specs'].flatMap((s) => s.fields.map((f) => f.name)))];
  let listed = 0, recent = 0;
  let candidates: OrphanFile[] = [];
  for await (const o of t.ctx.storage.listDetailed(location)) {
    listed++;
    const key = uriKey(o.uri);
    // the listing is of this folder; the check is what makes "never outside the location" hold whatever a store answers
    if (!isUnder(o.uri, location) || referenced.has(key) || hidden(key.slice(root.length + 1), fields)) continue;
    if (!(o.modifiedAt < cutoff)) { recent++; continue; }
    candidates.push({ uri: o.uri, size: o.size, modifiedAt: new Date(o.modifiedAt).toISOString() });
  }

  // A commit may have landed while we listed: what its new snapshots and metadata reference stays.
  await t.refresh();
  if (candidates.length && t.metadataLocation() !== seenMeta) {
    const view = sweepView(t);
    const fresh = t.metadata().snapshots.filter((s) => !seenSnapshots.has(String(s['snapshot-id'])));
    const now = await reachableFiles(view, fresh, { liveOnly: true, strict: true });
    for (const p of metadataFiles(t.metadata(), t.metadataLocation())) now.add(p);
    const keep = new Set([...now].map((p) => uriKey(view.resolve(p))));
    candidates = candidates.filter((c) => !keep.has(uriKey(c.uri)));
  }
  candidates.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));

  let deletedFiles = 0, deletedBytes = 0;
  if (!opts.dryRun) {
    await runPool(candidates, opts.concurrency ?? 16, async (c) => {
      await t.ctx.storage.delete(c.uri);
      t.ctx.cache.delete(c.uri);
      deletedFiles++; deletedBytes += c.size;
    });
  }
  t.ctx.logger.info(opts.dryRun ? 'lake orphan files found (dry run)' : 'lake orphan files removed', {
    table: t.ident, orphans: candidates.length, deletedFiles, deletedBytes, listedFiles: listed, recentUnreferenced: recent,
  });
  return {
    dryRun: !!opts.dryRun, olderThan: new Date(cutoff).toISOString(), orphans: candidates,
    deletedFiles, deletedBytes, listedFiles: listed, recentUnreferenced: recent,
  };
}
