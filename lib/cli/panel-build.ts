import { processEnvironment } from '../config/env';
import { projectRoot } from '../config/project-root';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { filesStamp } from './cli-build.mjs';
import { AppError } from '../errors';

const ROOT = projectRoot();
const INPUTS = ['app', 'lib', 'public', 'next.config.mjs', 'package-lock.json', 'tsconfig.json'];

/** A fingerprint of everything the panel build reads (paths, sizes, mtimes; generated folders skipped). */
const sourceStamp = () => filesStamp(ROOT, INPUTS, ['generated']);

/**
 * Build the Next.js panel when it was never built or its sources changed
 * since the last build (so `npm start` after a pull just works).
 * @returns whether a build ran
 */
export function buildPanelIfNeeded(log: (m: string) => void): boolean {
  const stampFile = path.join(ROOT, '.next', 'tributary-build-stamp');
  const stamp = sourceStamp();
  const built = fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID')) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp;
  if (built) return false;
  log('building the panel (next build) — first start or sources changed');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...processEnvironment(), NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (r.status !== 0) throw new AppError('fatal', 'serve: the panel build failed (see the output above)');
  fs.writeFileSync(stampFile, stamp);
  return true;
}

export const PROJECT_ROOT = ROOT;
