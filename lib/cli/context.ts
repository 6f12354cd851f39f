import { setMaxListeners } from 'node:events';
import type pg from 'pg';
import { parseEnv, processEnvironment, type Env } from '../config/env';
import { registerClient, spawnKeeper } from '../db/db-keeper';
import { connectDatabase } from '../db/connect';
import { createPool } from '../db/pool';
import type { Db } from '../db/prisma';
import { createLogger, consoleSink, type Logger } from '../log';
import type { JobRegistry } from '../jobs';

// The assembly's state lives apart so that main() sets it without loading the database modules.
export { cliAssembly, setCliAssembly, type CliAssemblyState } from './assembly';
import { cliAssembly } from './assembly';

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
 * Open Tributary's database for a CLI command. While `npm start` runs, its
 * embedded Postgres is found through the data folder; otherwise this process
 * starts it and stops it again in close().
 */
export async function openCliContext(opts: { migrate?: boolean; prisma?: boolean } = {}): Promise<CliContext> {
  // The Prisma client (a large module) loads while the database connects, for the few commands that
  // use it (users, tokens); the others (lists, status, engines on `pg`) do not pay for it.
  const prismaModule = opts.prisma ? import('../db/prisma') : null;
  prismaModule?.catch(() => {}); // observed below; not an unhandled rejection if connecting fails first
  const env = parseEnv();
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
  return {
    env, url, ownerUrl, pool, logger, signal: ac.signal,
    get prisma(): Db {
      if (!prisma) throw new Error('cli: this command opened its context without Prisma (withCli(body, { prisma: true }))');
      return prisma;
    },
    // Read when a command needs it: a command registered on its own (tests) has no assembly and no use for it.
    get jobs() { return cliAssembly().jobs; },
    close: async () => {
      process.off('SIGINT', onSig);
      process.off('SIGTERM', onSig);
      // The command is over and the process exits next: a failing close changes nothing.
      await prisma?.$disconnect().catch(() => {});
      await pool.end().catch(() => {}); // closing: a failing close changes nothing the caller can act on
      await embedded?.stop();
      unregister();
    },
  };
}

/** Run a command body with a context and always close it; sets the exit code from the result. */
export async function withCli<T>(body: (ctx: CliContext) => Promise<T>, opts: { prisma?: boolean } = {}): Promise<T> {
  const ctx = await openCliContext(opts);
  try { return await body(ctx); } finally { await ctx.close(); }
}
