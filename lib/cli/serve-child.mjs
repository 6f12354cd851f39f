// What a process `tributary serve` starts (the web server, the worker) does with the IPC channel
// serve opens to it. Plain JS: the web server's entry (web-child.mjs) runs without a TypeScript loader.

/** How often a child tells serve its main thread still turns. */
export const ALIVE_MS = 5_000;

/**
 * - serve killed without stopping its children (kill -9): the channel closes. A child left running
 *   would keep the port and run jobs against a database the next serve takes over — which then fails
 *   on the port and stops everything. The child stops as if serve had sent SIGTERM (the worker
 *   drains, the web server closes) and is gone 10 s later at the latest.
 * - a sign of life every ALIVE_MS from the main thread: serve restarts a worker whose event loop has
 *   stopped turning (a job spinning at full CPU), which the job's heartbeat row cannot report, since
 *   the stale-run reaper runs in the workers themselves.
 * A process started otherwise (no channel) is left as it is.
 */
export function followServe(proc = process) {
  if (typeof proc.send !== 'function') return;
  proc.on('disconnect', () => {
    proc.kill(proc.pid, 'SIGTERM');
    setTimeout(() => proc.exit(1), 10_000).unref();
  });
  setInterval(() => { if (proc.connected) proc.send({ alive: Date.now() }); }, ALIVE_MS).unref();
}

/**
 * serve's side: calls onStuck once when `child` (started with an IPC channel, following serve) has sent
 * no sign of life for stuckMs while still running. Returns a function that stops watching.
 */
export function watchChild(child, stuckMs, onStuck, everyMs = ALIVE_MS) {
  let alive = Date.now();
  child.on('message', () => { alive = Date.now(); });
  const t = setInterval(() => {
    if (Date.now() - alive <= stuckMs || child.exitCode !== null || child.signalCode !== null) return;
    clearInterval(t);
    onStuck(Date.now() - alive);
  }, everyMs);
  t.unref();
  return () => clearInterval(t);
}
