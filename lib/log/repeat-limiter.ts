/**
 * Collapses a storm of identical log events (one per failed request in an
 * outage) into a bounded number of lines: the first event of a kind is
 * written at once, the following ones are counted, and one summary line per
 * interval says how many there were — "database unreachable, 8,624 requests
 * failed in the last 60 s". A kind that stays quiet for a whole interval is
 * forgotten, so its next event is written in full again.
 */
export interface RepeatLimiter<T = string> {
  /**
   * Record one event of kind `key`. `first()` writes the full line for the
   * first event of a burst; `summary(count, seconds)` returns the line that
   * closes each interval in which events of this kind kept coming.
   */
  hit(key: string, first: () => void, summary: (count: number, seconds: number) => T): void;
  /** Write the pending summaries now (shutdown, tests). */
  flush(): void;
}

export interface RepeatLimiterOptions<T = string> {
  /** Length of one counting interval. (Default: 60000 ms) */
  intervalMs?: number;
  /** Where summary lines go. */
  write: (line: T) => void;
}

interface Burst<T> {
  /** Events in this interval, the one written in full included. */
  count: number;
  /** 1 when this interval's first event was written in full, else 0. */
  written: number;
  since: number;
  timer: ReturnType<typeof setTimeout>;
  summary: (count: number, seconds: number) => T;
}

export function createRepeatLimiter<T = string>(o: RepeatLimiterOptions<T>): RepeatLimiter<T> {
  const intervalMs = o.intervalMs ?? 60_000;
  const bursts = new Map<string, Burst<T>>();

  const close = (key: string, reopen: boolean) => {
    const b = bursts.get(key);
    if (!b) return;
    clearTimeout(b.timer);
    bursts.delete(key);
    // Nothing beyond the line already written: the next event starts a new burst, in full.
    if (b.count <= b.written) return;
    const seconds = Math.max(1, Math.round((Date.now() - b.since) / 1000));
    o.write(b.summary(b.count, seconds));
    if (reopen) open(key, b.summary, 0);
  };
  const open = (key: string, summary: Burst<T>['summary'], written: number) => {
    // unref: a pending summary never keeps a process alive.
    const timer = setTimeout(() => close(key, true), intervalMs);
    timer.unref?.();
    bursts.set(key, { count: written, written, since: Date.now(), timer, summary });
  };

  return {
    hit(key, first, summary) {
      const b = bursts.get(key);
      if (b) { b.count++; b.summary = summary; return; }
      first();
      open(key, summary, 1);
    },
    flush() {
      for (const key of [...bursts.keys()]) close(key, false);
    },
  };
}

/** 8624 → "8,624" (log lines are read by people). */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

/**
 * A sink that lets a repeated warning or error through once per burst and
 * then once per interval with its count — "flows: executor tick failed
 * (repeated 30 times in the last 60 s)" — so a process that retries something
 * every 2 s through an outage writes a line a minute, not thirty.
 * Records are the same when level, message and fields are.
 */
export function collapseRepeats(sink: (r: import('./index').LogRecord) => void, opts: { intervalMs?: number } = {}): (r: import('./index').LogRecord) => void {
  const limiter = createRepeatLimiter<import('./index').LogRecord>({ intervalMs: opts.intervalMs, write: sink });
  return (r) => {
    if (r.level !== 'warn' && r.level !== 'error') return sink(r);
    limiter.hit(`${r.level}\0${r.message}\0${JSON.stringify(r.fields)}`, () => sink(r),
      (n, s) => ({ ts: new Date(), level: r.level, message: `${r.message} (repeated, ${formatCount(n)} times in the last ${s} s)`, fields: r.fields }));
  };
}
