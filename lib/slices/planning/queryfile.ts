import fs from 'node:fs/promises';
import path from 'node:path';
import { PlanningInputError } from './validate';
import { AppError } from '../../errors';

/** One queryfile line: the slice SQL (one line) and its target table. */
export interface QueryLine { sql: string; target: string }

/** `SQL|TARGET` per line. The SQL may hold `||`; the target never holds `|`, so the last `|` splits. */
export function formatQueryfile(lines: QueryLine[]): string {
  return lines.map((l) => {
    if (/[\r\n]/.test(l.sql)) throw new AppError('validation', 'slices: a queryfile line must hold its SQL on one line');
    if (l.target.includes('|') || l.target.trim() === '') throw new PlanningInputError(`✗ target must be non-empty and must not contain '|'`, 'target');
    return `${l.sql}|${l.target}`;
  }).join('\n') + (lines.length ? '\n' : '');
}

export function parseQueryfile(text: string): QueryLine[] {
  const out: QueryLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = line.lastIndexOf('|');
    if (at <= 0 || at === line.length - 1) throw new PlanningInputError(`✗ queryfile line ${i + 1} is not SQL|TARGET`, 'input');
    out.push({ sql: line.slice(0, at).trim(), target: line.slice(at + 1).trim() });
  });
  return out;
}

/** The only place planning writes files: atomically (temp file, then rename). */
export async function writeTextFile(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, text, 'utf8');
  await fs.rename(tmp, file);
}
