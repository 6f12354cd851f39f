import type { FanoutDeps } from '../../jobs/fanout';
import type pg from 'pg';
import type { z } from 'zod';
import type { Env } from '../../config/env';
import { builtinConnection, builtinConnections, envStriimConnection, resolveConnection, striimEndpoint, ENV_SOURCE, ENV_STRIIM, type ConnectionRecord, type ConnectionsContext, type StriimEndpoint } from '../../connections';
import { AppError } from '../../errors';
import type { Logger } from '../../log';
import { readRequestFile, resolveDataPath } from '../data-path';
import { runSourceOf, sourceFromConnection, type SourceConfig } from '../planning/source';
import { fieldOf, PlanningInputError, type FieldStyle } from '../planning/validate';

/**
 * What every `execute<Action>` gets from its caller: the CLI (CliContext plus
 * `local: true` and its transient connections) or a job (JobContext).
 */
export interface SlicesContext {
  /** Tributary's own database (orchestration table, connections). */
  pool: pg.Pool;
  /** The parsed environment (lib/config/env.ts), slices section included. */
  env: Env;
  logger: Logger;
  signal: AbortSignal;
  progress?(done: number, total?: number): void;
  /** Console lines (the CLI prints them; a job logs them). */
  print?(line: string): void;
  /**
   * The CLI: paths are the operator's own and `transient` connections (made
   * from `--source-url`-style flags) may be named. A job: paths must resolve
   * under the data folder, and only stored or `env:` connections exist. (Default: false)
   */
  local?: boolean;
  /** CLI-only connections, in memory for this one command; never stored. (Default: none) */
  transient?: ConnectionRecord[];
  /** A native run's slices go out as `slices.slice` jobs to every worker (a job with TRIBUTARY_FANOUT=on). (Default: run them here) */
  fanout?: Pick<FanoutDeps, 'jobs' | 'parentRunId' | 'runInline'>;
}

/** The CLI's transient connection names (never valid in a job: the worker does not have them). */
export const CLI_SOURCE = 'cli:source-url';
export const CLI_TARGET = 'cli:target-url';
export const CLI_STRIIM = 'cli:striim-url';

/** A transient Postgres connection from a CLI URL flag (`--source-url`, `--target-url`). */
export function transientPostgres(name: string, url: string): ConnectionRecord {
  return { name, kind: 'postgres', params: {}, secrets: { url }, builtIn: true };
}

/**
 * `--striim-url`: the environment's Striim (`env:striim`, its credentials)
 * at an address the operator typed on their own command line. Jobs never get
 * this: it exists only in the CLI process.
 */
export function transientStriim(env: Env, url: string): ConnectionRecord {
  let u: URL | null = null;
  try { u = new URL(url); } catch { /* refused below */ }
  if (!u || !/^https?:$/.test(u.protocol)) throw new AppError('usage', `slices: --striim-url must be an http(s) URL, got '${url}'`, { field: '--striim-url' });
  const base = envStriimConnection(env);
  return { ...base, name: CLI_STRIIM, params: { ...base.params, node: u.host + u.pathname.replace(/\/+$/, ''), url_prefix: `${u.protocol}//` } };
}

export function connectionsOf(ctx: SlicesContext): ConnectionsContext {
  return {
    pool: ctx.pool,
    keys: { secret: ctx.env.TRIBUTARY_SECRET, dataDir: ctx.env.dataDir },
    builtins: [...(ctx.local ? ctx.transient ?? [] : []), ...builtinConnections(ctx.env)],
  };
}

/** How this caller names fields: CLI flags (local) or job payload fields. */
export function styleOf(ctx: Pick<SlicesContext, 'local'>): FieldStyle {
  return ctx.local ? 'flag' : 'param';
}

/** Field names as the caller wrote them: `--source-url` style for the CLI, `params.x` for a job. */
export function fieldName(ctx: Pick<SlicesContext, 'local'>, field: string): string {
  return fieldOf(styleOf(ctx), field);
}

/** A named connection with its secrets; a missing one is a bad request naming the field. */
export async function namedConnection(ctx: SlicesContext, name: string, field: string): Promise<ConnectionRecord> {
  const c = (await resolveConnection(connectionsOf(ctx), name)) ?? builtinConnection(ctx.env, name);
  if (!c) {
    const text = `connection '${name}' not found (see tributary connections list)`;
    throw new PlanningInputError(ctx.local ? `✗ ${text}` : `slices: ${text}`, fieldName(ctx, field));
  }
  return c;
}

/** The source: the named connection, else `env:source` (null when the environment has none). */
export async function sourceOf(ctx: SlicesContext, name: string | undefined, field = 'connection'): Promise<SourceConfig | null> {
  if (name) return sourceFromConnection(await namedConnection(ctx, name, field), styleOf(ctx), field);
  const env = builtinConnection(ctx.env, ENV_SOURCE);
  return env ? sourceFromConnection(env, styleOf(ctx), field) : null;
}

/** A Postgres target URL from a connection. */
export async function postgresUrlOf(ctx: SlicesContext, name: string, field: string): Promise<string> {
  const c = await namedConnection(ctx, name, field);
  const s = runSourceOf(sourceFromConnection(c));
  if (s.engine !== 'postgres') throw new AppError(ctx.local ? 'usage' : 'validation', `slices: ${fieldName(ctx, field)}: '${name}' is an ${s.engine} connection; the target must be PostgreSQL`, { field: fieldName(ctx, field) });
  return s.url;
}

/**
 * Striim's endpoint and credentials: only ever from one connection (named, or
 * `env:striim`), so a request can never send a stored or environment
 * credential to an address of its own choosing.
 */
export async function striimOf(ctx: SlicesContext, name: string | undefined): Promise<StriimEndpoint> {
  const c = name ? await namedConnection(ctx, name, 'striimConnection') : builtinConnection(ctx.env, ENV_STRIIM)!;
  try { return striimEndpoint(c); } catch (e) {
    throw new AppError(ctx.local ? 'usage' : 'validation', `slices: ${fieldName(ctx, 'striimConnection')}: ${(e as Error).message}`, { field: fieldName(ctx, 'striimConnection'), cause: e });
  }
}

/** A request file: the operator's path in the CLI, a data-folder path in a job. */
export function readFileOf(ctx: SlicesContext, p: string, field: string): Promise<{ text: string; path: string }> {
  return readRequestFile({ local: !!ctx.local, dataDir: ctx.env.dataDir }, p, fieldName(ctx, field));
}

/** A path to write: as given in the CLI; under the data folder in a job. */
export async function writePathOf(ctx: SlicesContext, p: string, field: string): Promise<string> {
  return ctx.local ? p : resolveDataPath(ctx.env.dataDir, p, fieldName(ctx, field), 'write');
}

/**
 * A lake warehouse a request names: the CLI may name any; a job only
 * "default" (TRIBUTARY_WAREHOUSE) — a free-form warehouse would let it write
 * anywhere on the worker.
 */
export function lakeOf(ctx: SlicesContext, targetLake: string | undefined): string | undefined {
  if (targetLake === undefined || ctx.local || targetLake === 'default' || targetLake === ctx.env.warehouse) return targetLake;
  throw new AppError('validation', `slices: params.targetLake must be "default" (the configured warehouse)`, { field: 'params.targetLake' });
}

/**
 * Validate CLI flags (camelCase, as commander yields them) with an action's
 * request schema; a bad flag is reported by its name (`--concurrency`), exit 2.
 * Only the schema's own fields are taken from `flags`.
 */
export function parseFlags<S extends z.ZodObject>(schema: S, flags: Record<string, unknown>, style: 'slices' | 'argparse' = 'slices'): z.infer<S> {
  const raw = Object.fromEntries(Object.keys(schema.shape).filter((k) => flags[k] !== undefined).map((k) => [k, flags[k]]));
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const key = String(i.path[0] ?? '');
  const flag = key ? fieldName({ local: true }, key) : 'flags';
  const input = key ? raw[key] : undefined;
  // The planning commands keep the seed's argparse-style wording (`argument --chunks: …`).
  if (style === 'argparse') throw new PlanningInputError(`argument ${flag}: ${i.message}`, key);
  throw new AppError('usage', `slices: ${flag} ${i.message}${input !== undefined ? ` (got '${String(input)}')` : ''}`, { field: flag });
}
