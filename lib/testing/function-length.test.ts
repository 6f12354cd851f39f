// No function in lib/ spans more than 120 lines (issue #27): a longer one is
// split into named steps. `npx tsx lib/testing/function-length.ts` lists them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { longFunctions, longFunctionsIn } from './function-length';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX = 120;

describe('function length', () => {
  it(`no function in lib/ is over ${MAX} lines`, () => {
    const long = longFunctions(ROOT, path.join(ROOT, 'lib'), MAX);
    expect(long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });

  it('counts a function from its first line to its closing brace, and names arrows by their binding', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const text = `export function short() {\n${body(5)}\n}\nexport const long = async () => {\n${body(MAX)}\n};\nclass C { method() {\n${body(MAX)}\n} }\n`;
    expect(longFunctionsIn('a.ts', text, MAX)).toEqual([
      { file: 'a.ts', line: 8, name: 'long', lines: MAX + 2 },
      { file: 'a.ts', line: 10 + MAX, name: 'method', lines: MAX + 2 },
    ]);
  });
});
