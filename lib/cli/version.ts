import { VERSION } from '../jobs/version';

// Set by the esbuild bundle (lib/cli/cli-build.mjs) to the sources' stamp; absent when run through tsx.
declare const __TRIBUTARY_BUILD__: string | undefined;

/** What `tributary --version` prints: package.json's version and the build (a stamp of the sources, no git needed). */
export function versionText(): string {
  const build = typeof __TRIBUTARY_BUILD__ === 'string' ? `build ${__TRIBUTARY_BUILD__}` : 'sources, not compiled';
  return `tributary ${VERSION} (${build})`;
}
