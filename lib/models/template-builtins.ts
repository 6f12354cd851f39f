import { Budget, Dict, Fn, Namespace, Obj, TemplateError, Undef, equal, isList, repr, str, toJson, truthy, typeName, undefinedError, type Value } from './template-values';

/**
 * What a template can call besides the product's functions: methods of its
 * own strings, lists and dicts, Jinja's filters and tests, and the globals
 * `range`, `cycler`, `joiner`, `namespace`, `dict`, `return`, `exceptions`,
 * `log`. Each is written over the interpreter's values; none touches a
 * JavaScript object of the host.
 */

const arg = (args: Value[], kw: Map<string, Value>, i: number, name: string, dflt?: Value): Value | undefined =>
  i < args.length ? args[i] : kw.has(name) ? kw.get(name) : dflt;

function needString(v: Value | undefined, what: string): string {
  if (typeof v !== 'string') throw new TemplateError(`${what} takes a string (got ${v === undefined ? 'nothing' : typeName(v)})`);
  return v;
}
function needInt(v: Value | undefined, what: string): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new TemplateError(`${what} takes a number (got ${v === undefined ? 'nothing' : typeName(v)})`);
  return Math.trunc(v);
}

/** Python's str.replace with an optional count. */
function replaceAll(b: Budget, s: string, old: string, neu: string, count = -1): string {
  const parts = old === '' ? [...s] : s.split(old);
  if (old === '') {
    // 'ab'.replace('', '-') is '-a-b-'
    const n = count < 0 ? parts.length + 1 : Math.min(count, parts.length + 1);
    b.chars(s.length + n * neu.length);
    let out = ''; for (let i = 0; i < parts.length; i++) out += (i < n ? neu : '') + parts[i];
    return out + (n > parts.length ? neu : '');
  }
  const n = count < 0 ? parts.length - 1 : Math.min(count, parts.length - 1);
  b.chars(s.length + n * Math.max(0, neu.length - old.length));
  return parts.slice(0, n + 1).join(neu) + (n + 1 < parts.length ? old + parts.slice(n + 1).join(old) : '');
}

function split(b: Budget, s: string, sep: Value | undefined, max: number): string[] {
  b.work(s.length >> 6);
  let out: string[];
  if (sep === undefined || sep === null) {
    const t = s.trim();
    // Count before splitting: a 4 MB string must not become millions of pieces first.
    let n = t === '' ? 0 : 1;
    for (let i = 0; i < t.length && n <= b.limits.maxItems; i++) if (/\s/.test(t[i]) && !/\s/.test(t[i + 1] ?? ' ')) n++;
    b.items(n, 'split()');
    out = t === '' ? [] : t.split(/\s+/);
    if (max >= 0 && out.length > max + 1) out = [...out.slice(0, max), out.slice(max).join(' ')];
  } else {
    const d = needString(sep, 'split()');
    if (d === '') throw new TemplateError('split(): empty separator');
    let n = 1;
    for (let i = s.indexOf(d); i >= 0 && n <= b.limits.maxItems; i = s.indexOf(d, i + d.length)) n++;
    b.items(n, 'split()');
    out = s.split(d);
    if (max >= 0 && out.length > max + 1) out = [...out.slice(0, max), out.slice(max).join(d)];
  }
  return out;
}

function stripChars(s: string, chars: Value | undefined, side: 'both' | 'left' | 'right'): string {
  if (chars === undefined || chars === null) return side === 'both' ? s.trim() : side === 'left' ? s.trimStart() : s.trimEnd();
  const set = new Set(needString(chars, 'strip()'));
  let i = 0; let j = s.length;
  if (side !== 'right') while (i < j && set.has(s[i])) i++;
  if (side !== 'left') while (j > i && set.has(s[j - 1])) j--;
  return s.slice(i, j);
}

const title = (s: string) => s.toLowerCase().replace(/(^|[^A-Za-z0-9])([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase());

/** `'x'.upper()` and friends: Python's str methods dbt projects use. */
function stringMethod(b: Budget, s: string, name: string): Fn | undefined {
  const m = (f: (args: Value[], kw: Map<string, Value>) => Value) => new Fn(`str.${name}`, f);
  switch (name) {
    case 'upper': return m(() => s.toUpperCase());
    case 'lower': return m(() => s.toLowerCase());
    case 'strip': return m((a, k) => stripChars(s, arg(a, k, 0, 'chars'), 'both'));
    case 'lstrip': return m((a, k) => stripChars(s, arg(a, k, 0, 'chars'), 'left'));
    case 'rstrip': return m((a, k) => stripChars(s, arg(a, k, 0, 'chars'), 'right'));
    case 'title': return m(() => title(s));
    case 'capitalize': return m(() => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase());
    case 'split': return m((a, k) => split(b, s, arg(a, k, 0, 'sep'), needInt(arg(a, k, 1, 'maxsplit', -1), 'split()')));
    case 'replace': return m((a, k) => replaceAll(b, s, needString(a[0], 'replace()'), needString(a[1], 'replace()'), needInt(arg(a, k, 2, 'count', -1), 'replace()')));
    case 'startswith': return m((a) => (isList(a[0]) ? a[0] : [a[0]]).some((p) => s.startsWith(needString(p, 'startswith()'))));
    case 'endswith': return m((a) => (isList(a[0]) ? a[0] : [a[0]]).some((p) => s.endsWith(needString(p, 'endswith()'))));
    case 'find': return m((a) => { b.work(s.length >> 6); return s.indexOf(needString(a[0], 'find()')); });
    case 'count': return m((a) => { b.work(s.length >> 6); const d = needString(a[0], 'count()'); return d === '' ? s.length + 1 : s.split(d).length - 1; });
    case 'join': return m((a) => join(b, a[0], s));
    case 'isdigit': return m(() => /^\d+$/.test(s));
    case 'isalpha': return m(() => /^[A-Za-z]+$/.test(s));
    case 'zfill': return m((a) => { const w = needInt(a[0], 'zfill()'); b.chars(w); return s.padStart(w, '0'); });
    default: return undefined;
  }
}

function listMethod(b: Budget, l: Value[], name: string): Fn | undefined {
  const m = (f: (args: Value[], kw: Map<string, Value>) => Value) => new Fn(`list.${name}`, f);
  switch (name) {
    case 'append': return m((a) => { b.items(l.length + 1); l.push(a[0] ?? null); return null; });
    case 'extend': return m((a) => { const more = iterate(a[0], 'extend()', b); b.items(l.length + more.length); l.push(...more); return null; });
    case 'index': return m((a) => { const i = l.findIndex((x) => equal(x, a[0] ?? null, b)); if (i < 0) throw new TemplateError('list.index(): value not in list'); return i; });
    case 'count': return m((a) => l.filter((x) => equal(x, a[0] ?? null, b)).length);
    case 'pop': return m((a) => { if (!l.length) throw new TemplateError('pop from an empty list'); const i = a.length ? needInt(a[0], 'pop()') : l.length - 1; return l.splice(i < 0 ? l.length + i : i, 1)[0] ?? null; });
    default: return undefined;
  }
}

function dictMethod(d: Dict, name: string): Fn | undefined {
  const m = (f: (args: Value[], kw: Map<string, Value>) => Value) => new Fn(`dict.${name}`, f);
  switch (name) {
    case 'get': return m((a) => { const k = a[0]; const v = typeof k === 'string' || typeof k === 'number' ? d.m.get(String(k)) : undefined; return v === undefined ? (a[1] ?? null) : v; });
    case 'items': return m(() => [...d.m].map(([k, v]) => [k, v]));
    case 'keys': return m(() => [...d.m.keys()]);
    case 'values': return m(() => [...d.m.values()]);
    case 'update': return m((a, k) => { if (a[0] instanceof Dict) for (const [x, y] of a[0].m) d.m.set(x, y); for (const [x, y] of k) d.m.set(x, y); return null; });
    default: return undefined;
  }
}

/** `obj.key` / `obj[key]`: a Map lookup or a list index, never a JavaScript property. Missing is Undef. */
export function getAttr(b: Budget, obj: Value, key: Value, label: string): Value {
  if (obj instanceof Undef) throw undefinedError(obj);
  const name = `${label}.${typeof key === 'string' || typeof key === 'number' ? key : '?'}`;
  if (typeof key === 'number') {
    if (!Number.isInteger(key)) return new Undef(name);
    if (typeof obj === 'string' || Array.isArray(obj)) {
      const i = key < 0 ? obj.length + key : key;
      if (i < 0 || i >= obj.length) return new Undef(name);
      return obj[i];
    }
    if (obj instanceof Dict) return obj.m.get(String(key)) ?? new Undef(name);
    return new Undef(name);
  }
  if (typeof key !== 'string') throw new TemplateError(`${label}: an attribute is a name or a number (got ${typeName(key)})`);
  let v: Value | undefined;
  if (typeof obj === 'string') v = stringMethod(b, obj, key);
  else if (Array.isArray(obj)) v = listMethod(b, obj, key);
  else if (obj instanceof Dict) v = obj.m.has(key) ? obj.m.get(key) : dictMethod(obj, key);
  else if (obj instanceof Namespace) v = obj.m.get(key);
  else if (obj instanceof Obj) v = obj.attr(key);
  return v === undefined ? new Undef(name) : v;
}

/** The items a `for` or a filter walks: a list, a string's characters, a dict's keys. */
export function iterate(v: Value | undefined, what: string, b: Budget): Value[] {
  // Walking n items is n steps: a filter over a long list inside a long loop stays bounded.
  if (Array.isArray(v)) { b.work(v.length); return v; }
  if (typeof v === 'string') { b.items(v.length, 'a string walked as a list'); b.work(v.length); return [...v]; }
  if (v instanceof Dict) { b.work(v.m.size); return [...v.m.keys()]; }
  if (v instanceof Undef) throw undefinedError(v);
  throw new TemplateError(`${what}: cannot iterate over a ${v === undefined ? 'missing value' : typeName(v)}`);
}

function join(b: Budget, v: Value | undefined, sep: string, attribute?: Value): string {
  const items = iterate(v, 'join', b);
  const parts = items.map((x) => str(attribute === undefined || attribute === null ? x : getAttr(b, x, attribute, 'item'), b));
  b.chars(parts.reduce((n, p) => n + p.length, 0) + Math.max(0, parts.length - 1) * sep.length);
  return parts.join(sep);
}

function compare(a: Value, c: Value, caseSensitive = false): number {
  let x = a; let y = c;
  if (typeof x === 'string' && typeof y === 'string' && !caseSensitive) { x = x.toLowerCase(); y = y.toLowerCase(); }
  if ((typeof x === 'number' || typeof x === 'boolean') && (typeof y === 'number' || typeof y === 'boolean')) return Number(x) - Number(y);
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  throw new TemplateError(`cannot compare a ${typeName(a)} with a ${typeName(c)}`);
}

/** Jinja's tests (`x is defined`), by name. */
export type Test = (v: Value, args: Value[], b: Budget) => boolean;
export const TESTS: ReadonlyMap<string, Test> = new Map<string, Test>([
  ['defined', (v) => !(v instanceof Undef)], ['undefined', (v) => v instanceof Undef], ['none', (v) => v === null],
  ['boolean', (v) => typeof v === 'boolean'], ['true', (v) => v === true], ['false', (v) => v === false],
  ['number', (v) => typeof v === 'number'], ['integer', (v) => typeof v === 'number' && Number.isInteger(v)], ['float', (v) => typeof v === 'number' && !Number.isInteger(v)],
  ['string', (v) => typeof v === 'string'], ['mapping', (v) => v instanceof Dict], ['callable', (v) => v instanceof Fn],
  ['iterable', (v) => Array.isArray(v) || typeof v === 'string' || v instanceof Dict], ['sequence', (v) => Array.isArray(v) || typeof v === 'string' || v instanceof Dict],
  ['odd', (v) => typeof v === 'number' && Math.abs(v % 2) === 1], ['even', (v) => typeof v === 'number' && v % 2 === 0],
  ['lower', (v) => typeof v === 'string' && v === v.toLowerCase()], ['upper', (v) => typeof v === 'string' && v === v.toUpperCase()],
  ['eq', (v, a, b) => equal(v, a[0] ?? null, b)], ['equalto', (v, a, b) => equal(v, a[0] ?? null, b)], ['ne', (v, a, b) => !equal(v, a[0] ?? null, b)],
  ['in', (v, a, b) => contains(a[0] ?? null, v, b)],
]);

export function contains(container: Value, item: Value, b: Budget): boolean {
  if (typeof container === 'string') { b.work(container.length >> 6); return typeof item === 'string' && container.includes(item); }
  if (Array.isArray(container)) return container.some((x) => equal(x, item, b));
  if (container instanceof Dict) return typeof item === 'string' && container.m.has(item);
  if (container instanceof Undef) throw undefinedError(container);
  throw new TemplateError(`'in' needs a string, list or dict on its right (got ${typeName(container)})`);
}

function runTest(b: Budget, name: Value | undefined, v: Value, args: Value[]): boolean {
  const t = TESTS.get(needString(name, 'a test name'));
  if (!t) throw new TemplateError(`no test named '${String(name)}'`, String(name));
  return t(v, args, b);
}

function pyFormat(b: Budget, fmt: string, args: Value[]): string {
  let i = 0;
  const out = fmt.replace(/%([%sdifr])/g, (_m, c: string) => {
    if (c === '%') return '%';
    const v = args[i++];
    if (v === undefined) throw new TemplateError('format: not enough arguments for the format string');
    if (c === 's') return str(v, b);
    if (c === 'r') return repr(v, b);
    const n = needInt(typeof v === 'number' ? v : Number(str(v, b)), 'format');
    return c === 'f' ? (typeof v === 'number' ? v : n).toFixed(6) : String(n);
  });
  b.chars(out.length);
  return out;
}

type Filter = (b: Budget, v: Value, args: Value[], kw: Map<string, Value>) => Value;

const onString = (name: string, f: (s: string, args: Value[], kw: Map<string, Value>, b: Budget) => Value): Filter => (b, v, args, kw) => {
  if (v instanceof Undef) throw undefinedError(v);
  if (typeof v !== 'string') throw new TemplateError(`filter ${name}: takes a string (got ${typeName(v)})`);
  return f(v, args, kw, b);
};

/** Jinja's filters, by name; each checks the kind of value it is given. */
export const FILTERS: ReadonlyMap<string, Filter> = new Map<string, Filter>([
  ['abs', (_b, v) => { if (typeof v !== 'number') throw new TemplateError(`filter abs: takes a number (got ${typeName(v)})`); return Math.abs(v); }],
  ['attr', (b, v, a) => getAttr(b, v, needString(a[0], 'attr'), 'value')],
  ['capitalize', onString('capitalize', (s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase())],
  ['count', (_b, v) => lengthOf(v)], ['length', (_b, v) => lengthOf(v)],
  ['default', (_b, v, a, k) => (v instanceof Undef || (truthy(arg(a, k, 1, 'boolean', false) ?? false) && !truthy(v)) ? (arg(a, k, 0, 'default_value', '') ?? '') : v)],
  ['dictsort', (_b, v, a, k) => {
    if (!(v instanceof Dict)) throw new TemplateError(`filter dictsort: takes a dict (got ${typeName(v)})`);
    const byValue = arg(a, k, 1, 'by', 'key') === 'value'; const rev = truthy(arg(a, k, 2, 'reverse', false) ?? false);
    const cs = truthy(arg(a, k, 0, 'case_sensitive', false) ?? false);
    return [...v.m].map(([x, y]) => [x, y] as Value[]).sort((p, q) => (rev ? -1 : 1) * compare(p[byValue ? 1 : 0], q[byValue ? 1 : 0], cs));
  }],
  ['escape', onString('escape', (s, _a, _k, b) => { const o = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;'); b.chars(o.length); return o; })],
  ['first', (b, v) => { const l = iterate(v, 'first', b); return l.length ? l[0] : new Undef('first'); }],
  ['last', (b, v) => { const l = iterate(v, 'last', b); return l.length ? l[l.length - 1] : new Undef('last'); }],
  ['float', (_b, v, a) => { const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? parseFloat(v) : NaN; return Number.isNaN(n) ? (a[0] ?? 0) : n; }],
  ['int', (_b, v, a) => { const n = typeof v === 'number' ? Math.trunc(v) : typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? parseInt(v, 10) : NaN; return Number.isNaN(n) ? (a[0] ?? 0) : n; }],
  ['format', onString('format', (s, a, _k, b) => pyFormat(b, s, a))],
  ['indent', onString('indent', (s, a, k, b) => {
    const w = arg(a, k, 0, 'width', 4);
    if (typeof w !== 'string') b.chars(Math.max(0, needInt(w, 'indent')));
    const pad = typeof w === 'string' ? w : ' '.repeat(Math.max(0, needInt(w, 'indent')));
    const first = truthy(arg(a, k, 1, 'first', false) ?? false); const blank = truthy(arg(a, k, 2, 'blank', false) ?? false);
    const lines = s.split('\n'); b.chars(s.length + lines.length * pad.length);
    return lines.map((l, i) => ((i === 0 && !first) || (!blank && l === '') ? l : pad + l)).join('\n');
  })],
  ['items', (_b, v) => { if (!(v instanceof Dict)) throw new TemplateError(`filter items: takes a dict (got ${typeName(v)})`); return [...v.m].map(([x, y]) => [x, y]); }],
  ['join', (b, v, a, k) => join(b, v, str(arg(a, k, 0, 'd', '') ?? '', b), arg(a, k, 1, 'attribute'))],
  ['list', (b, v) => { const l = [...iterate(v, 'list', b)]; b.items(l.length); return l; }],
  ['lower', onString('lower', (s) => s.toLowerCase())], ['upper', onString('upper', (s) => s.toUpperCase())],
  ['title', onString('title', (s) => title(s))],
  ['trim', onString('trim', (s, a, k) => stripChars(s, arg(a, k, 0, 'chars'), 'both'))],
  ['replace', onString('replace', (s, a, k, b) => replaceAll(b, s, str(a[0] ?? '', b), str(a[1] ?? '', b), needInt(arg(a, k, 2, 'count', -1), 'replace')))],
  ['reverse', (b, v) => (typeof v === 'string' ? (b.work(v.length), [...v].reverse().join('')) : [...iterate(v, 'reverse', b)].reverse())],
  ['round', (_b, v, a, k) => {
    const p = needInt(arg(a, k, 0, 'precision', 0), 'round'); const how = arg(a, k, 1, 'method', 'common'); const f = 10 ** p;
    if (typeof v !== 'number') throw new TemplateError(`filter round: takes a number (got ${typeName(v)})`);
    const n = v;
    return (how === 'floor' ? Math.floor(n * f) : how === 'ceil' ? Math.ceil(n * f) : Math.round(n * f)) / f;
  }],
  ['safe', (_b, v) => v],
  ['select', (b, v, a) => iterate(v, 'select', b).filter((x) => (a.length ? runTest(b, a[0], x, a.slice(1)) : truthy(x)))],
  ['reject', (b, v, a) => iterate(v, 'reject', b).filter((x) => !(a.length ? runTest(b, a[0], x, a.slice(1)) : truthy(x)))],
  ['selectattr', (b, v, a) => iterate(v, 'selectattr', b).filter((x) => { const y = getAttr(b, x, needString(a[0], 'selectattr'), 'item'); return a.length > 1 ? runTest(b, a[1], y, a.slice(2)) : truthy(y); })],
  ['rejectattr', (b, v, a) => iterate(v, 'rejectattr', b).filter((x) => { const y = getAttr(b, x, needString(a[0], 'rejectattr'), 'item'); return !(a.length > 1 ? runTest(b, a[1], y, a.slice(2)) : truthy(y)); })],
  ['map', (b, v, a, k) => {
    const items = iterate(v, 'map', b);
    if (k.has('attribute')) { const at = k.get('attribute')!; const d = k.get('default'); return items.map((x) => { const y = getAttr(b, x, at, 'item'); return y instanceof Undef && d !== undefined ? d : y; }); }
    const f = FILTERS.get(needString(a[0], 'map'));
    if (!f) throw new TemplateError(`map: no filter named '${String(a[0])}'`);
    return items.map((x) => f(b, x, a.slice(1), new Map()));
  }],
  ['sort', (b, v, a, k) => {
    const rev = truthy(arg(a, k, 0, 'reverse', false) ?? false); const cs = truthy(arg(a, k, 1, 'case_sensitive', false) ?? false); const at = arg(a, k, 2, 'attribute');
    const key = (x: Value) => (at === undefined || at === null ? x : getAttr(b, x, at, 'item'));
    const l = [...iterate(v, 'sort', b)]; b.work(l.length * Math.ceil(Math.log2(l.length + 1)));
    return l.sort((x, y) => (rev ? -1 : 1) * compare(key(x), key(y), cs));
  }],
  ['string', (b, v) => str(v, b)],
  ['sum', (b, v, a, k) => { const at = arg(a, k, 0, 'attribute'); let t = needInt(arg(a, k, 1, 'start', 0), 'sum'); for (const x of iterate(v, 'sum', b)) { const y = at === undefined || at === null ? x : getAttr(b, x, at, 'item'); if (typeof y !== 'number') throw new TemplateError(`filter sum: takes numbers (got ${typeName(y)})`); t += y; } return t; }],
  ['min', (b, v) => { const l = iterate(v, 'min', b); return l.length ? l.reduce((x, y) => (compare(y, x) < 0 ? y : x)) : new Undef('min'); }],
  ['max', (b, v) => { const l = iterate(v, 'max', b); return l.length ? l.reduce((x, y) => (compare(y, x) > 0 ? y : x)) : new Undef('max'); }],
  ['tojson', (b, v) => toJson(v, b)],
  ['truncate', onString('truncate', (s, a, k, b) => { const n = needInt(arg(a, k, 0, 'length', 255), 'truncate'); const end = str(arg(a, k, 2, 'end', '...') ?? '...', b); return s.length <= n ? s : s.slice(0, Math.max(0, n - end.length)) + end; })],
  ['unique', (b, v) => { const out: Value[] = []; for (const x of iterate(v, 'unique', b)) if (!out.some((y) => equal(x, y, b))) out.push(x); return out; }],
  ['wordcount', onString('wordcount', (s) => (s.trim() ? s.trim().split(/\s+/).length : 0))],
  // dbt's native-type filters
  ['as_text', (b, v) => str(v, b)], ['as_bool', (_b, v) => (typeof v === 'string' ? v.trim().toLowerCase() === 'true' : truthy(v))],
  ['as_number', (_b, v) => (typeof v === 'number' ? v : Number(typeof v === 'string' ? v : NaN))],
]);
for (const [alias, name] of [['d', 'default'], ['e', 'escape'], ['strip', 'trim']] as const) (FILTERS as Map<string, Filter>).set(alias, FILTERS.get(name)!);

function lengthOf(v: Value): number {
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  if (v instanceof Dict || v instanceof Namespace) return v.m.size;
  if (v instanceof Undef) throw undefinedError(v);
  throw new TemplateError(`filter length: a ${typeName(v)} has no length`);
}

/** Thrown by `return(x)` inside a macro (dbt's idiom); the macro call answers x. */
export class ReturnSignal { constructor(readonly value: Value) {} }

/** The globals every template sees. */
export function globals(b: Budget): Map<string, Value> {
  const g = new Map<string, Value>([
    ['true', true], ['false', false], ['none', null], ['True', true], ['False', false], ['None', null],
  ]);
  g.set('range', new Fn('range', (a) => {
    const n = a.map((x) => needInt(x, 'range()'));
    const [start, stop, step] = n.length === 1 ? [0, n[0], 1] : [n[0] ?? 0, n[1] ?? 0, n[2] ?? 1];
    if (step === 0) throw new TemplateError('range(): step must not be zero');
    const count = Math.max(0, Math.ceil((stop - start) / step));
    b.items(count, 'range()');
    b.work(count);
    return Array.from({ length: count }, (_x, i) => start + i * step);
  }));
  g.set('namespace', new Fn('namespace', (a, k) => {
    const m = new Map<string, Value>();
    if (a[0] instanceof Dict) for (const [x, y] of a[0].m) m.set(x, y);
    for (const [x, y] of k) m.set(x, y);
    return new Namespace(m);
  }));
  g.set('dict', new Fn('dict', (a, k) => { const m = new Map<string, Value>(a[0] instanceof Dict ? a[0].m : []); for (const [x, y] of k) m.set(x, y); return new Dict(m); }));
  g.set('cycler', new Fn('cycler', (items) => {
    if (!items.length) throw new TemplateError('cycler() needs at least one item');
    let i = 0;
    return new Obj('cycler', (key) => {
      if (key === 'current') return items[i];
      if (key === 'next') return new Fn('cycler.next', () => { const v = items[i]; i = (i + 1) % items.length; return v; });
      if (key === 'reset') return new Fn('cycler.reset', () => { i = 0; return null; });
      return undefined;
    });
  }));
  g.set('joiner', new Fn('joiner', (a, k) => {
    const sep = str(arg(a, k, 0, 'sep', ', ') ?? ', ', b); let used = false;
    return new Fn('joiner', () => { if (used) return sep; used = true; return ''; });
  }));
  g.set('return', new Fn('return', (a) => { throw new ReturnSignal(a[0] ?? null); }));
  g.set('log', new Fn('log', () => ''));
  g.set('exceptions', new Dict(new Map<string, Value>([
    ['raise_compiler_error', new Fn('raise_compiler_error', (a) => { throw new TemplateError(`compilation error: ${str(a[0] ?? '', b)}`); })],
    ['warn', new Fn('warn', () => '')],
  ])));
  return g;
}
