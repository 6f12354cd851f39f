import { createRequire } from 'node:module';

/**
 * Load pg's socket module the fast way, before anything imports pg.
 *
 * pg (8.x) asks once, as it loads, whether it runs in a Cloudflare Worker.
 * Where there is no `navigator` (Node 20) it builds a `Response` to find out,
 * which loads Node's whole fetch implementation (undici): about a sixth of a
 * warm `tributary lake list` (node --cpu-prof). Loaded first with the
 * `navigator` Node 21+ has, the module gives the same answer (Node's sockets)
 * at once; the global is removed again, and the module is cached for pg.
 */
export function preloadPg(): void {
  if ((globalThis as { navigator?: unknown }).navigator !== undefined) return; // Node 21+: nothing to gain
  const g = globalThis as { navigator?: { userAgent: string } };
  try {
    g.navigator = { userAgent: `Node.js/${process.versions.node}` };
    createRequire(import.meta.url)('pg/lib/stream.js');
  } catch {
    // pg not where this file expects it: it loads its own way later
  } finally {
    delete g.navigator;
  }
}
