import { AppError } from '../errors';
import { fnmatch, fnmatchRegExp, hasWildcard } from './fnmatch';
import { modelId, seedId, testId } from './graph';
import type { Project } from './types';

/**
 * A node as dbt's selector methods see it: its id in the graph, fqn, file and
 * config. Lake tables read by source() stand in for dbt's source nodes
 * (`source:<namespace>.<table>`): they have no fqn and no file, as in dbt's
 * selection.
 */
export interface Selectable {
  id: string;
  kind: 'model' | 'seed' | 'test' | 'source';
  /** [project, ...folders below models/ (seeds/, tests/), name]; none for a source. */
  fqn?: string[];
  /** The file it was read from (a generic test: its yml); none for a source. */
  path?: string;
  tags: string[];
  config: Record<string, unknown>;
  /** A generic test's test (`unique`, `accepted_values`…): dbt's test_metadata.name. */
  testName?: string;
  /** A source's namespace and table. */
  source?: [string, string];
}

type SelectProject = Pick<Project, 'name' | 'models' | 'tests'> & Partial<Pick<Project, 'seeds'>>;

/** Every node a selector method may match, lake tables read by source() included. */
export function selectables(p: SelectProject): Selectable[] {
  const fqn = (path: string, name: string) => [p.name, ...path.split('/').slice(1, -1), name];
  const out: Selectable[] = [];
  for (const m of p.models.values()) out.push({ id: modelId(m.name), kind: 'model', fqn: fqn(m.path, m.name), path: m.path, tags: m.config.tags, config: { ...m.config } });
  // dbt's seeds are materialized 'seed', its tests 'test'
  for (const s of p.seeds?.values() ?? []) out.push({ id: seedId(s.name), kind: 'seed', fqn: fqn(s.path, s.name), path: s.path, tags: s.config.tags, config: { ...s.config, materialized: 'seed' } });
  for (const t of p.tests.values()) {
    out.push({
      id: testId(t.name), kind: 'test', fqn: fqn(t.path, t.name), path: t.path, tags: t.tags, testName: t.generic?.type,
      config: { materialized: 'test', severity: t.severity, tags: t.tags, enabled: t.enabled ?? true, ...(t.where === undefined ? {} : { where: t.where }) },
    });
  }
  const sources = new Set([...p.models.values(), ...p.tests.values()].flatMap((n) => n.sources));
  for (const ident of [...sources].sort()) {
    const i = ident.lastIndexOf('.');
    out.push({ id: sourceId(ident), kind: 'source', tags: [], config: { enabled: true }, source: [ident.slice(0, i), ident.slice(i + 1)] });
  }
  return out;
}

export const sourceId = (ident: string) => `source:${ident}`;

/** dbt's methods Tributary applies. */
export const METHODS = ['fqn', 'tag', 'path', 'file', 'package', 'config', 'test_name', 'test_type', 'resource_type', 'source'];
/** dbt's other methods: they select what Tributary does not have (state, results, exposures, metrics, versions…). */
const NOT_SUPPORTED = ['group', 'access', 'state', 'exposure', 'metric', 'result', 'source_status', 'version', 'semantic_model', 'saved_query', 'unit_test'];
/** dbt's resource types; those Tributary has no nodes of select nothing. */
const RESOURCE_TYPES = ['model', 'analysis', 'test', 'snapshot', 'operation', 'seed', 'rpc', 'sql_operation', 'doc', 'source', 'macro', 'exposure', 'metric', 'group', 'saved_query', 'semantic_model', 'unit_test', 'fixture', 'function'];

const fail = (message: string) => new AppError('validation', `models: ${message}`, { field: 'select' });

/**
 * dbt's method for a value written without one: `path` when it holds a `/`,
 * `file` when it ends in .sql, .py or .csv, else `fqn` (selector_spec.py's
 * default_method; a path that exists but holds no `/` is an fqn there too).
 */
export function defaultMethod(value: string): string {
  if (value.includes('/')) return 'path';
  if (/\.(sql|py|csv)$/i.test(value)) return 'file';
  return 'fqn';
}

/** Refuse a method dbt does not know, or one Tributary does not apply, naming it. */
export function checkMethod(method: string, raw: string): void {
  if (METHODS.includes(method)) return;
  const known = `known: ${METHODS.map((m) => (m === 'config' ? 'config.<key>' : m)).join(', ')}`;
  if (NOT_SUPPORTED.includes(method)) throw fail(`selector method "${method}" (in ${JSON.stringify(raw)}) is not supported: Tributary has no ${method.replace(/_/g, ' ')}s to select (${known})`);
  throw fail(`unknown selector method ${JSON.stringify(method)} in ${JSON.stringify(raw)} (${known})`);
}

/**
 * dbt's fqn match: the node's name exactly; else the selector's dotted parts
 * equal the fqn's first parts up to the first part holding a wildcard, from
 * which the rest of the fqn, joined by dots, must fnmatch the rest of the
 * selector. Tried with and without the project name.
 */
function fqnMatches(fqn: string[], selector: string): boolean {
  const one = (f: string[]) => {
    if (f[f.length - 1] === selector) return true;
    const flat = f.flatMap((s) => s.split('.')); const parts = selector.split('.');
    if (flat.length < parts.length) return false;
    const w = parts.findIndex(hasWildcard);
    const fixed = w === -1 ? parts : parts.slice(0, w);
    if (!fixed.every((s, i) => flat[i] === s)) return false;
    return w === -1 || fnmatch(flat.slice(w).join('.'), parts.slice(w).join('.'));
  };
  return one(fqn) || one(fqn.slice(1));
}

/**
 * `path:` is dbt's glob relative to the project root (a folder selects what
 * lies below it); the `models/` (`seeds/`, `tests/`) prefix may be left out,
 * and a file's extension too.
 */
function pathMatches(path: string, value: string): boolean {
  const v = value.replace(/^\.\//, '').replace(/\/+$/, '');
  return [v, `models/${v}`, `tests/${v}`, `seeds/${v}`].some((pre) => {
    if (hasWildcard(pre)) {
      const re = fnmatchRegExp(pre, { segment: true }); const parts = path.split('/');
      return parts.some((_, i) => re.test(parts.slice(0, i + 1).join('/')));
    }
    return path === pre || path.startsWith(pre + '/') || path === `${pre}.sql` || path === `${pre}.csv`;
  });
}

/** dbt's config comparison: the value (or an item of a list) equals the selector; `true`/`false` match booleans. */
function configMatches(config: Record<string, unknown>, keys: string[], selector: string): boolean {
  let v: unknown = config;
  for (const k of keys) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, k)) return false;
    v = (v as Record<string, unknown>)[k];
  }
  // dbt compares severity case-insensitively (`error` and `ERROR`)
  const same = (x: unknown) => x === selector || (keys.length === 1 && keys[0] === 'severity' && typeof x === 'string' && x.toUpperCase() === selector.toUpperCase())
    || (typeof x === 'boolean' && String(x) === selector.toLowerCase());
  return Array.isArray(v) ? v.some(same) : same(v);
}

/** `source:` as dbt reads it: `namespace`, `namespace.table` or `lake.namespace.table` (the project's name in place of `lake` too), each part fnmatched. */
function sourceMatches(n: Selectable, value: string, project: string): boolean {
  const parts = value.split('.');
  if (parts.length > 3) throw fail(`source selector ${JSON.stringify(value)}: expected namespace, namespace.table or lake.namespace.table`);
  const [pkg, ns, table] = parts.length === 3 ? parts : parts.length === 2 ? ['*', ...parts] : ['*', parts[0], '*'];
  const [sns, stable] = n.source!;
  return (fnmatch('lake', pkg) || fnmatch(project, pkg)) && fnmatch(sns, ns) && fnmatch(stable, table);
}

/** The ids a method (with its `config.` keys) selects for a value. */
export function matchMethod(nodes: Selectable[], project: string, method: string, args: string[], value: string): Set<string> {
  const out = new Set<string>();
  const add = (pred: (n: Selectable) => boolean) => { for (const n of nodes) if (pred(n)) out.add(n.id); return out; };
  switch (method) {
    case 'fqn': return add((n) => n.fqn !== undefined && fqnMatches(n.fqn, value));
    case 'tag': return add((n) => n.tags.some((t) => fnmatch(t, value)));
    case 'path': return add((n) => n.path !== undefined && pathMatches(n.path, value));
    case 'file': return add((n) => {
      if (n.path === undefined) return false;
      const base = n.path.slice(n.path.lastIndexOf('/') + 1); const dot = base.lastIndexOf('.');
      return fnmatch(base, value) || (dot > 0 && fnmatch(base.slice(0, dot), value));
    });
    // every node is the project's own: `this` names it too, as in dbt
    case 'package': return add(() => fnmatch(project, value === 'this' ? project : value));
    case 'config': return add((n) => n.kind !== 'source' && configMatches(n.config, args, value));
    case 'test_name': return add((n) => n.testName !== undefined && fnmatch(n.testName, value));
    case 'test_type': {
      const types = ({ generic: ['generic'], schema: ['generic'], singular: ['singular'], data: ['generic', 'singular'], unit: [] } as Record<string, string[]>)[value];
      if (!types) throw fail(`test_type must be generic, singular, unit or data, got ${JSON.stringify(value)}`);
      return add((n) => n.kind === 'test' && types.includes(n.testName !== undefined ? 'generic' : 'singular'));
    }
    case 'resource_type':
      if (!RESOURCE_TYPES.includes(value)) throw fail(`resource_type must be one of ${RESOURCE_TYPES.join(', ')}, got ${JSON.stringify(value)}`);
      return add((n) => n.kind === value);
    case 'source': return add((n) => n.kind === 'source' && sourceMatches(n, value, project));
    default: throw fail(`unknown selector method ${JSON.stringify(method)}`);
  }
}
