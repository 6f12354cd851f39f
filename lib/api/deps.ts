import type pg from 'pg';
import { parseEnv, type Env } from '../config/env';
import { createPool } from '../db/pool';
import { createPrisma, type Db } from '../db/prisma';
import { AppError } from '../errors';
import { resolveSecret } from '../config/secret';
import { createLoginThrottle, type LoginThrottle } from '../auth/login-throttle';

/** What every route handler of the web process works with. */
export interface ServerDeps { env: Env; pool: pg.Pool; prisma: Db; secret: string; throttle: LoginThrottle }

// One pool and one Prisma client per process. Kept on globalThis because the
// dev server re-evaluates modules on every edit.
const g = globalThis as typeof globalThis & { __tributaryServerDeps?: ServerDeps };

/**
 * The web process's database handles, opened on first use from DATABASE_URL
 * (which `tributary serve` always sets for the panel).
 */
export function getServerDeps(): ServerDeps {
  if (!g.__tributaryServerDeps) {
    const env = parseEnv();
    if (!env.DATABASE_URL) {
      throw new AppError('unavailable', 'web: DATABASE_URL is not set — start the panel with `tributary serve` (npm start)');
    }
    const pool = createPool(env.DATABASE_URL, { max: 8, application: 'tributary-web' });
    g.__tributaryServerDeps = {
      env,
      pool,
      prisma: createPrisma(env.DATABASE_URL, { max: 5 }),
      secret: resolveSecret(env),
      throttle: createLoginThrottle(pool, {
        maxFailuresPerAccount: env.TRIBUTARY_LOGIN_MAX_FAILURES,
        maxFailuresPerAddress: env.TRIBUTARY_LOGIN_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: env.TRIBUTARY_LOGIN_WINDOW_SECONDS,
      }),
    };
  }
  return g.__tributaryServerDeps;
}

/** Close the handles (tests; the web process simply exits). */
export async function closeServerDeps(): Promise<void> {
  const d = g.__tributaryServerDeps;
  g.__tributaryServerDeps = undefined;
  if (d) {
    // Closing for good (tests, shutdown): a failing close changes nothing.
    await d.prisma.$disconnect().catch(() => {});
    await d.pool.end().catch(() => {}); // closing: a failing close changes nothing the caller can act on
  }
}
