// Jobs from a browser test, through the signed-in page's session (same-origin fetch, the panel's cookie).
import type { Page } from 'playwright-core';

/** POST /api/v1/jobs; resolves to the run's id. */
export async function startJob(page: Page, kind: string, params: Record<string, unknown>): Promise<string> {
  const r = await page.evaluate((body) => fetch('/api/v1/jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((x) => x.json()), JSON.stringify({ kind, params }));
  if (!r.id) throw new Error(`e2e: ${kind} not started: ${JSON.stringify(r)}`);
  return r.id;
}

/** Poll GET /api/v1/jobs/:id until the run has ended. */
export async function waitJob(page: Page, id: string, timeoutMs = 180_000): Promise<{ status: string; error: string | null }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await page.evaluate((u) => fetch(u).then((r) => r.json()), `/api/v1/jobs/${id}`);
    if (['succeeded', 'failed', 'cancelled'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`e2e: job ${id} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
