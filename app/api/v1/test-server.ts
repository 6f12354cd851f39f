// Test-only: the setup every /api/v1 route test shares — a fresh migrated
// database, a data folder, the web process's server deps opened on them (as
// `app/_server/deps.ts` opens them at start), and one user and API token per
// role (lib/testing/api-users.ts); all closed and removed after the file.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@/lib/testing/pg';
import { createTestUsers, type TestRole } from '@/lib/testing/api-users';
import { parseEnv } from '@/lib/config/env';
import { openServerDeps, shutServerDeps } from '@/app/_server/deps';

/** What a route test works with; filled in by the file's `beforeAll`. */
export interface RouteServer {
  db: TestDatabase;
  dataDir: string;
  /** The bearer token of each role's test user. */
  tok: Record<TestRole, string>;
}

/**
 * Registers the file's beforeAll/afterAll. `prepare` runs before the deps
 * open (files in the data folder, tables in the database), `seed` after;
 * `env` adds settings, given the data folder.
 */
export function useRouteServer(o: {
  /** The data folder's prefix, and the secret's: one per file. */
  name: string;
  env?: (dataDir: string) => Record<string, string>;
  prepare?: (fx: Omit<RouteServer, 'tok'>) => Promise<void>;
  /** The roles given a test user and token. (Default: admin, operator and viewer) */
  roles?: TestRole[];
  /** Runs once the deps are open and the users exist (rows the routes read). */
  seed?: (fx: RouteServer & { secret: string }) => Promise<void>;
}): RouteServer & { secret: string } {
  const fx = { tok: { admin: '', operator: '', viewer: '' }, secret: `${o.name}-test-secret-0123456789` } as RouteServer & { secret: string };
  beforeAll(async () => {
    fx.db = await createTestDatabase();
    fx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `trb-${o.name}-`));
    await o.prepare?.(fx);
    const { prisma } = openServerDeps(parseEnv({ DATABASE_URL: fx.db.url, TRIBUTARY_SECRET: fx.secret, TRIBUTARY_DATA_DIR: fx.dataDir, ...o.env?.(fx.dataDir) }));
    Object.assign(fx.tok, await createTestUsers(prisma, o.roles));
    await o.seed?.(fx);
  });
  afterAll(async () => {
    await shutServerDeps();
    await fx.db?.drop();
    if (fx.dataDir) fs.rmSync(fx.dataDir, { recursive: true, force: true });
  });
  return fx;
}
