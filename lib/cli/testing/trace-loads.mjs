// Preloaded with `node --import <this file>`: registers a module-resolution hook
// that reports every bare package a process imports, one `trace-load: <specifier>`
// line on stderr, so tests can check that a command loads no engine.
// Packages loaded through require() (createRequire: commander, pg's socket module)
// pass no ESM hook on Node 20, so require is wrapped here too.
import Module, { builtinModules, register } from 'node:module';
import { writeSync } from 'node:fs';

register(new URL('./trace-loads-hooks.mjs', import.meta.url));

const bare = (request) => !/^(\.|\/|node:|file:|data:)/.test(request) && !builtinModules.includes(request.split('/')[0]);
const load = Module._load;
Module._load = function traced(request, ...rest) {
  if (bare(request)) writeSync(2, `trace-load: ${request}\n`);
  return load.call(this, request, ...rest);
};
