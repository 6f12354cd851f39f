/**
 * The commit path every operation takes (spec: "Commit Conflict Resolution
 * and Retry"): the operation writes its new files, then declares requirements
 * and updates on the metadata it built on; the catalog checks and applies
 * them in one compare-and-swap (`Catalog.commitTable`). When a concurrent
 * commit got there first, the operation's `rebase` decides whether its change
 * still applies on the winner's metadata (then it is rebuilt there and
 * retried) or is a `conflict` for the caller.
 */
import { AppError, withRetry } from '../errors';
import { catalogOf, type TableHandle } from './table-context';
import { CommitFailed, type TableRequirement, type TableUpdate } from './table-update';
import type { TableMetadata } from './types';

export class CommitConflict extends AppError {
  constructor(message: string) { super('conflict', message); this.name = 'CommitConflict'; }
}

/** What an operation built on one base: its declared commit and the files written for it (deleted if it fails). */
export interface PendingCommit {
  requirements: TableRequirement[];
  updates: TableUpdate[];
  written: string[];
}

const MAX_ATTEMPTS = 12;

/**
 * Build on the table's current metadata, commit, and on a lost race refresh,
 * `rebase` (throws when the change no longer applies) and build again.
 */
export async function commitWithRetry(
  t: TableHandle,
  build: (base: TableMetadata, attempt: number) => Promise<PendingCommit>,
  rebase: (original: TableMetadata) => Promise<void>,
): Promise<{ attempts: number }> {
  const catalog = catalogOf(t);
  const original = t.metadata();
  try {
    return await withRetry(async (attempt) => {
      if (attempt > 1) {
        await t.refresh();
        await rebase(original);
      }
      const { requirements, updates, written } = await build(t.metadata(), attempt);
      try {
        const r = await catalog.commitTable(t.tableIdent, requirements, updates);
        t.adopt(r.metadata, r.metadataLocation);
        return { attempts: attempt };
      } catch (e) {
        // Only a known lost race deletes what was written: after any other error (a dropped
        // connection, say) the swap may have happened, and these files may be live.
        if (e instanceof CommitFailed) await Promise.all(written.map((p) => t.ctx.storage.delete(p)));
        throw e;
      }
    }, {
      retries: MAX_ATTEMPTS - 1,
      // A lost race only; `rebase` refusing (a CommitConflict) and every other error end here.
      retryable: (e) => e instanceof CommitFailed,
      delayMs: (n) => 20 + 50 * n,
      jitter: 0.75,
      onRetry: (e, i) => t.ctx.logger.debug('lake commit lost a race; retrying', { table: t.ident, attempt: i.attempt, reason: e.message }),
    });
  } catch (e) {
    if (e instanceof CommitFailed) throw new CommitConflict(`lake: table ${t.ident}: gave up after ${MAX_ATTEMPTS} concurrent commit attempts`);
    throw e;
  }
}
