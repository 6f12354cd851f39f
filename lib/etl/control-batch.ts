import type pg from 'pg';
import { toError } from '../errors';
import type { Logger } from '../log';
import { writeControl, type ControlRecords } from './control';

/**
 * A phase's control bookkeeping, batched. Tables whose load committed nothing
 * (every unit a no-op) wait here and are written with the next table that
 * commits, or at the end of the phase: a run of many unchanged units costs a
 * few statements, not three per unit. A table that committed to the lake is
 * written at once (its watermarks advance right after its commit, as before),
 * together with whatever waits.
 *
 * Each `add` is one group (one table's units). When a batched write fails, the
 * groups are written one by one, so one bad group does not lose the others'
 * records; the first group error is then thrown.
 */
export class ControlBatch {
  private pending: ControlRecords[] = [];

  constructor(private readonly pool: pg.Pool, private readonly log: Logger) {}

  /** Record one table's units; `now` when its load committed (written at once, with what waits). */
  async add(r: ControlRecords, opts: { now: boolean }): Promise<void> {
    this.pending.push(r);
    if (opts.now) await this.flush();
  }

  /** Write everything that waits (at the end of a phase, also after a failure). */
  async flush(): Promise<void> {
    const groups = this.pending;
    this.pending = [];
    if (!groups.length) return;
    try {
      await writeControl(this.pool, {
        successes: groups.flatMap((g) => g.successes), failures: groups.flatMap((g) => g.failures), runLogs: groups.flatMap((g) => g.runLogs),
      });
      return;
    } catch (e) {
      if (groups.length === 1) throw e;
      this.log.warn('batched control write failed: writing table by table', { groups: groups.length, error: toError(e).message });
    }
    let first: unknown = null;
    for (const g of groups) {
      try { await writeControl(this.pool, g); } catch (e) { first ??= e; this.log.error('control write failed', { error: toError(e).message }); }
    }
    if (first) throw first;
  }
}
