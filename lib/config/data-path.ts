import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors';

/**
 * How an action turns a path it was given into one it may open. The CLI is the
 * operator's own shell and resolves against the working directory; a job,
 * whose payload anyone with the operator role can write, is confined to the
 * data folder.
 */
export type PathPolicy = (field: string, p: string, use: 'read' | 'write') => Promise<string>;

/** The CLI's policy: any path, as given (relative ones against the working directory, and printed back as given). */
export const localPaths: PathPolicy = async (_field, p) => p;

const isInside = (root: string, p: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

// The data folder's own state: the secret key and the embedded Postgres (its files, its
// password record, its owner record and the application role's password) are never a job's to
// read or overwrite, and the warehouse is written only through the lake's commits. Nor is the
// models project (default <data>/models: files any operator edits through the panel — read as a
// job's tables file they would let an operator's text run as an admin's tables.json, and a file
// written there becomes a seed or a model) or the embedded ClickHouse's state.
const PRIVATE = new Set(['secret.key', 'pg', 'pg.json', 'pg.owner.json', 'pg-app.password', 'models', 'chdb']);
const NO_WRITE = new Set(['warehouse']);

function allowed(root: string, p: string, use: 'read' | 'write'): boolean {
  if (!isInside(root, p)) return false;
  const top = path.relative(root, p).split(path.sep)[0];
  return !PRIVATE.has(top) && !(use === 'write' && NO_WRITE.has(top));
}

/**
 * A job's policy: `p` (relative to the data folder, or absolute) must resolve
 * inside `dataDir` after symlinks are followed (`realpath`), for a file to
 * read or a folder to write (whose nearest existing ancestor is checked, so a
 * symlink cannot lead a new folder out), and never to the folder's own secret key,
 * embedded database or (for writing) warehouse. One message for every refusal, so a
 * payload cannot probe which files exist outside.
 */
export function dataDirPaths(dataDir: string): PathPolicy {
  return async (field, p, use) => {
    // The caller's own value is echoed (it is in the payload anyway); nothing about the file system is.
    const refuse = () => new AppError('validation', `${field}: ${JSON.stringify(String(p).slice(0, 200))} must be a path under the data folder (relative to it, or absolute under it; not its secret key, database or models project)`, { field });
    if (typeof p !== 'string' || !p.trim() || p.includes('\0') || p.length > 4096) throw refuse();
    const root = await fs.realpath(dataDir).catch(() => path.resolve(dataDir));
    const wanted = path.resolve(root, p);
    if (!allowed(root, wanted, use)) throw refuse();
    let probe = wanted;
    for (;;) {
      try {
        const real = await fs.realpath(probe);
        if (!allowed(root, real, use)) throw refuse();
        if (probe === wanted) return real;
        if (use === 'read') break;
        return path.join(real, path.relative(probe, wanted));
      } catch (e) {
        if (e instanceof AppError) throw e;
        const parent = path.dirname(probe);
        if (parent === probe || use === 'read') break;
        probe = parent;
      }
    }
    throw new AppError('validation', `${field}: no such file under the data folder: ${path.relative(root, wanted)}`, { field });
  };
}
