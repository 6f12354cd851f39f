import { processEnvironment } from '../config/env';
import type { Command } from 'commander';
import type { CliEdge } from '../cli/context';
import { readConnectionsToml } from './import-toml';
import { builtinConnections } from './builtin';
import { createConnection, listConnections } from './store';

/** `tributary connections import FILE.toml` and `tributary connections list`. */
export function registerConnectionsCommands(program: Command, { withCli }: CliEdge): void {
  const cmd = program.command('connections').description('Branch and service connections (secrets encrypted at rest)');
  cmd.command('import')
    .description('Create or update branch connections from [oracle_branches.<key>] / [postgres_branches.<key>] sections; ${ENV} is interpolated')
    .argument('<file>', 'TOML file')
    .option('--dry-run', 'validate and print what would be imported, write nothing')
    .action(async (file: string, o: { dryRun?: boolean }) => {
      const inputs = await readConnectionsToml(file, processEnvironment());
      if (o.dryRun) {
        for (const c of inputs) process.stdout.write(`${c.kind}\t${c.branchKey}\tparams=${JSON.stringify(c.params)}\tsecrets=${Object.keys(c.secrets ?? {}).join(',')}\n`);
        return;
      }
      await withCli(async (ctx) => {
        const keys = { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir };
        for (const c of inputs) {
          const v = await createConnection({ pool: ctx.pool, keys }, c, { upsert: true, audit: { actor: 'cli' } });
          process.stdout.write(`imported ${v.kind} branch ${v.branchKey}\n`);
        }
      });
    });
  cmd.command('list')
    .description('List connections (secrets are never shown)')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      await withCli(async (ctx) => {
        // The environment's read-only built-ins (env:striim, env:source) first, as the API lists them.
        const list = await listConnections({ pool: ctx.pool, keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir }, builtins: builtinConnections(ctx.env) });
        if (o.json) { process.stdout.write(JSON.stringify(list, null, 2) + '\n'); return; }
        if (!list.length) { process.stdout.write('no connections\n'); return; }
        for (const c of list) {
          const p = { ...c.params } as Record<string, unknown>;
          process.stdout.write(`${c.name}\t${c.kind}\t${c.isBranch ? `branch=${c.branchKey}` : '-'}\t${p.host ?? p.dsn ?? p.node ?? ''}${p.port ? `:${p.port}` : ''}\tsecrets=${c.secretKeys.join(',') || '-'}${c.builtIn ? '\tbuilt-in (from the environment, read-only)' : ''}\n`);
        }
      });
    });
}
