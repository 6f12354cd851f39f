import { AppError } from '../errors';
import { modelId, reach, refId, seedId, testId, type Graph } from './graph';
import type { Project } from './types';

/**
 * dbt's node selection: `name`, `+name` (with its ancestors), `name+` (with
 * its descendants), `2+name` / `name+1` (bounded depth), `tag:x`, `path:dir`
 * (relative to the project root, `models/` optional), `*` globs in names,
 * `test_type:generic|singular`, `resource_type:model|seed|test`, `a,b` (intersection), several arguments
 * (union) and `--exclude` (same syntax, removed at the end). Tests are
 * selected "eagerly" as dbt does: a test comes along when a model it reads
 * is selected, and goes when one is excluded.
 */
type SelectProject = Pick<Project, 'models' | 'tests'> & Partial<Pick<Project, 'seeds'>>;

export function selectNodes(p: SelectProject, g: Graph, select: string[], exclude: string[] = []): Set<string> {
  const sel = splitArgs(select); const exc = splitArgs(exclude);
  const chosen = new Set<string>();
  if (sel.length === 0) for (const id of g.parents.keys()) chosen.add(id);
  for (const arg of sel) for (const id of matchArg(p, g, arg)) chosen.add(id);
  // eager indirect selection of tests
  for (const t of p.tests.values()) if (t.refs.some((r) => chosen.has(refId(p, r)))) chosen.add(testId(t.name));
  const removed = new Set<string>();
  for (const arg of exc) for (const id of matchArg(p, g, arg)) removed.add(id);
  for (const t of p.tests.values()) if (t.refs.some((r) => removed.has(refId(p, r)))) removed.add(testId(t.name));
  for (const id of removed) chosen.delete(id);
  const disabled = new Set<string>();
  for (const m of p.models.values()) if (!m.config.enabled) disabled.add(modelId(m.name));
  for (const s of p.seeds?.values() ?? []) if (!s.config.enabled) disabled.add(seedId(s.name));
  for (const id of disabled) chosen.delete(id);
  // a test of a disabled model or seed goes with it, as in dbt
  for (const t of p.tests.values()) if (t.enabled === false || t.refs.some((r) => disabled.has(refId(p, r)))) chosen.delete(testId(t.name));
  return chosen;
}

/** CLI/API arguments may hold several space-separated selectors each. */
function splitArgs(args: string[]): string[] {
  return args.flatMap((a) => a.split(/\s+/)).map((s) => s.trim()).filter(Boolean);
}

function matchArg(p: SelectProject, g: Graph, arg: string): Set<string> {
  const parts = arg.split(',').filter(Boolean);
  let acc: string[] | null = null;
  for (const part of parts) {
    const s = matchOne(p, g, part);
    acc = acc === null ? [...s] : acc.filter((x) => s.has(x));
  }
  return new Set(acc ?? []);
}

function glob(pattern: string): RegExp {
  return new RegExp('^' + pattern.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
}

function matchOne(p: SelectProject, g: Graph, raw: string): Set<string> {
  const m = /^(\d*\+)?(.*?)(\+\d*)?$/.exec(raw)!;
  const [, up, body, down] = m;
  if (!body) throw new AppError('validation', `models: selector ${JSON.stringify(raw)} names nothing`, { field: 'select' });
  const colon = body.indexOf(':');
  const method = colon > 0 ? body.slice(0, colon) : '';
  const value = colon > 0 ? body.slice(colon + 1) : body;
  const base = new Set<string>();
  const models = [...p.models.values()]; const tests = [...p.tests.values()]; const seeds = [...p.seeds?.values() ?? []];
  switch (method) {
    case '': {
      const re = glob(value);
      for (const x of models) if (re.test(x.name)) base.add(modelId(x.name));
      for (const x of seeds) if (re.test(x.name)) base.add(seedId(x.name));
      for (const x of tests) if (re.test(x.name)) base.add(testId(x.name));
      break;
    }
    case 'tag':
      for (const x of models) if (x.config.tags.includes(value)) base.add(modelId(x.name));
      for (const x of seeds) if (x.config.tags.includes(value)) base.add(seedId(x.name));
      for (const x of tests) if (x.tags.includes(value)) base.add(testId(x.name));
      break;
    case 'path': {
      const v = value.replace(/^\.\//, '').replace(/\/+$/, '');
      const under = (path: string) => [v, `models/${v}`, `tests/${v}`, `seeds/${v}`].some((pre) => path === pre || path.startsWith(pre + '/') || path === `${pre}.sql` || path === `${pre}.csv`);
      for (const x of models) if (under(x.path)) base.add(modelId(x.name));
      for (const x of seeds) if (under(x.path)) base.add(seedId(x.name));
      for (const x of tests) if (x.raw !== undefined && under(x.path)) base.add(testId(x.name));
      break;
    }
    case 'resource_type':
      if (value === 'model') for (const x of models) base.add(modelId(x.name));
      else if (value === 'seed') for (const x of seeds) base.add(seedId(x.name));
      else if (value === 'test') for (const x of tests) base.add(testId(x.name));
      else throw new AppError('validation', `models: resource_type must be model, seed or test, got ${JSON.stringify(value)}`, { field: 'select' });
      break;
    case 'test_type':
      if (value !== 'generic' && value !== 'singular') throw new AppError('validation', `models: test_type must be generic or singular, got ${JSON.stringify(value)}`, { field: 'select' });
      for (const x of tests) if ((x.generic !== undefined) === (value === 'generic')) base.add(testId(x.name));
      break;
    case 'config.materialized':
      for (const x of models) if (x.config.materialized === value) base.add(modelId(x.name));
      if (value === 'seed') for (const x of seeds) base.add(seedId(x.name)); // dbt's seeds are materialized 'seed'
      break;
    default:
      throw new AppError('validation', `models: unknown selector method ${JSON.stringify(method)} in ${JSON.stringify(raw)} (known: tag, path, resource_type, test_type, config.materialized)`, { field: 'select' });
  }
  const out = new Set(base);
  const depth = (s: string | undefined, atStart: boolean) => { const n = atStart ? s!.slice(0, -1) : s!.slice(1); return n ? Number(n) : Infinity; };
  for (const id of base) {
    if (up) for (const x of reach(g.parents, id, depth(up, true))) out.add(x);
    if (down) for (const x of reach(g.children, id, depth(down, false))) out.add(x);
  }
  return out;
}
