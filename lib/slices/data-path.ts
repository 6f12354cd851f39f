import fs from 'node:fs/promises';
import path from 'node:path';
import { dataDirPaths } from '../config/data-path';
import { AppError } from '../errors';

/**
 * A path named in a job payload, resolved under the data folder by the one
 * rule every engine's jobs share (lib/config/data-path.ts: realpath, no way
 * out, never the secret key, the embedded database or a write into the warehouse).
 */
export function resolveDataPath(dataDir: string, p: string, field: string, mode: 'read' | 'write' = 'read'): Promise<string> {
  return dataDirPaths(dataDir)(field, p, mode);
}

/**
 * Read a payload's file: the CLI (`local`) reads the operator's own path;
 * a job only under the data folder. An unreadable file is reported by the
 * field's name, never by quoting its contents.
 */
export async function readRequestFile(o: { local: boolean; dataDir: string }, p: string, field: string): Promise<{ text: string; path: string }> {
  const file = o.local ? path.resolve(p) : await resolveDataPath(o.dataDir, p, field);
  try { return { text: await fs.readFile(file, 'utf8'), path: file }; } catch (e) {
    throw new AppError(o.local ? 'usage' : 'validation', `slices: ${field}: cannot read ${o.local ? file : 'the file'} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { field, cause: e });
  }
}
