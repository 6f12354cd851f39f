// The panel build's freshness check, which decides whether postinstall and
// `npm start` run `next build`: a build of the current sources is reused, a
// changed, added or removed source is built again, tests do not count.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { panelBuilt, panelStamp } from './panel-build.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'panel-build-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const write = (rel: string, text: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), text); };
const markBuilt = () => { write('.next/BUILD_ID', 'x'); write('.next/tributary-build-stamp', panelStamp(root)); };

describe('panel build freshness', () => {
  it('reuses a build of the current sources and rebuilds when one changes', () => {
    write('package.json', JSON.stringify({ name: 'tributary' }));
    write('app/page.tsx', 'export default 1');
    write('lib/x.ts', 'export const x = 1');
    expect(panelBuilt(root)).toBe(false); // never built
    markBuilt();
    expect(panelBuilt(root)).toBe(true);
    write('lib/x.test.ts', 'test'); // tests are not inputs of the build
    expect(panelBuilt(root)).toBe(true);
    write('lib/db/generated/client.ts', 'generated'); // nor generated folders
    expect(panelBuilt(root)).toBe(true);
    write('lib/x.ts', 'export const x = 22'); // a changed source
    expect(panelBuilt(root)).toBe(false);
    markBuilt();
    write('app/new/page.tsx', 'export default 2'); // an added one
    expect(panelBuilt(root)).toBe(false);
    markBuilt();
    fs.rmSync(path.join(root, 'app/new/page.tsx')); // a removed one
    expect(panelBuilt(root)).toBe(false);
    markBuilt();
    fs.rmSync(path.join(root, '.next/BUILD_ID')); // a half-removed build
    expect(panelBuilt(root)).toBe(false);
  });

  it('postinstall builds the panel after generating the client and compiling the CLI', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8'));
    expect(pkg.scripts.postinstall.split('&&').map((s: string) => s.trim())).toEqual([
      'node bin/prisma-generate.mjs', 'node lib/cli/cli-build.mjs', 'node lib/cli/panel-build.mjs']);
  });
});
