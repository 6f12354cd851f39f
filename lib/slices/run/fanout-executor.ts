import { runUnit, type FanoutDeps } from '../../jobs/fanout';
import type { SliceExecutor, SliceOutcome } from './executor';
import type { SlicePayload } from './slice-payload';

/**
 * The native executor spread over workers: each slice the orchestrator
 * launches becomes a `slices.slice` job that any worker may take (the
 * coordinator too, when nobody else does). The orchestrator still keeps at
 * most `concurrency` slices in flight, so the run's bound holds over all
 * workers together, and it alone records each slice's state. A slice whose
 * worker dies is attempted again elsewhere (upserts and merges make a re-run
 * idempotent). `local` is the coordinator's own native executor: it checked
 * the targets and holds the exported snapshot every slice reads.
 */
export function createFanoutExecutor(d: Omit<FanoutDeps, 'maxAttempts'> & { request: Omit<SlicePayload['request'], 'queryFileText' | 'templateText'>; local: SliceExecutor }): SliceExecutor {
  const inflight = new Set<{ cancel(): void }>();
  /** Dispatches per slice in this run: a slice that FAILED is launched again, and each launch is a unit of its own (job_units keys a unit's attempts). */
  const dispatches = new Map<number, number>();
  return {
    kind: 'native',
    snapshotId: d.local.snapshotId,
    placement: () => ({ namespace: null, appname: null }),
    launch: async (slice) => {
      const n = (dispatches.get(slice.id) ?? 0) + 1;
      dispatches.set(slice.id, n);
      const u = runUnit({ ...d, maxAttempts: 3 }, {
        key: n === 1 ? `slice-${slice.id}` : `slice-${slice.id}#${n}`, kind: 'slices.slice',
        params: (attempt): SlicePayload => ({ parentRunId: d.parentRunId, attempt, request: d.request as SlicePayload['request'], sliceId: slice.id, snapshotId: d.local.snapshotId ?? null }),
      });
      inflight.add(u);
      const done = u.done.then((o): SliceOutcome => {
        inflight.delete(u);
        if (!o.ok) return { status: 'FAILED', notes: `slices: slice ${slice.roworder} was lost ${o.attempt} times: ${o.error}` };
        const r = o.result as SliceOutcome;
        return { ...r, notes: `${r.notes}${r.notes ? ' ' : ''}(worker ${o.workerId})` };
      });
      return { namespace: null, appname: null, done, cancel: async () => { u.cancel(); await done; } };
    },
    // The attempts of a dead orchestrator's slices are its own job runs: run the slice again.
    adopt: async () => null,
    liveRates: () => new Map(),
    close: async () => {
      for (const u of inflight) u.cancel();
      await d.local.close();
    },
  };
}
