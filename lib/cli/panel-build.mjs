// The panel build (`next build`) when it was never built or its sources changed.
// Plain JS so that `npm install`'s postinstall runs it without a TypeScript
// loader: the panel is built at install time, and the first `npm start` on a
// fresh clone serves at once instead of building for minutes (issue #23).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { filesStamp, findRoot } from './cli-build.mjs';

const INPUTS = ['app', 'lib', 'public', 'next.config.mjs', 'package-lock.json', 'tsconfig.json'];

/** A fingerprint of everything the panel build reads (paths, sizes, mtimes; generated folders skipped). */
export function panelStamp(root = findRoot()) {
  return filesStamp(root, INPUTS, ['generated']);
}

/** Whether `.next` holds a build of the current sources. */
export function panelBuilt(root = findRoot()) {
  const stampFile = path.join(root, '.next', 'tributary-build-stamp');
  return fs.existsSync(path.join(root, '.next', 'BUILD_ID')) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === panelStamp(root);
}

/**
 * Build the Next.js panel when it was never built or its sources changed
 * since the last build (so `npm start` after a pull just works).
 * @returns whether a build ran
 */
export function buildPanelIfNeeded(log, root = findRoot(), env = process.env) {
  if (panelBuilt(root)) return false;
  log('building the panel (next build) — first start or sources changed');
  // The stamp is taken before the build: a source edited while it runs is rebuilt next time.
  const stamp = panelStamp(root);
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (r.status !== 0) throw new Error('serve: the panel build failed (see the output above)');
  fs.writeFileSync(path.join(root, '.next', 'tributary-build-stamp'), stamp);
  return true;
}

// `node lib/cli/panel-build.mjs`: what postinstall runs last. TRIBUTARY_SKIP_PANEL_BUILD=1 skips it
// (a CLI-only install); a failed build does not fail the install: `npm start` builds again.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  if (process.env.TRIBUTARY_SKIP_PANEL_BUILD === '1') {
    console.log('tributary: panel build skipped (TRIBUTARY_SKIP_PANEL_BUILD=1); npm start builds it');
  } else {
    try {
      const ran = buildPanelIfNeeded((m) => console.log(`tributary: ${m}`));
      console.log(ran ? 'tributary: panel built' : 'tributary: panel already built for these sources');
    } catch (e) {
      console.warn(`tributary: the panel build failed; npm start will build it: ${e instanceof Error ? e.message : e}`);
    }
  }
}
