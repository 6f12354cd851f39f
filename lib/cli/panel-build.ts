import { processEnvironment } from '../config/env';
import { projectRoot } from '../config/project-root';
import { buildPanelIfNeeded as build } from './panel-build.mjs';

const ROOT = projectRoot();

/**
 * Build the Next.js panel when it was never built or its sources changed
 * since the last build (postinstall normally did it already; see panel-build.mjs).
 * @returns whether a build ran
 */
export function buildPanelIfNeeded(log: (m: string) => void): boolean {
  return build(log, ROOT, processEnvironment());
}

export const PROJECT_ROOT = ROOT;
