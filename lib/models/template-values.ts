import { AppError } from '../errors';
/**
 * The values a model template computes with. They are the interpreter's
 * own: strings, numbers, booleans, none, lists, dicts, namespaces and
 * functions the product hands in. A member lookup is a `Map.get` or a
 * bounds-checked list index, so no name (`constructor`, `__proto__`,
 * `prototype`, …) can reach a JavaScript prototype, object or global, and a
 * function prints as `<function ref>`, never as its source.
 */

/** A name or attribute that does not exist; using it is an error naming it. */
export class Undef { constructor(readonly name: string) {} }
/** A dict literal, a var() mapping, `kwargs`. */
export class Dict { constructor(readonly m: Map<string, Value> = new Map()) {} }
/** `namespace(...)`: the one value a template may assign attributes on. */
export class Namespace { constructor(readonly m: Map<string, Value> = new Map()) {} }
export type Call = (args: Value[], kw: Map<string, Value>, caller?: Fn) => Value;
/** A callable: a global, a method bound to its value, a macro. */
export class Fn { constructor(readonly name: string, readonly call: Call, readonly kind: 'function' | 'macro' = 'function') {} }
/** An object with fixed read-only attributes (`loop`, a cycler). */
export class Obj { constructor(readonly kind: string, readonly attr: (key: string) => Value | undefined) {} }

export type Value = string | number | boolean | null | Undef | Value[] | Dict | Namespace | Fn | Obj;

/** A template failed at run time; `hint` names what failed so the caller can find its line. */
export class TemplateError extends AppError {
  constructor(message: string, readonly hint?: string) { super('validation', message); this.name = 'TemplateError'; }
}

/** The limits one render runs under. */
export interface TemplateLimits {
  /** Longest string a template may build, output included. (Default: 4,000,000 characters) */
  maxString: number;
  /** Characters a render may allocate in all, counted as strings are built. (Default: 64,000,000) */
  maxAllocated: number;
  /** Expression and statement evaluations per render. (Default: 5,000,000) */
  maxSteps: number;
  /** `for` iterations per render, all loops together. (Default: 200,000) */
  maxIterations: number;
  /** Items in one list, `range()` included. (Default: 100,000) */
  maxItems: number;
  /** Nested macro calls, recursion included. (Default: 64) */
  maxCallDepth: number;
  /** Nested evaluations (deeply nested expressions). (Default: 600) */
  maxNesting: number;
}
export const DEFAULT_LIMITS: TemplateLimits = {
  maxString: 4_000_000, maxAllocated: 64_000_000, maxSteps: 5_000_000, maxIterations: 200_000, maxItems: 100_000, maxCallDepth: 64, maxNesting: 600,
};

/** The counters of one render; every check throws a TemplateError saying which limit was hit. */
export class Budget {
  steps = 0; iterations = 0; allocated = 0; calls = 0; nesting = 0;
  constructor(readonly limits: TemplateLimits) {}
  step(): void { this.work(1); }
  /** Work proportional to `n` (items walked, characters scanned), counted as steps. */
  work(n: number): void { this.steps += n; if (this.steps > this.limits.maxSteps) throw new TemplateError(`the template did more than ${this.limits.maxSteps} evaluation steps`); }
  iterate(): void { if (++this.iterations > this.limits.maxIterations) throw new TemplateError(`the template's loops ran more than ${this.limits.maxIterations} iterations`); }
  /** Before building a string of `n` characters. */
  chars(n: number): void {
    if (n > this.limits.maxString) throw new TemplateError(`the template built a string of more than ${this.limits.maxString} characters`);
    this.allocated += n;
    if (this.allocated > this.limits.maxAllocated) throw new TemplateError(`the template built more than ${this.limits.maxAllocated} characters in all`);
  }
  items(n: number, what = 'a list'): void { if (n > this.limits.maxItems) throw new TemplateError(`${what} of ${n} items is over the limit of ${this.limits.maxItems}`); }
}

export function isList(v: Value): v is Value[] { return Array.isArray(v); }

export function typeName(v: Value): string {
  if (v === null) return 'none';
  if (v instanceof Undef) return 'undefined';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Dict) return 'dict';
  if (v instanceof Namespace) return 'namespace';
  if (v instanceof Fn) return v.kind;
  if (v instanceof Obj) return v.kind;
  return typeof v === 'number' ? 'number' : typeof v;
}

export function undefinedError(u: Undef): TemplateError {
  return new TemplateError(`${u.name ? `'${u.name}'` : 'a value'} is undefined`, u.name.split('.').pop()!.replace(/\(\)$/, '') || undefined);
}

export function truthy(v: Value): boolean {
  if (v instanceof Undef || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Dict) return v.m.size > 0;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  return v !== false;
}

function num(n: number): string {
  if (Number.isInteger(n)) return String(n);
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  return String(n);
}

/** Python's repr of a value, bounded: a nested structure cannot print past the string limit. */
export function repr(v: Value, b: Budget): string {
  const out: string[] = []; let len = 0;
  const add = (s: string) => { len += s.length; if (len > b.limits.maxString) b.chars(len); out.push(s); };
  const walk = (x: Value, depth: number) => {
    b.step();
    if (depth > 100) throw new TemplateError('a value nested more than 100 deep cannot be printed');
    if (typeof x === 'string') add(`'${x.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
    else if (Array.isArray(x)) { add('['); x.forEach((y, i) => { if (i) add(', '); walk(y, depth + 1); }); add(']'); }
    else if (x instanceof Dict || x instanceof Namespace) {
      add(x instanceof Namespace ? '<Namespace {' : '{');
      let i = 0; for (const [k, y] of x.m) { if (i++) add(', '); add(`'${k}': `); walk(y, depth + 1); }
      add(x instanceof Namespace ? '}>' : '}');
    } else add(str(x, b));
  };
  walk(v, 0);
  const s = out.join('');
  b.chars(s.length);
  return s;
}

/** A value as output text, as Jinja prints it (Python's str). Printing an undefined value is an error. */
export function str(v: Value, b: Budget): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return num(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null) return 'None';
  if (v instanceof Undef) throw undefinedError(v);
  if (v instanceof Fn) return `<${v.kind} ${v.name}>`;
  if (v instanceof Obj) return `<${v.kind}>`;
  return repr(v, b);
}

/** JSON of a value (the tojson filter), bounded like repr. */
export function toJson(v: Value, b: Budget): string {
  const out: string[] = []; let len = 0;
  const add = (s: string) => { len += s.length; if (len > b.limits.maxString) b.chars(len); out.push(s); };
  const walk = (x: Value, depth: number) => {
    b.step();
    if (depth > 100) throw new TemplateError('a value nested more than 100 deep cannot be written as JSON');
    if (typeof x === 'string' || typeof x === 'boolean' || x === null) add(JSON.stringify(x));
    else if (typeof x === 'number') add(Number.isFinite(x) ? JSON.stringify(x) : 'null');
    else if (Array.isArray(x)) { add('['); x.forEach((y, i) => { if (i) add(', '); walk(y, depth + 1); }); add(']'); }
    else if (x instanceof Dict || x instanceof Namespace) {
      add('{'); let i = 0; for (const [k, y] of x.m) { if (i++) add(', '); add(`${JSON.stringify(k)}: `); walk(y, depth + 1); } add('}');
    } else if (x instanceof Undef) throw undefinedError(x);
    else throw new TemplateError(`tojson: a ${typeName(x)} has no JSON form`);
  };
  walk(v, 0);
  const s = out.join('');
  b.chars(s.length);
  return s;
}

/** Deep equality; each node compared is a step, so two large shared structures cannot stall a render. */
export function equal(a: Value, b: Value, bud: Budget): boolean {
  bud.step();
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') { bud.work(a.length >> 6); return a === b; }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i], bud));
  if (a instanceof Dict && b instanceof Dict) return a.m.size === b.m.size && [...a.m].every(([k, v]) => b.m.has(k) && equal(v, b.m.get(k)!, bud));
  return false;
}

/**
 * A value from the host (var() values parsed from YAML/JSON) as a template
 * value: primitives, arrays and the own enumerable entries of plain objects.
 * Anything else (functions, class instances) becomes none.
 */
export function fromHost(x: unknown, depth = 0): Value {
  if (depth > 64) throw new TemplateError('a var() value nested more than 64 deep');
  if (typeof x === 'string' || typeof x === 'boolean') return x;
  if (typeof x === 'number') return x;
  if (typeof x === 'bigint') return Number(x);
  if (x === undefined) return new Undef('');
  if (x === null) return null;
  if (Array.isArray(x)) return x.map((y) => fromHost(y, depth + 1));
  if (x instanceof Date) return x.toISOString();
  if (typeof x === 'object') {
    const proto = Object.getPrototypeOf(x);
    if (proto !== Object.prototype && proto !== null) return null;
    return new Dict(new Map(Object.entries(x as Record<string, unknown>).map(([k, v]) => [k, fromHost(v, depth + 1)])));
  }
  return null;
}

/** A template value handed back to the host (config() arguments): plain data only. */
export function toHost(v: Value, what: string, depth = 0): unknown {
  if (depth > 64) throw new TemplateError(`${what}: a value nested more than 64 deep`);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => toHost(x, what, depth + 1));
  // fromEntries defines own properties: a key named __proto__ stays a plain key.
  if (v instanceof Dict || v instanceof Namespace) return Object.fromEntries([...v.m].map(([k, x]) => [k, toHost(x, what, depth + 1)]));
  if (v instanceof Undef) throw undefinedError(v);
  throw new TemplateError(`${what}: cannot take a ${typeName(v)}`);
}
