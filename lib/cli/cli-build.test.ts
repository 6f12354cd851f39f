import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, builtStamp, cliPaths, freshCliEntry, sourceStamp } from './cli-build.mjs';

// A tiny installation in a temp folder: package.json, an entry point and one lib module.
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-cli-build-'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'tributary', version: '9.9.9', type: 'module' }));
  fs.mkdirSync(path.join(root, 'lib'));
  fs.mkdirSync(path.join(root, 'workers'));
  fs.writeFileSync(path.join(root, 'lib/answer.ts'), 'export const answer: number = 41;\n');
  fs.writeFileSync(path.join(root, 'workers/cli.ts'), "import { answer } from '../lib/answer';\nexport async function runCli(): Promise<number> { return answer; }\n");
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the compiled CLI and its stamp', () => {
  it('is used only while it matches the sources, so an edit never runs stale code', async () => {
    expect(freshCliEntry(root)).toBeNull(); // never built
    const stamp = await buildCli(root);
    expect(builtStamp(root)).toBe(stamp);
    const entry = freshCliEntry(root);
    expect(entry).toBe(cliPaths(root).entry);
    expect(await (await import(entry!)).runCli()).toBe(41);

    // An edit (new content, new mtime) makes the bundle stale …
    fs.writeFileSync(path.join(root, 'lib/answer.ts'), 'export const answer: number = 42;\n');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(root, 'lib/answer.ts'), later, later);
    expect(sourceStamp(root)).not.toBe(stamp);
    expect(freshCliEntry(root)).toBeNull();
    // … and so does a new file; tests do not count.
    await buildCli(root);
    expect(freshCliEntry(root)).not.toBeNull();
    fs.writeFileSync(path.join(root, 'lib/answer.test.ts'), '// a test\n');
    expect(freshCliEntry(root)).not.toBeNull();
    fs.writeFileSync(path.join(root, 'lib/more.ts'), 'export {};\n');
    expect(freshCliEntry(root)).toBeNull();
  });

  it('a rebuild replaces the bundle whole', async () => {
    await buildCli(root);
    const entry = freshCliEntry(root)!;
    expect(await (await import(`${entry}?v=2`)).runCli()).toBe(42);
    expect(fs.readdirSync(path.dirname(cliPaths(root).dir)).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
  });
});
