import type { LineageDataset } from './types';

/**
 * Dataset names per the OpenLineage naming spec (client/python naming/dataset.py):
 * PostgreSQL `postgres://host:port` + `database.schema.table`, Oracle
 * `oracle://host:port` + `serviceName.schema.table`, local files `file` + the
 * absolute path, S3 `s3://bucket` + the key, ClickHouse `clickhouse://host:port` +
 * `database.table`. A namespace never carries a user or password: only host and port are kept.
 */

/** The parts of a source connection naming needs (lib/sources' SourceDescriptor fits). */
export interface SourceAddress {
  kind: 'postgres' | 'oracle' | string;
  host?: string; port?: number; database?: string; connectionString?: string;
  serviceName?: string; sid?: string; dsn?: string;
}

/**
 * `[schema.]table` as the database stores it: unquoted names folded as the database
 * folds them (PostgreSQL to lower case, Oracle to upper case), quoted ones kept.
 * A subquery or anything else names no single table: null.
 */
function splitTable(table: string, defaultSchema: string, fold: (s: string) => string): [string, string] | null {
  const m = /^\s*(?:("?)([\w$#]+)\1\.)?("?)([\w$#]+)\3\s*$/.exec(table);
  if (!m) return null;
  return [m[2] === undefined ? defaultSchema : m[1] ? m[2] : fold(m[2]), m[3] ? m[4] : fold(m[4])];
}

/** A source table on a branch, or null when the connection or the table cannot be named (a subquery). */
export function sourceDataset(src: SourceAddress, table: string): LineageDataset | null {
  if (src.kind === 'postgres') {
    let host = src.host; let port = src.port; let db = src.database;
    if (src.connectionString) {
      try {
        const u = new URL(src.connectionString);
        host ??= u.hostname || undefined; port ??= u.port ? Number(u.port) : undefined;
        db ??= decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined;
      } catch { /* not a URL (a libpq key=value string): host and database from params only */ }
    }
    const st = splitTable(table, 'public', (x) => x.toLowerCase());
    if (!st || !db) return null;
    return { namespace: `postgres://${host ?? 'localhost'}:${port ?? 5432}`, name: `${db}.${st[0]}.${st[1]}` };
  }
  if (src.kind === 'oracle') {
    let host = src.host; let port = src.port; let service = src.serviceName ?? src.sid;
    // EZConnect `host[:port]/service`
    const m = src.dsn ? /^(?:\/\/)?([^:/\s]+)(?::(\d+))?\/([^\s:/]+)/.exec(src.dsn) : null;
    if (m) { host ??= m[1]; port ??= m[2] ? Number(m[2]) : undefined; service ??= m[3]; }
    const st = splitTable(table, '', (x) => x.toUpperCase());
    if (!st || !host || !service || !st[0]) return null;
    return { namespace: `oracle://${host}:${port ?? 1521}`, name: `${service}.${st[0]}.${st[1]}` };
  }
  return null;
}

/** A lake table by its location: `file:///abs/path` → (`file`, `/abs/path`), `s3://bucket/key` → (`s3://bucket`, `key`). */
export function locationDataset(location: string): LineageDataset {
  const s3 = /^s3a?:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (s3) return { namespace: `s3://${s3[1]}`, name: s3[2].replace(/\/+$/, '') };
  const path = location.replace(/^file:\/\//, '');
  return { namespace: 'file', name: path.replace(/\/+$/, '') };
}

/** A ClickHouse table; the embedded chdb target has no port: `clickhouse://<host>` names the machine whose chdb holds it. */
export function clickhouseDataset(host: string, port: number | undefined, database: string, table: string): LineageDataset {
  return { namespace: `clickhouse://${host}${port ? `:${port}` : ''}`, name: `${database}.${table}` };
}
