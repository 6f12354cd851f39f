import { AppError } from '../../errors';
import type { SliceSpec } from './register';

/**
 * Parse a queryfile (seed 001): one slice per line, `SQL|TARGET`. The target is
 * after the LAST `|` (SQL may contain `||`); blank lines and lines starting with
 * `#` or `--` are skipped.
 */
export function parseQueryFile(text: string): SliceSpec[] {
  const out: SliceSpec[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('--')) continue;
    const bar = line.lastIndexOf('|');
    if (bar < 0) throw new AppError('usage', `slices: queryfile line ${i + 1}: expected SQL|TARGET`);
    const query = line.slice(0, bar).trim();
    const target = line.slice(bar + 1).trim();
    if (!query) throw new AppError('usage', `slices: queryfile line ${i + 1}: empty SQL`);
    if (!target || /\s/.test(target)) throw new AppError('usage', `slices: queryfile line ${i + 1}: target must be a table name (OWNER.TABLE, no spaces)`);
    out.push({ query, target });
  }
  if (out.length === 0) throw new AppError('usage', 'slices: queryfile has no slices');
  return out;
}
