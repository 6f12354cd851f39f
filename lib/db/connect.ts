import type { Env } from '../config/env';
import { ensureDataDir } from '../config/secret';
import pg from 'pg';
import { appRolePassword, ensureAppRole } from './app-role';
import { ensureEmbeddedPostgres, type EmbeddedHandle, type EmbeddedOptions } from './embedded-postgres';
import { migrate, migrateWith } from './migrate';
import { isDatabaseUnavailable } from '../errors/db-unavailable';
import { backoffDelay, sleep } from '../errors/retry';

/**
 * Resolve the database a process should use: DATABASE_URL, else the embedded
 * server of the data folder (found when running, started when not), and apply
 * pending migrations.
 *
 * On the embedded server the migrations and `setup` run as its owner (a
 * superuser), and the process then connects as the application role
 * `tributary_app` (lib/db/app-role.ts): no superuser, owns nothing, may only
 * read and append `audit_events`. With DATABASE_URL everything uses that URL
 * (README, "Database roles", says which grants to give it).
 *
 * `exclusive` / `supervise` make this process the data folder's one owner of
 * the embedded server, restarting it when it exits (lib/db/embedded-postgres.ts).
 *
 * @param opts.setup owner-only set-up after the migrations, e.g. installing the job queue's schema (Default: none)
 * @returns `url` to connect with, and `ownerUrl` for migrations (the same URL under DATABASE_URL)
 */
export async function connectDatabase(
  env: Env,
  opts: { migrate?: boolean; log?: (m: string) => void; setup?: (ownerUrl: string) => Promise<void> } & Pick<EmbeddedOptions, 'exclusive' | 'command' | 'supervise' | 'onSupervisor' | 'startKeeper'> = {},
): Promise<{ url: string; ownerUrl: string; embedded: EmbeddedHandle | null }> {
  // Every process (serve, worker, CLI) starts here: the data folder is created private (0700).
  ensureDataDir(env.dataDir);
  if (env.DATABASE_URL) {
    if (opts.migrate !== false) await migrate(env.DATABASE_URL, { log: opts.log });
    await opts.setup?.(env.DATABASE_URL);
    return { url: env.DATABASE_URL, ownerUrl: env.DATABASE_URL, embedded: null };
  }
  const options: EmbeddedOptions = {
    log: env.LOG_LEVEL === 'debug' ? opts.log : undefined,
    exclusive: opts.exclusive, command: opts.command, supervise: opts.supervise, onSupervisor: opts.onSupervisor, startKeeper: opts.startKeeper,
    restartDelayMs: env.TRIBUTARY_DB_RESTART_SECONDS * 1000, keepClient: true,
    // never the panel's port: serve starts the web server on it right after the database
    avoidPorts: [env.PORT],
  };
  let embedded = await ensureEmbeddedPostgres(env.dataDir, options);
  // The server found may go away under the checks: a keeper stopping it because `serve` or `worker`
  // takes the folder over (which then starts its own, maybe on another port), or a supervised restart.
  // A lost connection is not the command's failure: find the server again and check on it.
  const until = Date.now() + 60_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await checkedStart(env, embedded, opts);
    } catch (e) {
      if (!isDatabaseUnavailable(e) || Date.now() > until) throw e;
      opts.log?.(`db: the embedded PostgreSQL went away during the start checks (${(e as Error).message}); finding it again`);
      await sleep(backoffDelay(attempt, 250, 2000));
      // An owner keeps its handle (its supervisor restarts the server); a client looks the server up again.
      if (!embedded.owned) embedded = await ensureEmbeddedPostgres(env.dataDir, options);
    }
  }
}

/** Migrations, `setup` and the application role, as the owner, on the server `embedded` found. */
async function checkedStart(env: Env, embedded: EmbeddedHandle, opts: { migrate?: boolean; log?: (m: string) => void; setup?: (ownerUrl: string) => Promise<void> }) {
  const ownerUrl = embedded.url;
  // One owner session for the migration check and the role check: the one that found the server
  // when it was running (a CLI command's usual case), else one opened here.
  const owner = embedded.client ?? new pg.Client({ connectionString: ownerUrl });
  owner.on('error', () => {}); // a server lost while idle: the next query fails, and the caller finds the server again
  try {
    if (!embedded.client) await owner.connect();
    delete embedded.client; // ended here, not by the caller
    if (opts.migrate !== false) await migrateWith(owner, { log: opts.log });
    await opts.setup?.(ownerUrl);
    const url = await ensureAppRole(ownerUrl, { password: appRolePassword(env.dataDir), client: owner });
    return { url, ownerUrl, embedded };
  } finally {
    await owner.end().catch(() => {}); // the checks are done: a failing close changes nothing
  }
}
