import { toError } from '../errors';
import type { Logger } from '../log';

/**
 * A leader task (the flow scheduler's `leaderTasks`, ticking every couple of seconds) that does
 * its work at most once every `everyMs`. A failure is logged as `failed` and tried again at the
 * next interval, not at the next tick: a check that cannot reach its database or its
 * configuration does not retry in a tight loop.
 */
export function intervalTask(o: { everyMs: number; logger: Logger; failed: string }, work: (now: Date) => Promise<void>): (now: Date) => Promise<void> {
  let last = 0;
  return async (now) => {
    if (now.getTime() - last < o.everyMs) return;
    last = now.getTime();
    try {
      await work(now);
    } catch (e) {
      o.logger.warn(o.failed, { error: toError(e).message });
    }
  };
}
