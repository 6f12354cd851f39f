import { AppError } from '../errors';
import { readInteger } from '../config/number-text';

/**
 * Read-only built-in connections made from the process environment, so the
 * environment-configured Striim (`STRIIM_*`) and slice source (`SOURCE_*`,
 * `ORACLE_*`, `SLICES_SOURCE_URL`) are named like any stored connection
 * (`env:striim`, `env:source`): listed by the connections API, usable by
 * name in job payloads, never editable and never stored.
 */
export const BUILTIN_PREFIX = 'env:';
export const ENV_STRIIM = 'env:striim';
export const ENV_SOURCE = 'env:source';

/** A connection with its secrets, as the engines use it (never an API answer). */
export interface ConnectionRecord {
  name: string;
  kind: string;
  params: Record<string, unknown>;
  secrets: Record<string, string>;
  /** Made from the environment (or, in the CLI, from a flag): read-only, never stored. */
  builtIn?: boolean;
}

/**
 * The environment as the parsed `Env` or a plain record of strings (tests, the
 * setup wizard's answers): every value is read as text.
 */
export type EnvLike = Readonly<Record<string, unknown>>;

const text = (env: EnvLike, k: string): string | undefined => {
  const v = env[k];
  return v === undefined || v === null || v === '' ? undefined : String(v);
};

function port(env: EnvLike, k: string, dflt: number): number {
  const v = text(env, k);
  if (v === undefined) return dflt;
  const n = readInteger(v);
  if (n === null || n < 1 || n > 65535) throw new AppError('validation', `${k} must be an integer, got '${v}'`, { field: k });
  return n;
}

/** `env:striim`: STRIIM_URL, or STRIIM_URL_PREFIX + STRIIM_NODE (https:// by default when ENV=PROD). */
export function envStriimConnection(env: EnvLike): ConnectionRecord {
  const prod = (text(env, 'ENV') ?? 'DEV').toUpperCase() === 'PROD';
  let node = text(env, 'STRIIM_NODE') ?? 'localhost:9080';
  let prefix = text(env, 'STRIIM_URL_PREFIX') ?? (prod ? 'https://' : 'http://');
  const full = text(env, 'STRIIM_URL');
  if (full) {
    const u = new URL(full);
    prefix = `${u.protocol}//`;
    node = u.host + (u.pathname === '/' ? '' : u.pathname.replace(/\/+$/, ''));
  }
  const secrets: Record<string, string> = {};
  if (text(env, 'STRIIM_ADMIN_PWD')) secrets.admin_pwd = text(env, 'STRIIM_ADMIN_PWD')!;
  if (text(env, 'STRIIM_API_TOKEN')) secrets.api_token = text(env, 'STRIIM_API_TOKEN')!;
  return { name: ENV_STRIIM, kind: 'striim', builtIn: true, params: { node, url_prefix: prefix, admin_user: text(env, 'STRIIM_ADMIN_USER') ?? 'admin' }, secrets };
}

/** Whether the environment configures Striim at all (else `env:striim` is the DEV default, localhost:9080). */
export function envConfiguresStriim(env: EnvLike): boolean {
  return !!(text(env, 'STRIIM_NODE') || text(env, 'STRIIM_URL'));
}

/**
 * `env:source`: the seed's source variables. Engine: SOURCE_DB_TYPE, else
 * postgres when SLICES_SOURCE_URL or SOURCE_PG_HOST is set, else oracle.
 * Null when the chosen engine has no settings.
 */
export function envSourceConnection(env: EnvLike): ConnectionRecord | null {
  const url = text(env, 'SLICES_SOURCE_URL');
  const engine = (text(env, 'SOURCE_DB_TYPE') ?? (url || text(env, 'SOURCE_PG_HOST') ? 'postgres' : 'oracle')).toLowerCase();
  const base = { name: ENV_SOURCE, builtIn: true as const };
  if (engine === 'postgres') {
    if (url) return { ...base, kind: 'postgres', params: {}, secrets: { url } };
    const host = text(env, 'SOURCE_PG_HOST');
    if (!host) return null;
    const params: Record<string, unknown> = { host, port: port(env, 'SOURCE_PG_PORT', 5432), database: text(env, 'SOURCE_PG_DATABASE') ?? 'postgres', user: text(env, 'SOURCE_PG_USER') ?? '' };
    if (text(env, 'SOURCE_PG_SSLMODE')) params.sslmode = text(env, 'SOURCE_PG_SSLMODE');
    const pw = text(env, 'SOURCE_PG_PASSWORD');
    return { ...base, kind: 'postgres', params, secrets: pw ? { password: pw } : {} };
  }
  if (engine !== 'oracle') return null;
  const dsn = text(env, 'ORACLE_DSN');
  const host = text(env, 'ORACLE_HOST');
  const service = text(env, 'ORACLE_SERVICE');
  if (!dsn && !(host && service)) return null;
  const params: Record<string, unknown> = dsn ? { dsn } : { host, port: port(env, 'ORACLE_PORT', 1521), service_name: service };
  params.user = text(env, 'ORACLE_USER') ?? '';
  const pw = text(env, 'ORACLE_PASSWORD');
  return { ...base, kind: 'oracle', params, secrets: pw ? { password: pw } : {} };
}

/** The built-in connections the environment defines, for listing. */
export function builtinConnections(env: EnvLike): ConnectionRecord[] {
  const out: ConnectionRecord[] = [];
  if (envConfiguresStriim(env)) out.push(envStriimConnection(env));
  const src = envSourceConnection(env);
  if (src) out.push(src);
  return out;
}

/** A built-in by name: `env:striim` always resolves (Striim's DEV default when unset), `env:source` when configured. */
export function builtinConnection(env: EnvLike, name: string): ConnectionRecord | null {
  if (name === ENV_STRIIM) return envStriimConnection(env);
  if (name === ENV_SOURCE) return envSourceConnection(env);
  return null;
}

export function isBuiltinName(name: string): boolean {
  return name.startsWith(BUILTIN_PREFIX);
}

/** Striim's REST endpoint and credentials from a `striim` connection. */
export interface StriimEndpoint { baseUrl: string; user: string; password: string; token: string | null }

export function striimEndpoint(c: ConnectionRecord): StriimEndpoint {
  if (c.kind !== 'striim') throw new AppError('validation', `connections: '${c.name}' is a ${c.kind} connection, not a striim one`, { field: 'striimConnection' });
  const node = String(c.params.node ?? '');
  if (!node) throw new AppError('validation', `connections: striim connection '${c.name}' has no node`, { field: 'params.node' });
  const prefix = String(c.params.url_prefix ?? 'http://');
  return { baseUrl: `${prefix}${node}`, user: String(c.params.admin_user ?? 'admin'), password: c.secrets.admin_pwd ?? '', token: c.secrets.api_token || null };
}
