// The layer order of docs/architecture.md, enforced: a module imports only
// from its own folder or from a lower layer. Peers never import each other
// (dq does not reach into etl): what both need moves down a layer. An engine's
// `cli.ts` is its adapter to the CLI layer, imported only by lib/cli/main.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** lib/ folders by layer, lowest first (docs/architecture.md, "Layer order"). */
export const LAYERS: string[][] = [
  ['errors', 'concurrency', 'cache'],
  ['log'],
  ['config'],
  ['db', 'lineage'],
  ['sources', 'lake', 'audit', 'reconcile'],
  ['connections', 'auth', 'jobs'],
  ['mail', 'webhook', 'pipelines'],
  ['etl', 'dq', 'slices', 'models', 'flows', 'lake-admin', 'freshness', 'cdc'],
  ['api', 'cli', 'iceberg-rest', 'metrics', 'assets'],
];
const TOP = new Set(['workers', 'app']);
/** The CLI layer's index in LAYERS: an engine's `cli.ts` is its adapter to the CLI and sits there. */
const CLI_LAYER = LAYERS.findIndex((l) => l.includes('cli'));
const isCliAdapter = (rel: string) => /(^|\/)cli(-[a-z-]+)?\.ts$/.test(rel) && !rel.startsWith('cli/');

function layerOf(folder: string): number {
  const i = LAYERS.findIndex((l) => l.includes(folder));
  return i;
}

function* sources(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'generated' && e.name !== 'node_modules' && !e.name.startsWith('.')) yield* sources(p); }
    else if (/\.(ts|tsx|mjs)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) yield p;
  }
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The import-direction violations of the project at `root` (the repository, or a test's copy of a slice of it). */
function violations(root = ROOT): string[] {
  const out: string[] = [];
  for (const file of sources(path.join(root, 'lib'))) {
    const rel = path.relative(path.join(root, 'lib'), file);
    const from = rel.split(path.sep)[0];
    if (from === 'testing') continue; // test helpers: imported by tests only
    const relPosix = rel.split(path.sep).join('/');
    const fromLayer = isCliAdapter(relPosix) ? CLI_LAYER : layerOf(from);
    if (fromLayer < 0) { out.push(`lib/${rel}: folder lib/${from} is in no layer (add it to LAYERS and docs/architecture.md)`); continue; }
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2];
      let target: string | null = null;
      if (spec.startsWith('.')) target = path.relative(root, path.resolve(path.dirname(file), spec));
      else if (spec.startsWith('@/')) target = spec.slice(2);
      if (target === null) continue; // a package
      const parts = target.split(path.sep).join('/').split('/');
      if (TOP.has(parts[0])) { out.push(`lib/${rel} imports ${spec}: lib/ never imports ${parts[0]}/`); continue; }
      if (parts[0] !== 'lib' || parts.length < 2) continue;
      const to = parts[1];
      if (to === from) continue;
      const targetRel = parts.slice(1).join('/');
      if (isCliAdapter(targetRel.endsWith('.ts') ? targetRel : `${targetRel}.ts`) && relPosix !== 'cli/main.ts') {
        out.push(`lib/${rel} imports ${spec}: only lib/cli/main.ts imports an engine's CLI adapter`);
        continue;
      }
      if (fromLayer === CLI_LAYER && to === 'cli') continue; // a CLI adapter uses the CLI's context
      const toLayer = layerOf(to);
      if (toLayer < 0) { out.push(`lib/${rel} imports ${spec}: lib/${to} is in no layer`); continue; }
      if (toLayer >= fromLayer) out.push(`lib/${rel} imports ${spec}: lib/${from} (layer ${fromLayer}) may import only lower layers, lib/${to} is layer ${toLayer}`);
    }
  }
  return out;
}

describe('import direction', () => {
  it('no lib/ module imports a higher layer, a peer folder, workers/ or app/', () => {
    expect(violations()).toEqual([]);
  });

  it('would catch an upward import (the check itself can fail)', () => {
    // The probe lives in a temporary project outside this one: a file written into lib/ would be
    // seen by tsc, which typecheck.test.ts runs over the repository at the same time.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trb-import-probe-'));
    try {
      fs.mkdirSync(path.join(root, 'lib', 'config'), { recursive: true });
      fs.writeFileSync(path.join(root, 'lib', 'config', 'probe.ts'), "import { x } from '../etl';\nexport const y = x;\n");
      fs.writeFileSync(path.join(root, 'lib', 'config', 'fine.ts'), "import { z } from '../errors';\nexport const w = z;\n");
      expect(violations(root)).toEqual([expect.stringMatching(/^lib\/config\/probe\.ts imports \.\.\/etl: lib\/config \(layer \d+\) may import only lower layers/)]);
    } finally { fs.rmSync(root, { recursive: true, force: true }); }
  });
});
