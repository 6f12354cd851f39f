/**
 * Test-only: poll `fn` until it returns something truthy (and return it), or
 * fail naming `what` after `ms` — the deadline-bounded wait the tests use
 * instead of sleeping and asserting absence.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 60_000, everyMs = 150): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
