// The compiled CLI: `workers/cli.ts` bundled by esbuild into dist/cli/ (ESM, node20,
// packages external, one chunk per lazily loaded engine). Plain JS so that
// bin/tributary.mjs can decide, without a TypeScript loader, whether the bundle
// is current: a stamp of the sources' paths, sizes and mtimes, written beside it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// node:crypto is loaded when a stamp is taken, not with this module: `--help` and `--version`
// (bin/tributary.mjs) only stat a few files, and loading crypto cost ~8 ms of their ~50 ms over `node -e 0`.
const createHash = (alg) => createRequire(import.meta.url)('node:crypto').createHash(alg);

/** The installation root: the nearest folder above this file holding Tributary's package.json. */
export function findRoot(from = import.meta.dirname) {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === 'tributary') return dir;
    } catch { /* none here: keep walking */ }
    if (path.dirname(dir) === dir) throw new Error(`cli: cannot find Tributary's package.json above ${from}`);
  }
}

/** What the bundle is built from (tests excluded: they are never bundled). */
const INPUTS = ['lib', 'workers', 'package.json'];

/**
 * Packages compiled into the bundle rather than imported from node_modules at
 * run time: zod is ~120 ES modules, and resolving, reading and linking them
 * cost every command that parses its settings ~60 ms (imported whole: 114 ms,
 * bundled: 59 ms, on the bench machine), a tenth of a warm `tributary lake list`.
 * Its version is the one installed when the bundle was built (postinstall).
 */
const INLINED = new Set(['zod']);
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
/** Every other bare import stays external (what `packages: 'external'` does). */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (a) => (INLINED.has(packageOf(a.path)) ? undefined : { path: a.path, external: true }));
  },
};
const OUT = 'dist/cli';

/** The compiled entry point and its stamp file, under `root`. */
export function cliPaths(root = findRoot()) {
  const dir = path.join(root, OUT);
  return { dir, entry: path.join(dir, 'cli.mjs'), stampFile: path.join(dir, 'build-stamp') };
}

/**
 * A fingerprint of files below `root` (relative path, size and mtime of each;
 * a few ms for ~400 files): the inputs are walked in order, skipping tests,
 * node_modules, dot-folders and the folders named in `skipDirs`.
 */
export function filesStamp(root, inputs, skipDirs = [], seen = undefined) {
  const h = createHash('sha256');
  const walk = (rel) => {
    const abs = path.join(root, rel);
    let st;
    try { st = fs.statSync(abs); } catch { return; }
    if (st.isDirectory()) {
      const base = path.basename(abs);
      if (base === 'node_modules' || base.startsWith('.') || skipDirs.includes(base)) return;
      for (const e of fs.readdirSync(abs).sort()) walk(path.join(rel, e));
    } else if (!/\.test\.tsx?$/.test(rel)) {
      h.update(`${rel}:${st.size}:${st.mtimeMs}\n`);
      seen?.set(rel.split(path.sep).join('/'), fileKey(st));
    }
  };
  for (const i of inputs) walk(i);
  return h.digest('hex');
}

const fileKey = (st) => `${st.size}:${st.mtimeMs}`;

/**
 * A fingerprint of the CLI's sources (the generated Prisma client included: it is bundled).
 * @param seen filled with each file's relative path and size:mtime when given
 */
export function sourceStamp(root = findRoot(), seen = undefined) {
  return filesStamp(root, INPUTS, [], seen).slice(0, 16);
}

/** The stamp of the bundle on disk, or null when there is none. */
export function builtStamp(root = findRoot()) {
  try { return fs.readFileSync(cliPaths(root).stampFile, 'utf8').trim(); } catch { return null; }
}

/** The compiled entry point when it exists and matches the sources, else null (run the sources through tsx). */
export function freshCliEntry(root = findRoot()) {
  const { entry } = cliPaths(root);
  if (!fs.existsSync(entry)) return null;
  const built = builtStamp(root);
  return built !== null && built === sourceStamp(root) ? entry : null;
}

/** Where the build lists the sources of the entry chunk (what `--help` and `--version` run) with their size:mtime. */
const ENTRY_INPUTS = 'entry-inputs.json';

/**
 * The compiled entry point for `tributary`, `--help` or `--version` alone, when
 * the sources those run (the entry chunk and the chunks it imports statically:
 * the command table, the version, commander) are unchanged since the build —
 * a dozen stats instead of walking every source. Their output depends on
 * nothing else; any other command checks every source (freshCliEntry).
 */
export function freshCliEntryForHelp(root = findRoot()) {
  const { dir, entry } = cliPaths(root);
  let files;
  try { files = JSON.parse(fs.readFileSync(path.join(dir, ENTRY_INPUTS), 'utf8')).files; } catch { return null; }
  for (const [rel, key] of Object.entries(files)) {
    let st;
    try { st = fs.statSync(path.join(root, rel)); } catch { return null; }
    if (fileKey(st) !== key) return null;
  }
  return entry;
}

/** The source files (relative paths) bundled into the entry output and every chunk it imports statically. */
function entryClosure(metafile, entryOut) {
  const inputs = new Set();
  const visit = (out, done = new Set()) => {
    if (done.has(out) || !metafile.outputs[out]) return;
    done.add(out);
    for (const i of Object.keys(metafile.outputs[out].inputs)) inputs.add(i);
    for (const imp of metafile.outputs[out].imports) if (!imp.external && imp.kind === 'import-statement') visit(imp.path, done);
  };
  visit(entryOut);
  return inputs;
}

/**
 * The bundle's entries: the CLI, and `models-render`, the process model
 * templates are rendered in (bin/models-render.mjs), when its source is there.
 */
function entryPointsOf(root) {
  const entries = { cli: 'workers/cli.ts' };
  const render = 'lib/models/render-child-main.ts';
  if (fs.existsSync(path.join(root, render))) entries['models-render'] = render;
  return entries;
}

/**
 * Bundle the CLI with esbuild (the stamp is taken before bundling, so a source
 * edited meanwhile makes the result stale rather than wrongly current).
 * @returns the stamp written
 */
export async function buildCli(root = findRoot()) {
  const seen = new Map();
  const stamp = sourceStamp(root, seen);
  const { dir } = cliPaths(root);
  const tmp = `${dir}.tmp-${process.pid}`;
  const esbuild = await import('esbuild');
  fs.rmSync(tmp, { recursive: true, force: true });
  const built = await esbuild.build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: entryPointsOf(root),
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [externalPackages],
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    logLevel: 'warning',
    // The build's stamp, shown by `tributary --version` (package.json's version is inlined from its JSON import).
    define: { __TRIBUTARY_BUILD__: JSON.stringify(stamp) },
  });
  fs.writeFileSync(path.join(tmp, 'build-stamp'), `${stamp}\n`);
  // The entry chunk's sources as they were before bundling (an edit meanwhile makes them stale, not wrongly current).
  const entryOut = path.relative(root, path.join(tmp, 'cli.mjs')).split(path.sep).join('/');
  const closure = [...entryClosure(built.metafile, entryOut)];
  if (closure.every((rel) => seen.has(rel))) {
    fs.writeFileSync(path.join(tmp, ENTRY_INPUTS), JSON.stringify({ files: Object.fromEntries(closure.map((rel) => [rel, seen.get(rel)])) }));
  }
  // Swap in whole: a CLI started meanwhile sees the old bundle or the new one, never half of each.
  const old = `${dir}.old-${process.pid}`;
  fs.rmSync(old, { recursive: true, force: true });
  if (fs.existsSync(dir)) fs.renameSync(dir, old);
  fs.renameSync(tmp, dir);
  fs.rmSync(old, { recursive: true, force: true });
  return stamp;
}

// `node lib/cli/cli-build.mjs`: what postinstall runs after prisma generate.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    const stamp = await buildCli();
    console.log(`tributary: CLI compiled to ${path.relative(process.cwd(), cliPaths().dir) || '.'} (build ${stamp})`);
  } catch (e) {
    // An install must not fail for it: without a bundle the CLI runs from the sources (slower to start).
    console.warn(`tributary: compiling the CLI failed, it will run from the sources through tsx: ${e instanceof Error ? e.message : e}`);
  }
}
