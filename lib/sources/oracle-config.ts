import fs from 'node:fs';
import { AppError } from '../errors';

/**
 * Oracle client settings resolved without touching the driver, so they can be
 * tested here where no Oracle server or Instant Client exists.
 */
export interface OracleDsnParams {
  /** A full connect string or TNS alias; wins over host/port/service/sid. */
  dsn?: string;
  connectString?: string;
  host?: string;
  /** (Default: 1521) */
  port?: number;
  serviceName?: string;
  service_name?: string;
  sid?: string;
}

/** host/port/service → Easy Connect; host/port/SID → a DESCRIPTION; or the given connect string. */
export function oracleConnectString(p: OracleDsnParams): string {
  const full = p.dsn ?? p.connectString;
  if (full) return full;
  if (!p.host) throw new AppError('validation', 'sources: an Oracle branch needs dsn, or host with service_name or sid');
  const port = p.port ?? 1521;
  const service = p.serviceName ?? p.service_name;
  if (service) return `${p.host}:${port}/${service}`;
  if (p.sid) return `(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=${p.host})(PORT=${port}))(CONNECT_DATA=(SID=${p.sid})))`;
  throw new AppError('validation', 'sources: an Oracle branch needs service_name or sid next to host');
}

/**
 * Instant Client directory for thick mode: the ORACLE_CLIENT_LIB_DIR setting → the
 * configured dir → none (the system loader path). A configured directory that
 * does not exist on this host is ignored, so a Windows path in shared config
 * is harmless on Linux.
 */
export function resolveOracleClientLibDir(opts: { envValue?: string; configValue?: string; exists?: (p: string) => boolean }): string | undefined {
  return pickOracleClientLibDir([opts.envValue, opts.configValue], opts.exists);
}

/**
 * The Instant Client dir to use: the first candidate that exists on this host
 * (the setting, a flag, then the connection's own); none when no candidate
 * exists, so the system library path is tried.
 */
export function pickOracleClientLibDir(candidates: (string | undefined)[], exists: (p: string) => boolean = isDir): string | undefined {
  for (const c of candidates) if (c && c.trim() && exists(c)) return c;
  return undefined;
}

function isDir(p: string): boolean { try { return fs.statSync(p).isDirectory(); } catch { return false; } }
