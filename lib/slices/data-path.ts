import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors';

/**
 * A path named in a job payload, resolved under the data folder: relative
 * paths are taken from `<data>/`; the result, after `realpath` (so a symlink
 * cannot lead out), must lie inside the data folder's own realpath. A path
 * outside is refused before anything is read there, with the same message
 * whether it exists or not (no probing of the worker's files). For a file to
 * be written, the nearest existing parent folder is checked.
 */
// The data folder's own state: the secret key, the embedded Postgres (its
// files and its password record) are never a job's to read or overwrite, and
// the warehouse is written only through the lake's commits.
const PRIVATE = new Set(['secret.key', 'pg', 'pg.json']);
const NO_WRITE = new Set(['warehouse']);

export async function resolveDataPath(dataDir: string, p: string, field: string, mode: 'read' | 'write' = 'read'): Promise<string> {
  const refuse = () => new AppError('validation', `slices: ${field} must name a file under the data folder (or send the contents inline)`, { field });
  const root = await fs.realpath(dataDir).catch(() => path.resolve(dataDir));
  const inside = (x: string) => {
    if (x !== root && !x.startsWith(root + path.sep)) return false;
    const top = path.relative(root, x).split(path.sep)[0];
    return !PRIVATE.has(top) && !(mode === 'write' && NO_WRITE.has(top));
  };
  const lexical = path.resolve(root, p);
  if (!inside(lexical)) throw refuse();
  if (mode === 'read') {
    const real = await fs.realpath(lexical).catch(() => null); // a path that does not exist yet: the caller decides below
    if (real === null) throw new AppError('validation', `slices: ${field}: no such file under the data folder`, { field });
    if (!inside(real)) throw refuse();
    return real;
  }
  // write: the file may not exist yet; check where its nearest existing ancestor really is
  let probe = lexical;
  for (;;) {
    const real = await fs.realpath(probe).catch(() => null); // a path that does not exist yet: the caller decides below
    if (real !== null) {
      if (!inside(real)) throw refuse();
      return path.join(real, path.relative(probe, lexical));
    }
    const up = path.dirname(probe);
    if (up === probe) throw refuse();
    probe = up;
  }
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
