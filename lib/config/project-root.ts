import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors';

let root: string | undefined;

function walkUp(from: string): string | undefined {
  // The path is found at run time by design: the panel build must not trace what it points at.
  for (let dir = path.resolve(/*turbopackIgnore: true*/ from); ; dir = path.dirname(dir)) {
    const file = path.join(/*turbopackIgnore: true*/ dir, 'package.json');
    try {
      const pkg = JSON.parse(fs.readFileSync(/*turbopackIgnore: true*/ file, 'utf8')) as { name?: string };
      if (pkg.name === 'tributary') return dir;
    } catch { /* no package.json here: keep walking */ }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The installation's root folder (where Tributary's package.json is). Files
 * shipped beside the sources (migrations, the parquet worker, README) are
 * found from here, not relative to the importing module: the CLI runs both
 * from the sources (tsx) and from a bundle in dist/, one folder elsewhere.
 */
export function projectRoot(): string {
  // import.meta.dirname is unset inside the panel's server bundle (Next runs from the root there).
  const here = typeof import.meta.dirname === 'string' ? import.meta.dirname : undefined;
  root ??= (here && walkUp(here)) || walkUp(process.cwd());
  if (!root) throw new AppError('fatal', `config: cannot find Tributary's package.json above ${here ?? '(bundled module)'} or ${process.cwd()}`);
  return root;
}
