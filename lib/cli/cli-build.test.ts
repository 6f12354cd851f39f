import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, builtStamp, cliPaths, freshCliEntry, freshCliEntryForHelp, sourceStamp } from './cli-build.mjs';

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

  it('help and version check only the sources of the entry chunk: an edit elsewhere leaves them on the bundle', async () => {
    // An engine loaded on demand (its own chunk), as lib/cli/main.ts loads each command's module.
    fs.writeFileSync(path.join(root, 'lib/engine.ts'), 'export const engine = 1;\n');
    fs.writeFileSync(path.join(root, 'workers/cli.ts'),
      "import { answer } from '../lib/answer';\nexport async function runCli(): Promise<number> { return answer + (await import('../lib/engine')).engine; }\n");
    await buildCli(root);
    const entry = cliPaths(root).entry;
    expect(freshCliEntryForHelp(root)).toBe(entry);
    const listed = Object.keys(JSON.parse(fs.readFileSync(path.join(cliPaths(root).dir, 'entry-inputs.json'), 'utf8')).files);
    expect(listed.sort()).toEqual(['lib/answer.ts', 'workers/cli.ts']);

    const later = new Date(Date.now() + 10_000);
    fs.writeFileSync(path.join(root, 'lib/engine.ts'), 'export const engine = 2;\n');
    fs.utimesSync(path.join(root, 'lib/engine.ts'), later, later);
    expect(freshCliEntry(root)).toBeNull(); // a command would load the engine: it runs the sources
    expect(freshCliEntryForHelp(root)).toBe(entry); // help does not

    fs.writeFileSync(path.join(root, 'lib/answer.ts'), 'export const answer: number = 40;\n');
    fs.utimesSync(path.join(root, 'lib/answer.ts'), later, later);
    expect(freshCliEntryForHelp(root)).toBeNull();
    fs.rmSync(path.join(root, 'lib/engine.ts'));
    fs.writeFileSync(path.join(root, 'workers/cli.ts'), "import { answer } from '../lib/answer';\nexport async function runCli(): Promise<number> { return answer + 2; }\n");
  });

  it('a rebuild replaces the bundle whole', async () => {
    await buildCli(root);
    const entry = freshCliEntry(root)!;
    expect(await (await import(`${entry}?v=2`)).runCli()).toBe(42);
    expect(fs.readdirSync(path.dirname(cliPaths(root).dir)).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
  });
});
