import type pg from 'pg';
import type { Env } from '../config/env';
import { createPool } from '../db/pool';
import { createPrisma, type Db } from '../db/prisma';
import { AppError } from '../errors';
import { resolveSecret } from '../config/secret';
import { createLoginThrottle, type LoginThrottle } from '../auth/login-throttle';
import { usesSecureCookies } from '../auth/session';
import type { JobRegistry } from '../jobs/registry';

/**
 * What every route handler of the web process works with: the settings the
 * server parsed at start, its database handles, and the job registry (every
 * kind the API validates, enqueues and documents). Built once by the server's
 * edge (`app/_server/deps.ts`) and handed to each handler; nothing here reads
 * the environment.
 */
export interface ServerDeps {
  env: Env;
  pool: pg.Pool;
  prisma: Db;
  secret: string;
  throttle: LoginThrottle;
  /** Session cookies are `Secure` (NEXTAUTH_URL is https), decided once from the settings. */
  secureCookies: boolean;
  /** The job kinds of this process (assembled from `workers/jobs.ts` by the edge). */
  jobs: JobRegistry;
}

/**
 * Open the web process's database handles from its settings. DATABASE_URL is
 * required: `tributary serve` always sets it for the panel.
 */
export function createServerDeps(settings: Env, assembly: { jobs: JobRegistry }): ServerDeps {
  if (!settings.DATABASE_URL) {
    throw new AppError('unavailable', 'web: DATABASE_URL is not set — start the panel with `tributary serve` (npm start)');
  }
  const pool = createPool(settings.DATABASE_URL, { max: 8, application: 'tributary-web' });
  return {
    env: settings,
    pool,
    prisma: createPrisma(settings.DATABASE_URL, { max: 5 }),
    secret: resolveSecret(settings),
    throttle: createLoginThrottle(pool, {
      maxFailuresPerAccount: settings.TRIBUTARY_LOGIN_MAX_FAILURES,
      maxFailuresPerAddress: settings.TRIBUTARY_LOGIN_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: settings.TRIBUTARY_LOGIN_WINDOW_SECONDS,
    }),
    secureCookies: usesSecureCookies(settings),
    jobs: assembly.jobs,
  };
}

/** Close the handles (tests, shutdown): closing for good, a failing close changes nothing. */
export async function closeServerDeps(d: ServerDeps | undefined): Promise<void> {
  if (!d) return;
  await d.prisma.$disconnect().catch(() => {});
  await d.pool.end().catch(() => {}); // closing: a failing close changes nothing the caller can act on
}
