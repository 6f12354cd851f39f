/**
 * Which files a set of snapshots references: their manifest lists, manifests
 * and data/delete files. The one walk behind snapshot expiry (what only
 * expired snapshots referenced) and dropping with purge (everything, adopted
 * files outside the table folder included); an orphan clean-up (what lies
 * under the folder yet nothing references) is the complement of this set.
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
