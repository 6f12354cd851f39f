/**
 * Which files a set of snapshots references: their manifest lists, manifests
 * and data/delete files. The one walk behind snapshot expiry (what only
 * expired snapshots referenced), dropping with purge (everything) and orphan
 * clean-up (what lies under the table folder yet nothing references).
 */
import { loadManifest, loadManifestList, type TableView } from './scan';
import type { Snapshot } from './types';

export interface ReachOptions {
  /** Skip DELETED manifest entries: the files a snapshot still reads, not those it records removing. (Default: false) */
  liveOnly?: boolean;
}

/**
 * Every file the snapshots reference. A manifest list or manifest that cannot
 * be read is skipped (an earlier clean-up, or an interrupted purge, already
 * removed it): what it referenced is then not reported reachable.
 */
export async function reachableFiles(view: TableView, snapshots: Snapshot[], opts: ReachOptions = {}): Promise<Set<string>> {
  const out = new Set<string>();
  for (const s of snapshots) {
    out.add(s['manifest-list']);
    let list;
    try { list = await loadManifestList(view, s); } catch { continue; }
    for (const mf of list) {
      out.add(mf.manifest_path);
      let entries;
      try { entries = await loadManifest(view, mf.manifest_path); } catch { continue; }
      for (const e of entries) if (!opts.liveOnly || e.status !== 2) out.add(e.data_file.file_path);
    }
  }
  return out;
}

/**
 * Files under the table's folder that no snapshot and no metadata file of the
 * current metadata references (`version-hint.text` counts as referenced).
 */
export async function orphanFiles(view: TableView, currentMetadataLocation: string): Promise<string[]> {
  const m = view.metadata;
  const keep = await reachableFiles(view, m.snapshots);
  keep.add(currentMetadataLocation);
  for (const l of m['metadata-log']) keep.add(l['metadata-file']);
  keep.add(`${m.location}/metadata/version-hint.text`);
  return (await view.storage.list(m.location)).filter((p) => !keep.has(p));
}
