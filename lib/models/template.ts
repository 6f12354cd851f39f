import nunjucks from 'nunjucks';
import { AppError } from '../errors';

/**
 * The sandboxed Jinja (nunjucks) environment model SQL is rendered in.
 *
 * A template sees only what the caller puts in its context (ref, source,
 * config, var, this, is_incremental) plus nunjucks' control flow (`if`,
 * `for`, `set`, `macro`, filters) and its three harmless globals (`range`,
 * `cycler`, `joiner`). There is no loader, so `include`, `import`, `extends`
 * and `from` find nothing: no file access. Nunjucks is not a sandbox by
 * itself: `range.constructor("return process")()` reaches the Function
 * constructor through a member lookup. Every member lookup therefore goes
 * through `guardedLookup`, which refuses the prototype-chain keys and any
 * inherited property that is not a plain string/array/number method.
 */

const DENIED = new Set([
  'constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
  'caller', 'callee', 'arguments', 'call', 'apply', 'bind', 'valueOf', 'toLocaleString',
]);

// Inherited methods a template may call: the everyday string/array helpers dbt users reach for.
const STRING_METHODS = new Set(['split', 'trim', 'toUpperCase', 'toLowerCase', 'startsWith', 'endsWith', 'includes', 'indexOf', 'replace', 'slice', 'padStart', 'padEnd', 'length', 'toString']);
const ARRAY_METHODS = new Set(['join', 'length', 'includes', 'indexOf', 'slice', 'concat', 'map', 'filter']);
const NUMBER_METHODS = new Set(['toFixed', 'toString']);

type Runtime = { memberLookup(obj: unknown, val: unknown, autoescape?: boolean): unknown };
const runtime = (nunjucks as unknown as { runtime: Runtime }).runtime;
const originalLookup = runtime.memberLookup;

function allowed(obj: unknown, key: string): boolean {
  if (DENIED.has(key)) return false;
  if (typeof obj === 'string') return STRING_METHODS.has(key) || /^\d+$/.test(key);
  if (typeof obj === 'number') return NUMBER_METHODS.has(key);
  if (Array.isArray(obj)) return ARRAY_METHODS.has(key) || /^\d+$/.test(key);
  if (typeof obj === 'function') return false;
  if (obj !== null && typeof obj === 'object') return Object.prototype.hasOwnProperty.call(obj, key);
  return false;
}

function guardedLookup(obj: unknown, val: unknown, autoescape?: boolean): unknown {
  if (obj === undefined || obj === null) return undefined;
  const key = String(val);
  if (!allowed(obj, key)) throw new Error(`models: template may not read .${key} of a ${Array.isArray(obj) ? 'list' : typeof obj}`);
  return originalLookup(obj, val, autoescape);
}

// The runtime object is shared by every nunjucks template of the process; only
// the models engine uses nunjucks, so guarding it here guards all of them.
runtime.memberLookup = guardedLookup;

/** Functions (and values) a template may use; everything else is undefined. */
export interface TemplateContext {
  ref(name: string): string;
  source(a: string, b?: string): string;
  config(opts: Record<string, unknown>): string;
  var(name: string, fallback?: unknown): unknown;
  is_incremental(): boolean;
  this: string;
}

let env: nunjucks.Environment | null = null;
function environment(): nunjucks.Environment {
  if (env) return env;
  // No loader: include/import/extends have nothing to read from.
  env = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: true, trimBlocks: false, lstripBlocks: false });
  return env;
}

/**
 * Render one template. `preamble` (the project's macros) is prepended so its
 * macros are in scope, as dbt makes project macros global. Errors become an
 * AppError naming the file and line.
 */
export function renderTemplate(source: string, ctx: TemplateContext, opts: { file: string; preamble?: string }): string {
  const pre = opts.preamble ?? '';
  const preLines = pre ? pre.split('\n').length - 1 : 0;
  // config() keyword arguments arrive as one object flagged __keywords by nunjucks.
  const kw = (fn: (o: Record<string, unknown>) => string) => (...args: unknown[]) => {
    const last = args[args.length - 1] as Record<string, unknown> | undefined;
    const o = last && typeof last === 'object' && (last as { __keywords?: boolean }).__keywords ? { ...last } : {};
    delete (o as { __keywords?: boolean }).__keywords;
    return fn(o);
  };
  const context = {
    ref: (name: unknown) => ctx.ref(String(name)),
    source: (a: unknown, b?: unknown) => ctx.source(String(a), b === undefined ? undefined : String(b)),
    config: kw((o) => ctx.config(o)),
    var: (name: unknown, fallback?: unknown) => ctx.var(String(name), fallback),
    is_incremental: () => ctx.is_incremental(),
    this: ctx.this,
  };
  try {
    return environment().renderString(pre + source, context);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    // nunjucks reports "(unknown path) [Line 3, Column 5]"; shift the line past the preamble.
    const fixed = msg.replace(/\(unknown path\)\s*/, '').replace(/\[Line (\d+), Column (\d+)\]/, (_m, l, c) => `line ${Math.max(1, Number(l) - preLines)}, column ${c}`);
    if (e instanceof AppError) throw e;
    throw new AppError('validation', `models: ${opts.file}: ${fixed.replace(/^models: /, '').replace(/\n\s*/g, ' ').trim()}`, { cause: e });
  }
}
