import type { SliceRow } from './state';

/** How a slice ended, as an executor reports it. */
export interface SliceOutcome {
  status: 'COMPLETED' | 'COMPLETED-FAILEDDROP' | 'FAILED';
  notes: string;
  rowsRead?: number | null;
  rowsWritten?: number | null;
}

/** A slice in flight. */
export interface RunningSlice {
  /** Striim namespace / app (null for the native executor). */
  namespace: string | null;
  appname: string | null;
  /** Settles once with the slice's outcome (never rejects). */
  done: Promise<SliceOutcome>;
  /** Stop it now (stall timeout): best-effort cleanup, then `done` settles. */
  cancel(reason: string): Promise<void>;
}

/**
 * What the run loop drives: Striim (one app per slice) or the native executor.
 * Same states, concurrency, attempts, board and reconcile for both.
 */
export interface SliceExecutor {
  kind: 'striim' | 'native';
  /** The native executor's exported snapshot every slice reads (nativeSnapshot), for slices run elsewhere. (Default: none) */
  snapshotId?: string | null;
  /** Where a slice will run (recorded before launch). */
  placement(slice: SliceRow): { namespace: string | null; appname: string | null };
  /** Start a slice. Failures (create/deploy/start) come back through `done`. */
  launch(slice: SliceRow): Promise<RunningSlice>;
  /** Resume: take over a slice a dead orchestrator left RUNNING; null = not running any more (re-queue it). */
  adopt(slice: SliceRow): Promise<RunningSlice | null>;
  /** Live rows/s per slice id (board), when known. */
  liveRates(): Map<number, number>;
  close(): Promise<void>;
}

/** A promise with its resolver. */
export function deferred<T>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

/** Human duration, e.g. `1h 2m 3s`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return [h ? `${h}h` : '', m ? `${m}m` : '', `${s % 60}s`].filter(Boolean).join(' ');
}
