/**
 * Which files a set of snapshots references: their manifest lists, manifests
 * and data/delete files. The one walk behind snapshot expiry (what only
 * expired snapshots referenced), dropping with purge (everything, adopted
 * files outside the table folder included) and the orphan-file sweep (what
 * lies under the folder yet nothing here references, orphans.ts).
 */
import { loadManifest, loadManifestList, type TableView } from './scan';
import type { Snapshot, TableMetadata } from './types';

export interface ReachOptions {
  /** Skip DELETED manifest entries: the files a snapshot still reads, not those it records removing. (Default: false) */
  liveOnly?: boolean;
  /**
   * Fail when a manifest list or manifest cannot be read, instead of skipping it. A clean-up that
   * deletes what is NOT referenced must not take an unreadable manifest (a throttled GET, a
   * permission error) for an empty one. (Default: false)
   */
  strict?: boolean;
}

/**
 * Every file the snapshots reference. A manifest list or manifest that cannot
 * be read is skipped unless `strict` (an earlier clean-up, or an interrupted
 * purge, already removed it): what it referenced is then not reported reachable.
 * A manifest shared by several snapshots is read once (manifests are immutable).
 */
export async function reachableFiles(view: TableView, snapshots: Snapshot[], opts: ReachOptions = {}): Promise<Set<string>> {
  const out = new Set<string>();
  for (const s of snapshots) {
    out.add(s['manifest-list']);
    let list;
    try { list = await loadManifestList(view, s); } catch (e) { if (opts.strict) throw e; continue; }
    for (const mf of list) {
      if (out.has(mf.manifest_path)) continue;
      out.add(mf.manifest_path);
      let entries;
      try { entries = await loadManifest(view, mf.manifest_path); } catch (e) { if (opts.strict) throw e; continue; }
      for (const e of entries) if (!opts.liveOnly || e.status !== 2) out.add(e.data_file.file_path);
    }
  }
  return out;
}

/**
 * The metadata files a table's metadata keeps: the current one, those of the
 * metadata log, statistics and partition-statistics files, and
 * `version-hint.text` for file-based readers.
 */
export function metadataFiles(meta: TableMetadata, metadataLocation: string): string[] {
  const m = meta as TableMetadata & { 'partition-statistics'?: unknown[] };
  const stats = [...(m.statistics ?? []), ...(m['partition-statistics'] ?? [])]
    .map((s) => (s as { 'statistics-path'?: unknown })['statistics-path'])
    .filter((p): p is string => typeof p === 'string');
  return [
    metadataLocation,
    ...meta['metadata-log'].map((e) => e['metadata-file']),
    ...stats,
    `${meta.location.replace(/\/+$/, '')}/metadata/version-hint.text`,
  ];
}

/**
 * Everything the table's metadata references (Iceberg's "reachable" set for
 * `remove_orphan_files`): every snapshot's manifest list, manifests and live
 * data and delete files, plus its metadata files. Strict: an unreadable
 * manifest fails the walk.
 */
export async function referencedFiles(view: TableView, metadataLocation: string): Promise<Set<string>> {
  const out = await reachableFiles(view, view.metadata.snapshots, { liveOnly: true, strict: true });
  for (const f of metadataFiles(view.metadata, metadataLocation)) out.add(f);
  return out;
}
