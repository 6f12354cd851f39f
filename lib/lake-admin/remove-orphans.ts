/**
 * `lake.remove_orphans` / `tributary lake remove-orphans`: one action for
 * both callers; the lake does the work (`LakeTable.removeOrphanFiles`).
 */
import type { LakeTable, RemoveOrphansResult } from '../lake';
import type { RemoveOrphansRequest } from './request';

export function removeOrphans(t: LakeTable, req: RemoveOrphansRequest): Promise<RemoveOrphansResult> {
  return t.removeOrphanFiles({ olderThanMs: req.olderThan, dryRun: req.dryRun });
}

/** A job run's result: the counts, and the first `max` orphans' URIs (a run record is no place for a million paths). */
export function orphanSummary(r: RemoveOrphansResult, max = 100) {
  return {
    dryRun: r.dryRun,
    olderThan: r.olderThan,
    orphanFiles: r.orphans.length,
    orphanBytes: r.orphans.reduce((a, o) => a + o.size, 0),
    deletedFiles: r.deletedFiles,
    deletedBytes: r.deletedBytes,
    listedFiles: r.listedFiles,
    recentUnreferenced: r.recentUnreferenced,
    files: r.orphans.slice(0, max).map((o) => o.uri),
  };
}
