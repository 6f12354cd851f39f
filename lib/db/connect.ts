import type { Env } from '../config/env';
import { ensureDataDir } from '../config/secret';
import { ensureEmbeddedPostgres, type EmbeddedHandle, type EmbeddedOptions } from './embedded-postgres';
import { migrate } from './migrate';

/**
 * Resolve the database a process should use: DATABASE_URL, else the embedded
 * server of the data folder (found when running, started when not), and apply
 * pending migrations.
 */
export async function connectDatabase(
  env: Env,
  opts: { migrate?: boolean; log?: (m: string) => void } & Pick<EmbeddedOptions, 'exclusive' | 'command' | 'supervise' | 'onSupervisor'> = {},
): Promise<{ url: string; embedded: EmbeddedHandle | null }> {
  // Every process (serve, worker, CLI) starts here: the data folder is created private (0700).
  ensureDataDir(env.dataDir);
  let url = env.DATABASE_URL;
  let embedded: EmbeddedHandle | null = null;
  if (!url) {
    embedded = await ensureEmbeddedPostgres(env.dataDir, {
      log: env.LOG_LEVEL === 'debug' ? opts.log : undefined,
      exclusive: opts.exclusive, command: opts.command, supervise: opts.supervise, onSupervisor: opts.onSupervisor,
      restartDelayMs: env.TRIBUTARY_DB_RESTART_SECONDS * 1000,
    });
    url = embedded.url;
  }
  if (opts.migrate !== false) await migrate(url, { log: opts.log });
  return { url, embedded };
}
