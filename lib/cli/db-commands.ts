import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Command } from 'commander';
import type { CliEdge } from './context';
import { processEnvironment, type Env } from '../config/env';
import { AppError } from '../errors';
import { createLogger, consoleSink } from '../log';
import { connectDatabase } from '../db/connect';
import { otherLiveOwner } from '../db/data-folder-owner';
import { clientConnections, isKeeper, KEEPER_COMMAND, liveClients, spawnKeeper, stopKeeper } from '../db/db-keeper';
import { runningPostmaster, stopOrphan } from '../db/embedded-postgres';

/** What `db status` reports about a data folder's embedded server. */
export interface DbStatus {
  dataDir: string;
  /** `external` when DATABASE_URL is set (Tributary runs no server of its own). */
  state: 'running' | 'stopped' | 'external';
  port?: number;
  ownerPid?: number;
  ownerCommand?: string;
  since?: string;
  /** Seconds without a client after which a keeper stops it; absent when a long-running owner holds it. */
  idleStopSeconds?: number;
}

export function dbStatus(env: Env): DbStatus {
  if (env.DATABASE_URL) return { dataDir: env.dataDir, state: 'external' };
  const owner = otherLiveOwner(env.dataDir);
  const postmaster = runningPostmaster(path.join(env.dataDir, 'pg'));
  if (!owner && !postmaster) return { dataDir: env.dataDir, state: 'stopped' };
  let port: number | undefined;
  try { port = JSON.parse(fs.readFileSync(path.join(env.dataDir, 'pg.json'), 'utf8')).port; } catch { /* not recorded */ }
  return {
    dataDir: env.dataDir, state: 'running', port,
    ownerPid: owner?.pid, ownerCommand: owner?.command ?? (postmaster ? 'none (left running by a process that is gone)' : undefined), since: owner?.since,
    idleStopSeconds: isKeeper(owner) ? env.TRIBUTARY_DB_IDLE_SECONDS : undefined,
  };
}

function describe(s: DbStatus): string {
  if (s.state === 'external') return `DATABASE_URL is set: Tributary uses that server and runs none of its own (data folder ${s.dataDir})`;
  if (s.state === 'stopped') return `embedded PostgreSQL of ${s.dataDir}: not running (the next command starts it)`;
  const idle = s.idleStopSeconds !== undefined ? `; stops after ${s.idleStopSeconds} s without a client, or on \`tributary db stop\`` : '';
  return `embedded PostgreSQL of ${s.dataDir}: running on 127.0.0.1:${s.port ?? '?'}, owned by ${s.ownerPid ? `process ${s.ownerPid} (${s.ownerCommand})` : s.ownerCommand}${s.since ? ` since ${s.since}` : ''}${idle}`;
}

/**
 * Run a keeper: own the folder's embedded server (supervised), and stop it
 * after `TRIBUTARY_DB_IDLE_SECONDS` without a client connection, on SIGTERM
 * (`db stop`, or `serve`/`worker` taking the folder over) or SIGINT.
 */
async function keep(env: Env): Promise<void> {
  if (env.DATABASE_URL) throw new AppError('usage', 'db keep: DATABASE_URL is set; there is no embedded server to keep');
  // Its own log file (pg.keeper.log) says when the server started and stopped, whatever the commands' level.
  const logger = createLogger(consoleSink(), { level: env.LOG_LEVEL === 'debug' ? 'debug' : 'info' });
  // Another starter got there first (two commands at once): its server serves both.
  const alreadyOwned = () => {
    const other = otherLiveOwner(env.dataDir);
    if (other) logger.info(`the embedded PostgreSQL of ${env.dataDir} is already owned by process ${other.pid} (${other.command})`);
    return other !== null;
  };
  if (alreadyOwned()) return;
  // A stop asked for while the server is still starting (`serve` taking over at once) waits for the
  // start to finish: dying mid-initdb would leave a half-made cluster behind.
  let asked: string | null = null;
  let stopNow: ((why: string) => void) | null = null;
  const onSignal = (why: string) => { if (stopNow) stopNow(why); else asked ??= why; };
  process.on('SIGTERM', () => onSignal('asked to (SIGTERM)'));
  process.on('SIGINT', () => onSignal('asked to (SIGINT)'));
  let opened: Awaited<ReturnType<typeof connectDatabase>>;
  try {
    opened = await connectDatabase(env, {
      exclusive: true, command: KEEPER_COMMAND, supervise: true,
      onSupervisor: (level, m) => logger[level](m),
    });
  } catch (e) {
    if (alreadyOwned()) return; // lost the race to another starter: its server serves both
    throw e;
  }
  const { embedded, ownerUrl } = opened;
  if (!embedded) return;
  logger.info(`keeping the embedded PostgreSQL of ${env.dataDir} on 127.0.0.1:${embedded.port} for CLI commands (pid ${process.pid})`);
  let stopping: Promise<void> | null = null;
  const stop = (why: string) => stopping ??= (async () => {
    logger.info(`stopping the embedded PostgreSQL: ${why}`);
    embedded.stopSupervising();
    await embedded.stop();
    process.exit(0);
  })();
  stopNow = (why) => void stop(why);
  if (asked) await stop(asked);
  const idleMs = env.TRIBUTARY_DB_IDLE_SECONDS * 1000;
  let idleSince = Date.now();
  const check = async () => {
    // A fresh connection per check: a kept one would break whenever the supervised server restarts.
    const c = new pg.Client({ connectionString: ownerUrl, connectionTimeoutMillis: 5000 });
    try {
      await c.connect();
      if (liveClients(env.dataDir) > 0 || (await clientConnections(c)) > 0) idleSince = Date.now();
    } catch { idleSince = Date.now(); /* down or restarting: not idle */ } finally { await c.end().catch(() => {}); /* a probe */ }
    if (Date.now() - idleSince >= idleMs) await stop(`no client for ${env.TRIBUTARY_DB_IDLE_SECONDS} s`);
  };
  setInterval(() => void check(), Math.max(250, Math.min(5000, idleMs / 4)));
  await new Promise(() => {}); // until stopped
}

/** `tributary db status|start|stop` (and the hidden `db keep` the CLI spawns). */
export function registerDbCommands(program: Command, { settings }: Pick<CliEdge, 'settings'>): void {
  const db = program.command('db').description("The embedded PostgreSQL of the data folder: status, start, stop (CLI commands leave it running while they are used)");
  db.command('status').description('Whether the embedded PostgreSQL runs, on which port, and who owns it')
    .option('--json', 'machine-readable output')
    .action((o) => {
      const s = dbStatus(settings);
      console.log(o.json ? JSON.stringify(s) : describe(s));
    });
  db.command('start').description('Start the embedded PostgreSQL in the background for CLI commands (a command that needs it does so too)')
    .action(async () => {
      const env = settings;
      if (env.DATABASE_URL) throw new AppError('usage', 'db start: DATABASE_URL is set; Tributary runs no server of its own');
      if (dbStatus(env).state !== 'running') await spawnKeeper(env.dataDir, processEnvironment());
      console.log(describe(dbStatus(env)));
    });
  db.command('stop').description('Stop the embedded PostgreSQL kept for CLI commands (a running `serve` or `worker` is stopped with Ctrl+C or SIGTERM instead)')
    .action(async () => {
      const env = settings;
      if (env.DATABASE_URL) throw new AppError('usage', 'db stop: DATABASE_URL is set; Tributary runs no server of its own');
      const owner = otherLiveOwner(env.dataDir);
      if (owner && !isKeeper(owner)) {
        throw new AppError('conflict', `db stop: the embedded PostgreSQL of ${env.dataDir} belongs to process ${owner.pid} (${owner.command}); stop that process (Ctrl+C, or SIGTERM) instead`);
      }
      if (owner) {
        if (!(await stopKeeper(owner))) throw new AppError('unavailable', `db stop: process ${owner.pid} (${owner.command}) did not stop within 60 s`);
        console.log(`stopped the embedded PostgreSQL of ${env.dataDir}`);
        return;
      }
      const orphan = runningPostmaster(path.join(env.dataDir, 'pg'));
      if (orphan) {
        await stopOrphan(orphan);
        console.log(`stopped the embedded PostgreSQL of ${env.dataDir} (left running by a process that is gone)`);
        return;
      }
      console.log(`embedded PostgreSQL of ${env.dataDir}: not running`);
    });
  db.command('keep', { hidden: true }).description('(internal) own the embedded PostgreSQL for CLI commands until idle')
    .action(() => keep(settings));
}
