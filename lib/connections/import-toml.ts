import fs from 'node:fs/promises';
import { parse } from 'smol-toml';
import { AppError } from '../errors';
import type { ConnectionInput } from './store';

/**
 * `[oracle_branches.<key>]` / `[postgres_branches.<key>]` sections (seed 000's
 * `.dlt/secrets.toml`) → connection records. `${ENV}` in string values is
 * replaced from the environment (an unset variable is an error naming it).
 * Secret-looking keys (password, connection strings) are sealed, the rest are params.
 */
const SECRET_KEYS = /^(password|pwd|secret|token|connection_string|connectionString|url|dsn_password)$/i;

/**
 * The variables `${VAR}` is filled from: an environment, or `null` where none
 * may be read (the panel: the server's environment is not the caller's).
 */
export type TomlVariables = Record<string, string | undefined> | null;

export function interpolateEnv(v: string, env: TomlVariables, where: string, field?: string): string {
  return v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    if (env === null) throw new AppError('validation', `connections: ${where}: \${${name}} is not expanded by the panel (use \`tributary connections import\` for files with \${VAR})`, { field });
    const x = env[name];
    if (x === undefined) throw new AppError('validation', `connections: ${where}: environment variable ${name} is not set`, { field });
    return x;
  });
}

/**
 * Parse the TOML text. Every refusal is an AppError('validation') naming the
 * file (`file`) and section, with `field` set to `file` for an API caller.
 */
export function connectionsFromToml(text: string, env: TomlVariables, file = 'connections.toml'): ConnectionInput[] {
  const bad = (message: string) => new AppError('validation', `connections: ${message}`, { field: file });
  let doc: Record<string, unknown>;
  try { doc = parse(text) as Record<string, unknown>; } catch (e) { throw bad(`${file}: invalid TOML: ${(e as Error).message}`); }
  const out: ConnectionInput[] = [];
  const known = ['oracle_branches', 'postgres_branches'];
  for (const top of Object.keys(doc)) {
    if (!known.includes(top)) throw bad(`${file}: unknown section [${top}] (expected [oracle_branches.<key>] or [postgres_branches.<key>])`);
  }
  for (const [section, kind] of [['oracle_branches', 'oracle'], ['postgres_branches', 'postgres']] as const) {
    const branches = (doc[section] ?? {}) as Record<string, unknown>;
    for (const [key, body] of Object.entries(branches)) {
      const where = `${file} [${section}.${key}]`;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad(`${where}: expected a table of settings`);
      const params: Record<string, unknown> = {};
      const secrets: Record<string, string> = {};
      for (const [k, raw] of Object.entries(body as Record<string, unknown>)) {
        const v = typeof raw === 'string' ? interpolateEnv(raw, env, `${where} ${k}`, file) : raw;
        if (SECRET_KEYS.test(k)) secrets[k === 'pwd' ? 'password' : k] = String(v);
        else params[k === 'username' ? 'user' : k] = v;
      }
      if (params.fetch_batch_size !== undefined && !(Number.isInteger(params.fetch_batch_size) && (params.fetch_batch_size as number) > 0)) {
        throw bad(`${where}: fetch_batch_size must be a positive integer`);
      }
      // issue 25: `cdc = "log"` streams a PostgreSQL branch from its write-ahead log (lib/cdc); `watermark` is the default
      if (params.cdc !== undefined && !(params.cdc === 'watermark' || (params.cdc === 'log' && kind === 'postgres'))) {
        throw bad(`${where}: cdc must be "watermark"${kind === 'postgres' ? ' or "log"' : ' (an Oracle branch has no "log" mode)'}`);
      }
      if (kind === 'oracle' && !params.dsn && !params.host && !secrets.connection_string) throw bad(`${where}: needs dsn, or host with service_name or sid`);
      if (kind === 'postgres' && !params.host && !secrets.url && !secrets.connection_string) throw bad(`${where}: needs host (or url)`);
      out.push({ name: key, kind, isBranch: true, branchKey: key, params, secrets });
    }
  }
  return out;
}

export async function readConnectionsToml(file: string, env: Record<string, string | undefined>): Promise<ConnectionInput[]> {
  return connectionsFromToml(await fs.readFile(file, 'utf8'), env, file);
}
