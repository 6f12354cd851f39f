// Preloaded with `node --import <this file>`: registers a module-resolution hook
// that reports every bare package a process imports, one `trace-load: <specifier>`
// line on stderr, so tests can check that a command loads no engine.
import { register } from 'node:module';

register(new URL('./trace-loads-hooks.mjs', import.meta.url));
