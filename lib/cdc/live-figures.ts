/**
 * The two figures of a stream's live view that are derived, not read: pure, so their definitions
 * are tested on their own (live-figures.test.ts) and the panel, the API and /metrics agree.
 */

/**
 * Lag in seconds: how old the oldest change not yet in the lake can be.
 *
 * - 0 while the slot has nothing unacknowledged (`lagBytes` 0): the lake holds every commit.
 * - Otherwise `now − complete`, where `complete` is the later of the source commit time of the
 *   last transaction a flush applied and the moment the stream last had nothing left to apply
 *   (the setup's snapshot, an idle keepalive). Every change not yet in the lake was committed
 *   after that moment, so this is an upper bound of its age; it is exact when the source writes
 *   steadily. WAL of other tables or databases counts as unacknowledged until the stream's next
 *   keepalive (the server sends one as soon as it has decoded WAL the stream has not acknowledged).
 * - null when the source could not be read (no `lagBytes`) or nothing is known to be complete.
 */
export function lagSeconds(o: { lagBytes: number | null; sourceCommitAt: Date | null; caughtUpAt: Date | null }, now: number): number | null {
  if (o.lagBytes === null) return null;
  if (o.lagBytes <= 0) return 0;
  const complete = Math.max(o.sourceCommitAt?.getTime() ?? -Infinity, o.caughtUpAt?.getTime() ?? -Infinity);
  if (!Number.isFinite(complete)) return null;
  return Math.max(0, (now - complete) / 1000);
}

/**
 * Rows per second: changes applied since the older rate sample, over the seconds since it (state.ts
 * moves the samples forward once a window, so this averages the last one to two windows). A stream
 * that is not running applies nothing: 0. Before a second sample exists, the newer one is the base.
 */
export function rowsPerSecond(o: {
  streaming: boolean; rowsApplied: number;
  rateRows: number | null; rateAt: Date | null; ratePrevRows: number | null; ratePrevAt: Date | null;
}, now: number): number {
  if (!o.streaming) return 0;
  const [rows, at] = o.ratePrevAt && o.ratePrevRows !== null ? [o.ratePrevRows, o.ratePrevAt] : [o.rateRows, o.rateAt];
  if (rows === null || !at) return 0;
  const seconds = (now - at.getTime()) / 1000;
  return seconds > 0 ? Math.max(0, o.rowsApplied - rows) / seconds : 0;
}
