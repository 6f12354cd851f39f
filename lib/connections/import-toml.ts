import fs from 'node:fs/promises';
import { parse } from 'smol-toml';
import type { ConnectionInput } from './store';

/**
 * `[oracle_branches.<key>]` / `[postgres_branches.<key>]` sections (seed 000's
 * `.dlt/secrets.toml`) → connection records. `${ENV}` in string values is
 * replaced from the environment (an unset variable is an error naming it).
 * Secret-looking keys (password, connection strings) are sealed, the rest are params.
 */
const SECRET_KEYS = /^(password|pwd|secret|token|connection_string|connectionString|url|dsn_password)$/i;

export function interpolateEnv(v: string, env: Record<string, string | undefined>, where: string): string {
  return v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const x = env[name];
    if (x === undefined) throw new Error(`connections: ${where}: environment variable ${name} is not set`);
    return x;
  });
}

export function connectionsFromToml(text: string, env: Record<string, string | undefined>, file = 'connections.toml'): ConnectionInput[] {
  let doc: Record<string, unknown>;
  try { doc = parse(text) as Record<string, unknown>; } catch (e) { throw new Error(`connections: ${file}: invalid TOML: ${(e as Error).message}`); }
  const out: ConnectionInput[] = [];
  const known = ['oracle_branches', 'postgres_branches'];
  for (const top of Object.keys(doc)) {
    if (!known.includes(top)) throw new Error(`connections: ${file}: unknown section [${top}] (expected [oracle_branches.<key>] or [postgres_branches.<key>])`);
  }
  for (const [section, kind] of [['oracle_branches', 'oracle'], ['postgres_branches', 'postgres']] as const) {
    const branches = (doc[section] ?? {}) as Record<string, unknown>;
    for (const [key, body] of Object.entries(branches)) {
      const where = `${file} [${section}.${key}]`;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error(`connections: ${where}: expected a table of settings`);
      const params: Record<string, unknown> = {};
      const secrets: Record<string, string> = {};
      for (const [k, raw] of Object.entries(body as Record<string, unknown>)) {
        const v = typeof raw === 'string' ? interpolateEnv(raw, env, `${where} ${k}`) : raw;
        if (SECRET_KEYS.test(k)) secrets[k === 'pwd' ? 'password' : k] = String(v);
        else params[k === 'username' ? 'user' : k] = v;
      }
      if (params.fetch_batch_size !== undefined && !(Number.isInteger(params.fetch_batch_size) && (params.fetch_batch_size as number) > 0)) {
        throw new Error(`connections: ${where}: fetch_batch_size must be a positive integer`);
      }
      if (kind === 'oracle' && !params.dsn && !params.host && !secrets.connection_string) throw new Error(`connections: ${where}: needs dsn, or host with service_name or sid`);
      if (kind === 'postgres' && !params.host && !secrets.url && !secrets.connection_string) throw new Error(`connections: ${where}: needs host (or url)`);
      out.push({ name: key, kind, isBranch: true, branchKey: key, params, secrets });
    }
  }
  return out;
}

export async function readConnectionsToml(file: string, env: Record<string, string | undefined>): Promise<ConnectionInput[]> {
  return connectionsFromToml(await fs.readFile(file, 'utf8'), env, file);
}
