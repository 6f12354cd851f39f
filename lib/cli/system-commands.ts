import { Command, InvalidArgumentError } from 'commander';
import type { CliEdge } from './context';
import { AppError } from '../errors';
import { serve } from './serve';
import { migrate } from '../db/migrate';
import { installQueue } from '../jobs/queue';
import { createUser, listUsers } from '../auth/users';
import { createApiToken, listApiTokens, revokeApiToken } from '../auth/tokens';
import { ROLES, type Role } from '../auth/roles';
import { promptPassword, readPasswordFromStdin } from './read-password';
import { followServe } from './serve-child.mjs';

const positiveInt = (flag: string) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`${flag} must be a positive integer (got '${v}')`);
  return Number(v);
};
const role = (v: string): Role => {
  if (!(ROLES as readonly string[]).includes(v)) throw new InvalidArgumentError(`--role must be one of ${ROLES.join(', ')} (got '${v}')`);
  return v as Role;
};

/** serve, worker, migrate, users, tokens. */
export function registerSystemCommands(program: Command, { settings, runWorker, withCli }: CliEdge): void {
  program.command('serve')
    .description('Start the panel and one worker (what `npm start` runs); embedded PostgreSQL unless DATABASE_URL is set')
    .option('--no-build', 'do not build the panel even when its sources changed')
    .option('--no-worker', 'start the panel only')
    .action(async (o) => {
      await serve({ settings, build: o.build, worker: o.worker });
      // Everything is stopped in order; libraries' idle timers must not keep a stopped supervisor alive.
      process.exit(process.exitCode ?? 0);
    });

  program.command('worker')
    .description('Run a worker alone (start several, on several machines, against one database)')
    .option('--concurrency <n>', 'jobs run at once (default: TRIBUTARY_WORKER_CONCURRENCY or 2)', positiveInt('--concurrency'))
    .action(async (o) => {
      followServe(); // started by `tributary serve`: stop with it, and say it is alive
      await runWorker({ concurrency: o.concurrency, settings });
      process.exit(process.exitCode ?? 0);
    });

  program.command('migrate')
    .description('Apply pending database migrations (idempotent)')
    .action(async () => withCli(async (ctx) => {
      const r = await migrate(ctx.ownerUrl);
      await installQueue(ctx.ownerUrl);
      console.log(r.applied.length ? `applied: ${r.applied.join(', ')}` : 'database is up to date');
    }));

  const users = program.command('users').description('Manage panel users');
  users.command('create')
    .description('Create a user; the password is asked for on the terminal, or read from stdin with --password-stdin')
    .requiredOption('--name <name>', 'login name')
    .option('--password-stdin', 'read the password from the first line of stdin (e.g. from a secrets manager)')
    // Kept so existing scripts keep working, with a warning: a password in argv shows in `ps` and shell history.
    .option('--password <password>', 'DEPRECATED: visible in `ps` — use the prompt or --password-stdin')
    .option('--role <role>', `one of ${ROLES.join(', ')}`, role, 'viewer')
    .action(async (o) => {
      let password: string;
      if (o.passwordStdin) {
        if (o.password !== undefined) throw new AppError('usage', 'users: give --password-stdin or --password, not both', { field: 'password' });
        password = await readPasswordFromStdin();
      } else if (o.password !== undefined) {
        console.error('warning: --password is deprecated (the password shows in `ps` and shell history); use the prompt or --password-stdin');
        password = o.password;
      } else {
        password = await promptPassword(`password for ${o.name}: `);
        if ((await promptPassword('again: ')) !== password) throw new AppError('usage', 'users: the passwords do not match', { field: 'password' });
      }
      if (password.length < 8) throw new AppError('usage', 'users: the password must be at least 8 characters', { field: 'password' });
      await withCli(async (ctx) => {
        const u = await createUser(ctx.prisma, { name: o.name, password, role: o.role }, { actor: 'cli' });
        console.log(`created user ${u.name} (${u.role})`);
      }, { prisma: true });
    });
  users.command('list').description('List users').option('--json', 'machine-readable output')
    .action(async (o) => withCli(async (ctx) => {
      const all = await listUsers(ctx.prisma);
      if (o.json) console.log(JSON.stringify(all, null, 2));
      else for (const u of all) console.log(`${u.name}\t${u.role}\t${u.createdAt.toISOString()}`);
    }, { prisma: true }));

  const tokens = program.command('tokens').description('Manage API tokens (bearer tokens for /api/v1)');
  tokens.command('create')
    .description('Create a token for a user; it is printed once and stored hashed')
    .requiredOption('--user <name>', 'the user the token acts as (it carries their role)')
    .requiredOption('--name <name>', 'a label for the token')
    .option('--vend-credentials', 'the Iceberg REST catalog (/iceberg/v1) hands this token the s3:// warehouse\'s access keys')
    .action(async (o) => withCli(async (ctx) => {
      const t = await createApiToken(ctx.prisma, { user: o.user, name: o.name, vendCredentials: !!o.vendCredentials }, { actor: 'cli' });
      console.log(t.token);
      console.error(`token '${t.name}' for ${o.user} (${t.role})${t.vendCredentials ? ', vends object-store credentials' : ''} — shown once, store it now`);
    }, { prisma: true }));
  tokens.command('list').description('List tokens (never their values)').option('--json', 'machine-readable output')
    .option('--all', 'include revoked tokens')
    .action(async (o) => withCli(async (ctx) => {
      const all = await listApiTokens(ctx.prisma, { includeRevoked: !!o.all });
      if (o.json) console.log(JSON.stringify(all, null, 2));
      else for (const t of all) console.log(JSON.stringify(t));
    }, { prisma: true }));
  tokens.command('revoke').description('Revoke a token by id or prefix').argument('<id>', 'token id or its shown prefix')
    .action(async (id) => withCli(async (ctx) => {
      const t = await revokeApiToken(ctx.prisma, id, { audit: { actor: 'cli' } });
      console.log(`revoked token ${t.name}`);
    }, { prisma: true }));
}
