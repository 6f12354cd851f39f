import { setMaxListeners } from 'node:events';
import type pg from 'pg';
import { parseEnv, processEnvironment, type Env } from '../config/env';
import { registerClient, spawnKeeper } from '../db/db-keeper';
import { connectDatabase } from '../db/connect';
import { createPool } from '../db/pool';
import type { Db } from '../db/prisma';
import { createLogger, consoleSink, type Logger } from '../log';
import type { JobRegistry } from '../jobs';

/** What a CLI command gets: the database (embedded found or started), a logger, a signal. */
export interface CliContext {
  env: Env;
  url: string;
  /** The URL of the tables' owner, for migrations: the embedded superuser, or DATABASE_URL. */
  ownerUrl: string;
  pool: pg.Pool;
  prisma: Db;
  /** Every job kind, for commands that validate or enqueue jobs. */
  jobs: JobRegistry;
  logger: Logger;
  /** Aborted on Ctrl+C. */
  signal: AbortSignal;
  close(): Promise<void>;
}

/**
 * What the CLI's edge (`main()`) hands every command module: the settings it
 * parsed once at start, the job kinds and the worker runner the executable
 * assembled, and `withCli`, which opens the database with those settings.
 * Commands receive it as a parameter of their `register…Commands`.
 */
export interface CliEdge {
  /** The environment, parsed once when the command started. */
  settings: Env;
  /** Every job kind, for commands that validate or enqueue jobs. */
  jobs: JobRegistry;
  /** Run a worker process until SIGINT/SIGTERM (`tributary worker`). */
  runWorker(opts: { concurrency?: number; settings: Env }): Promise<void>;
  /**
   * Run a command body with a context and always close it.
   * @param opts.settings other settings for this command only (the slices setup wizard's answers). (Default: the edge's)
   * @param opts.prisma open a Prisma client too (users, tokens: lib/auth's account models). (Default: false)
   */
  withCli<T>(body: (ctx: CliContext) => Promise<T>, opts?: { settings?: Env; prisma?: boolean }): Promise<T>;
}

/**
 * Parse the CLI's settings: a bad variable is a usage error naming it (exit 2).
 * @param overrides values that win over the environment for this command only (the slices setup wizard's answers)
 * @param source the variables (Default: the process environment; tests hand their own)
 */
export function parseCliSettings(overrides?: Record<string, string>, source: Readonly<Record<string, string | undefined>> = processEnvironment()): Env {
  return parseEnv(source, overrides);
}

/** The edge of a CLI process from what it parsed and assembled. */
export function createCliEdge(a: { settings: Env; jobs: JobRegistry; runWorker: CliEdge['runWorker'] }): CliEdge {
  return {
    ...a,
    withCli: async (body, opts) => {
      const ctx = await openCliContext({ settings: opts?.settings ?? a.settings, jobs: a.jobs }, { prisma: opts?.prisma });
      try { return await body(ctx); } finally { await ctx.close(); }
    },
  };
}

/**
 * Open Tributary's database for a CLI command. While `npm start` runs, its
 * embedded Postgres is found through the data folder; otherwise this process
 * starts it and stops it again in close().
 */
export async function openCliContext(edge: { settings: Env; jobs: JobRegistry }, opts: { migrate?: boolean; prisma?: boolean } = {}): Promise<CliContext> {
  // The Prisma client (a large module) loads while the database connects, for the few commands that
  // use it (users, tokens); the others (lists, status, engines on `pg`) do not pay for it.
  const prismaModule = opts.prisma ? import('../db/prisma') : null;
  prismaModule?.catch(() => {}); // observed below; not an unhandled rejection if connecting fails first
  const env = edge.settings;
  const logger = createLogger(consoleSink(), { level: env.LOG_LEVEL });
  // No server running: one is started by a keeper that stays for the next commands (TRIBUTARY_DB_IDLE_SECONDS).
  const startKeeper = env.TRIBUTARY_DB_IDLE_SECONDS > 0 ? () => spawnKeeper(env.dataDir, processEnvironment()) : undefined;
  const unregister = env.DATABASE_URL ? () => {} : registerClient(env.dataDir);
  const { url, ownerUrl, embedded } = await connectDatabase(env, { migrate: opts.migrate, log: (m) => logger.debug(m), startKeeper })
    .catch((e) => { unregister(); throw e; });
  const pool = createPool(url, { application: 'tributary-cli' });
  const prisma = prismaModule ? (await prismaModule).createPrisma(url, { max: 4 }) : null;
  const ac = new AbortController();
  // one signal is shared by all of a run's parallel reads (an ETL run's units each listen): not a leak
  setMaxListeners(256, ac.signal);
  const onSig = () => ac.abort(new Error('interrupted'));
  process.once('SIGINT', onSig);
  process.once('SIGTERM', onSig);
  const ctx = {
    env, url, ownerUrl, pool, logger, signal: ac.signal, jobs: edge.jobs,
    close: async () => {
      process.off('SIGINT', onSig);
      process.off('SIGTERM', onSig);
      // The command is over and the process exits next: a failing close changes nothing.
      await prisma?.$disconnect().catch(() => {});
      await pool.end().catch(() => {}); // closing: a failing close changes nothing the caller can act on
      await embedded?.stop();
      unregister();
    },
  } as CliContext;
  // Not enumerable: commands spread their context (`{ ...ctx, logger }`), which must not read it.
  Object.defineProperty(ctx, 'prisma', {
    enumerable: false,
    get(): Db {
      if (!prisma) throw new Error('cli: this command opened its context without Prisma (withCli(body, { prisma: true }))');
      return prisma;
    },
  });
  return ctx;
}
