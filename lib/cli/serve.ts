import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { processEnvironment, type Env } from '../config/env';
import { resolveSecret } from '../config/secret';
import { listenUrl } from '../config/public-url';
import { connectDatabase, createPrisma } from '../db';
import { installQueue } from '../jobs/queue';
import { countUsers, ensureAdminUser } from '../auth/users';
import { collapseRepeats, consoleSink, createLogger } from '../log';
import { buildPanelIfNeeded, PROJECT_ROOT } from './panel-build';
import { buildCli, freshCliEntry } from './cli-build.mjs';
import { watchChild } from './serve-child.mjs';

/**
 * `tributary serve` (what `npm start` runs): database (embedded unless
 * DATABASE_URL), migrations, first admin, panel build when needed, then the
 * web server and one worker as child processes. It owns the data folder's
 * embedded Postgres and restarts it when it exits on its own; web and worker
 * keep their URL and reconnect. SIGINT/SIGTERM stops all of them and the
 * embedded Postgres, in that order.
 */
export async function serve(opts: { settings: Env; build?: boolean; worker?: boolean }): Promise<void> {
  const env = opts.settings;
  const logger = createLogger(collapseRepeats(consoleSink()), { level: env.LOG_LEVEL, fields: { proc: 'serve' } });
  // One owner per data folder: a second `serve` on a folder whose database another process runs is refused (lib/db/data-folder-owner.ts).
  // The job queue's schema is installed by the tables' owner; web and worker then connect as the application role.
  const { url, embedded } = await connectDatabase(env, {
    log: (m) => logger.info(m), exclusive: true, supervise: true, command: 'tributary serve', setup: installQueue,
    onSupervisor: (level, m) => logger[level](m, { dataDir: env.dataDir }),
  });
  if (embedded?.owned) logger.info('embedded PostgreSQL started; this process supervises it (restarts it if it exits)', { dataDir: env.dataDir, port: embedded.port });
  const prisma = createPrisma(url, { max: 2 });
  if (env.TRIBUTARY_ADMIN_USER && env.TRIBUTARY_ADMIN_PASSWORD) {
    const r = await ensureAdminUser(prisma, { name: env.TRIBUTARY_ADMIN_USER, password: env.TRIBUTARY_ADMIN_PASSWORD });
    if (r.created) logger.info('created the admin user from TRIBUTARY_ADMIN_USER', { user: r.user.name });
  } else if ((await countUsers(prisma)) === 0) {
    logger.info(`no user yet: open ${listenUrl(env)}/setup to create the first admin`);
  }
  await prisma.$disconnect();
  if (opts.build !== false) {
    buildPanelIfNeeded((m) => logger.info(m));
    // The worker (and every later `tributary` call) runs the compiled CLI when it matches the sources.
    if (!freshCliEntry(PROJECT_ROOT)) {
      logger.info('compiling the CLI (esbuild) — first start or sources changed');
      // Without a bundle the CLI still runs, from the sources through tsx (slower to start).
      await buildCli(PROJECT_ROOT).catch((e) => logger.warn('compiling the CLI failed; it runs from the sources', { error: (e as Error).message }));
    }
  }

  const secret = resolveSecret(env);
  const childEnv = {
    ...processEnvironment(),
    DATABASE_URL: url,
    TRIBUTARY_DATA_DIR: env.dataDir,
    TRIBUTARY_SECRET: secret,
    NEXTAUTH_SECRET: secret,
    NEXTAUTH_URL: env.NEXTAUTH_URL ?? listenUrl(env),
    NEXT_TELEMETRY_DISABLED: '1',
  };
  const children = new Set<ChildProcess>();
  let stopping = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    embedded?.stopSupervising();
    logger.info('stopping web and worker');
    await Promise.all([...children].map((c) => new Promise<void>((res) => {
      if (c.exitCode !== null || c.signalCode !== null) return res();
      const t = setTimeout(() => c.kill('SIGKILL'), 20_000);
      c.once('exit', () => { clearTimeout(t); res(); });
      c.kill('SIGTERM');
    })));
    if (embedded?.owned) { logger.info('stopping embedded PostgreSQL'); await embedded.stop(); }
    process.exitCode = code;
    resolveDone();
  };

  // A worker whose main thread has not said it is alive for this long is stuck (a job spinning at full
  // CPU): it is killed and started again, and the next worker fails its runs as stale (serve-child.mjs).
  const stuckMs = Math.max(60_000, 2 * env.TRIBUTARY_JOB_STALE_SECONDS * 1000);
  const start = (name: string, args: string[], restart: boolean) => {
    // an IPC channel: the child stops when serve is gone, and says it is alive (serve-child.mjs)
    const c = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: childEnv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(c);
    const unwatch = restart ? watchChild(c, stuckMs, (ms) => {
      logger.error(`${name} has not answered for ${Math.round(ms / 1000)} s (its main thread is stuck); killing it`, { pid: c.pid });
      c.kill('SIGKILL');
    }) : null;
    c.once('exit', (code, sig) => {
      unwatch?.();
      children.delete(c);
      if (stopping) return;
      if (restart) {
        logger.warn(`${name} exited (${code ?? sig}); restarting in 2 s`);
        setTimeout(() => { if (!stopping) start(name, args, restart); }, 2000);
      } else {
        logger.error(`${name} exited (${code ?? sig}); stopping`);
        void shutdown(1);
      }
    });
    return c;
  };

  start('web', [path.join(PROJECT_ROOT, 'lib/cli/web-child.mjs'), 'start', '-p', String(env.PORT), '-H', env.HOST], false);
  if (opts.worker !== false) start('worker', [path.join(PROJECT_ROOT, 'bin/tributary.mjs'), 'worker'], true);
  logger.info(`Tributary is up: ${listenUrl(env)}/login`);
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  await done;
}
