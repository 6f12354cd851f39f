import type { CliContext } from '../cli/context';
import type { Env } from '../config/env';
import type { ConnectionRecord } from '../connections';
import { AppError } from '../errors';
import { CLI_SOURCE, CLI_STRIIM, CLI_TARGET, transientPostgres, transientStriim, type SlicesContext } from './execute/context';

/** Helpers shared by the `slices` commands (lib/slices/cli.ts) and the planning ones (planning/cli.ts). */

export type UrlFlags = { connection?: string; sourceUrl?: string; targetConnection?: string; targetUrl?: string; striimConnection?: string; striimUrl?: string };

/**
 * The CLI's URL flags become transient connections, held in this process
 * only (never stored, never part of a job), and the request names them.
 */
export function urlConnections(o: UrlFlags, env: Env): { names: Partial<Record<'connection' | 'targetConnection' | 'striimConnection', string>>; transient: ConnectionRecord[] } {
  const names: Partial<Record<'connection' | 'targetConnection' | 'striimConnection', string>> = {};
  const transient: ConnectionRecord[] = [];
  const both = (a: string, b: string) => new AppError('usage', `slices: pass either ${a} or ${b}, not both`, { field: a });
  if (o.sourceUrl !== undefined) {
    if (o.connection !== undefined) throw both('--connection', '--source-url');
    if (!/^postgres(ql)?:\/\//.test(o.sourceUrl)) throw new AppError('usage', 'slices: --source-url must be a postgres:// URL', { field: '--source-url' });
    transient.push(transientPostgres(CLI_SOURCE, o.sourceUrl));
    names.connection = CLI_SOURCE;
  }
  if (o.targetUrl !== undefined) {
    if (o.targetConnection !== undefined) throw both('--target-connection', '--target-url');
    if (!/^postgres(ql)?:\/\//.test(o.targetUrl)) throw new AppError('usage', 'slices: --target-url must be a postgres:// URL', { field: '--target-url' });
    transient.push(transientPostgres(CLI_TARGET, o.targetUrl));
    names.targetConnection = CLI_TARGET;
  }
  if (o.striimUrl !== undefined) {
    if (o.striimConnection !== undefined) throw both('--striim-connection', '--striim-url');
    transient.push(transientStriim(env, o.striimUrl));
    names.striimConnection = CLI_STRIIM;
  }
  return { names, transient };
}

export function cliContext(ctx: CliContext, transient: ConnectionRecord[] = []): SlicesContext {
  return { pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal, print: (l) => process.stdout.write(l + '\n'), local: true, transient };
}

