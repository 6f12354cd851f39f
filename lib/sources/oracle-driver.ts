import fs from 'node:fs';
import { createRequire } from 'node:module';
import type OracleDB from 'oracledb';
import type { Logger } from '../log';
import { AppError } from '../errors';

/** node-oracledb's module, typed by @types/oracledb. */
export type OracleDriver = typeof OracleDB;
export type OracleConnection = OracleDB.Connection;
export type OraclePool = OracleDB.Pool;

export interface OracleDriverOptions {
  /**
   * Instant Client folder for thick mode, as the caller resolved it (the
   * `ORACLE_CLIENT_LIB_DIR` setting, or the connection's `oracle_client_lib_dir`).
   * A folder missing on this host is ignored (a Windows path in shared config is
   * harmless on Linux). (Default: none)
   */
  clientLibDir?: string;
  /**
   * `thick`: require thick mode (fail when the Instant Client cannot load);
   * `thin`: never load it (Oracle 12.1+ only); `auto`: thick when an existing
   * `clientLibDir` is given (required then), else try thick from the system
   * library path and fall back to thin. (Default: auto)
   */
  mode?: 'auto' | 'thick' | 'thin';
  logger?: Logger;
}

let driver: OracleDriver | null = null;
let chosen: 'thick' | 'thin' | null = null;

const isDir = (p: string) => { try { return fs.statSync(p).isDirectory(); } catch { return false; } };

/**
 * The one place node-oracledb is loaded, on first use (Postgres-only installs
 * never touch it). Thick mode (the Instant Client) is what reaches Oracle 11g;
 * thin needs 12.1+. The mode is fixed for the process by node-oracledb itself,
 * so the first caller's choice holds and a later, conflicting demand fails
 * with a clear message.
 */
export function loadOracle(o: OracleDriverOptions = {}): { oracledb: OracleDriver; mode: 'thick' | 'thin' } {
  driver ??= createRequire(import.meta.url)('oracledb') as OracleDriver;
  const libDir = o.clientLibDir && o.clientLibDir.trim() && isDir(o.clientLibDir) ? o.clientLibDir : undefined;
  const want = o.mode ?? 'auto';
  const required = want === 'thick' || (want === 'auto' && !!libDir);
  if (chosen === 'thick') return { oracledb: driver, mode: chosen };
  if (chosen === 'thin') {
    if (required) throw new AppError('usage', 'sources: Oracle thick mode was asked for, but this process already uses thin mode (node-oracledb fixes the mode at the first connection)');
    return { oracledb: driver, mode: chosen };
  }
  if (want === 'thin') { chosen = 'thin'; return { oracledb: driver, mode: chosen }; }
  try {
    driver.initOracleClient(libDir ? { libDir } : {});
    chosen = 'thick';
  } catch (e) {
    if (required) {
      throw new AppError('fatal', `sources: Oracle thick mode: cannot load the Instant Client${libDir ? ` from ${libDir}` : ''}: ${(e as Error).message}`, { cause: e });
    }
    o.logger?.warn('sources: Oracle thick mode unavailable, using thin mode (Oracle 12.1+ only; set ORACLE_CLIENT_LIB_DIR for 11g)', { error: (e as Error).message });
    chosen = 'thin';
  }
  return { oracledb: driver, mode: chosen };
}
