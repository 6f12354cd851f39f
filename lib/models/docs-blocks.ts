import { AppError } from '../errors';
import type { DocBlock } from './types';

/**
 * dbt's docs blocks: `{% docs name %}…{% enddocs %}` in the project's .md
 * files, what `{{ doc('name') }}` in a description stands for. As dbt does,
 * a block's contents are kept trimmed, and a name is defined once in the
 * project.
 */
const BLOCK = /\{%-?\s*docs\s+([^\s%-][^%]*?)\s*-?%\}([\s\S]*?)\{%-?\s*enddocs\s*-?%\}/g;
const OPEN = /\{%-?\s*docs\b/g;

export function parseDocBlocks(text: string, path: string): DocBlock[] {
  const out: DocBlock[] = [];
  let closed = 0;
  for (const m of text.matchAll(BLOCK)) {
    const name = m[1].trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new AppError('validation', `models: ${path}: line ${lineAt(text, m.index!)}: a docs block's name is letters, digits and _ (got ${JSON.stringify(name)})`);
    out.push({ name, path, contents: m[2].trim() });
    closed++;
  }
  const opens = [...text.matchAll(OPEN)];
  if (opens.length > closed) {
    // the first opening tag with no enddocs after it
    const ends = [...text.matchAll(BLOCK)].map((m) => m.index!);
    const bad = opens.find((o) => !ends.includes(o.index!)) ?? opens[opens.length - 1];
    throw new AppError('validation', `models: ${path}: line ${lineAt(text, bad.index!)}: {% docs %} is never closed (expected {% enddocs %})`);
  }
  return out;
}

function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
