import { parseEnv, type Env } from '@/lib/config/env';
import { closeServerDeps, createApiHandler, createServerDeps, type ServerDeps } from '@/lib/api';
import { jobs } from './jobs';

/**
 * The web process's edge: its settings are parsed here, once, and its server
 * deps (settings, database handles, the job kinds) built from them and
 * handed to every route through `apiHandler`; a route hands `deps.jobs` and
 * `deps.env` on to the engines it calls. There is no process-wide job
 * catalog any more: a freshly started server's first `POST /api/v1/pipelines`
 * used to answer 500 "no job catalog installed" because nothing in that
 * route's bundle had loaded the module that installed one.
 */
// The one set of deps of this process (`next start` evaluates this module once). Under `next dev`
// an edit that re-evaluates it opens new pools; the old ones' idle connections close on their own.
let opened: ServerDeps | undefined;

/** Open the server deps from these settings (tests hand their own; the server parses its environment on first use). */
export function openServerDeps(settings: Env): ServerDeps {
  if (opened) throw new Error('web: server deps are already open — close them first');
  const deps = createServerDeps(settings, { jobs });
  opened = deps;
  return deps;
}

/** The process's server deps, opened on first use from the environment (`tributary serve` sets DATABASE_URL). */
export function serverDeps(): ServerDeps {
  return opened ?? openServerDeps(parseEnv());
}

/** Close the server deps (tests; the web process simply exits). */
export async function shutServerDeps(): Promise<void> {
  const d = opened;
  opened = undefined;
  await closeServerDeps(d);
}

/** The `/api/v1` route wrapper of this process, bound to its server deps. */
export const apiHandler = createApiHandler(serverDeps);
