// Test-only: the setup every /api/v1 route test shares — a fresh migrated
// database, a data folder, the web process's server deps opened on them (as
// `app/_server/deps.ts` opens them at start), and one user and API token per
// role (lib/testing/api-users.ts); all closed and removed after the file.
// It imports the server's edge and nothing else of the app, so a file using
// it loads only the routes it imports itself (fresh-server.test.ts relies on it).
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@/lib/testing/pg';
import { createTestUsers, type TestRole } from '@/lib/testing/api-users';
import { parseEnv } from '@/lib/config/env';
import { ensureQueue, startWorker, type WorkerHandle } from '@/lib/jobs';
import { silentLogger } from '@/lib/log';
import { openServerDeps, serverDeps, shutServerDeps } from '@/app/_server/deps';

/** What a route test works with; filled in by the file's `beforeAll`. */
export interface RouteServer {
  db: TestDatabase;
  dataDir: string;
  /** The bearer token of each role's test user. */
  tok: Record<TestRole, string>;
}

/** The helper's handle: the fixtures, and what a test may do to the server mid-file. */
export interface RouteServerHandle extends RouteServer {
  secret: string;
  /** Start a worker on the server's deps (its pool, settings and job kinds); stopped after the file. */
  startWorker(o?: { heartbeatMs?: number; concurrency?: number }): Promise<WorkerHandle>;
  /** Close the server deps and open them again on the file's settings plus `extra` (a restart with other settings). */
  reopen(extra?: Record<string, string>): Promise<void>;
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
  /** Makes the data folder. (Default: a fresh folder under the system's temporary folder) */
  dataDir?: () => { dir: string; remove(): void };
  /** Create pg-boss's schema before the deps open (files whose routes start jobs). */
  queue?: boolean;
  prepare?: (fx: Omit<RouteServer, 'tok'>) => Promise<void>;
  /** The roles given a test user and token. (Default: admin, operator and viewer; [] for none) */
  roles?: TestRole[];
  /** Runs once the deps are open and the users exist (rows the routes read). */
  seed?: (fx: RouteServer & { secret: string }) => Promise<void>;
}): RouteServerHandle {
  let removeDir = () => {};
  let worker: WorkerHandle | undefined;
  const settings = (extra: Record<string, string> = {}) =>
    parseEnv({ DATABASE_URL: fx.db.url, TRIBUTARY_SECRET: fx.secret, TRIBUTARY_DATA_DIR: fx.dataDir, ...o.env?.(fx.dataDir), ...extra });
  const fx: RouteServerHandle = {
    tok: { admin: '', operator: '', viewer: '' }, secret: `${o.name}-test-secret-0123456789`,
    db: undefined as unknown as TestDatabase, dataDir: '',
    startWorker: async (w = {}) => {
      if (worker) throw new Error('test-server: a worker is already running');
      const { pool, env, jobs } = serverDeps();
      worker = await startWorker({ jobs, pool, env, logger: silentLogger, heartbeatMs: w.heartbeatMs ?? 300, concurrency: w.concurrency });
      return worker;
    },
    reopen: async (extra = {}) => {
      await shutServerDeps();
      openServerDeps(settings(extra));
    },
  };
  beforeAll(async () => {
    fx.db = await createTestDatabase();
    if (o.dataDir) {
      const made = o.dataDir();
      fx.dataDir = made.dir; removeDir = made.remove;
    } else {
      fx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `trb-${o.name}-`));
      removeDir = () => fs.rmSync(fx.dataDir, { recursive: true, force: true });
    }
    if (o.queue) await ensureQueue(fx.db.pool);
    await o.prepare?.(fx);
    const { prisma } = openServerDeps(settings());
    Object.assign(fx.tok, await createTestUsers(prisma, o.roles));
    await o.seed?.(fx);
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 10_000 });
    await shutServerDeps();
    await fx.db?.drop();
    if (fx.dataDir) removeDir();
  });
  return fx;
}
