import { AppError } from '../errors';
import { modelId, reach, refId, seedId, testId, type Graph } from './graph';
import { checkMethod, defaultMethod, matchMethod, selectables, sourceId, type Selectable } from './selector-methods';
import type { Project } from './types';

/**
 * dbt's node selection (graph/cli.py, selector.py): `[@][N+]method:value[+N]`
 * criteria, `a,b` (intersection), several arguments or space-separated
 * criteria (union) and `--exclude` (same syntax, removed at the end). A value
 * without a method is a path when it holds a `/`, a file when it ends in
 * .sql/.py/.csv, else an fqn (selector-methods.ts). `+name` adds ancestors,
 * `name+` descendants (`2+name`, `name+1` bounded), `@name` the descendants
 * and every ancestor of them. Tests are selected "eagerly" as dbt does: with
 * each criterion come the tests of what it selected. Lake tables read by
 * source() are nodes while selecting (`source:ns.table+`) but never selected
 * themselves: they have nothing to run.
 */
type SelectProject = Pick<Project, 'name' | 'models' | 'tests'> & Partial<Pick<Project, 'seeds'>>;

/** dbt's warning when a command's selection holds nothing it runs (run, test, build, seed, compile); it exits 0. */
export const NOTHING_TO_DO = 'Nothing to do. Try checking your model configs and model specification args';
/** dbt's warning when `ls` selects nothing. */
export const NO_NODES_SELECTED = 'No nodes selected!';

export function selectNodes(p: SelectProject, g: Graph, select: string[], exclude: string[] = [], onWarning?: (message: string) => void): Set<string> {
  const ctx = selectionContext(p, g);
  const sel = splitArgs(select); const exc = splitArgs(exclude);
  const chosen = new Set<string>();
  if (sel.length === 0) for (const id of ctx.enabled) chosen.add(id);
  // dbt warns of each criterion (of --select and --exclude) selecting no enabled node
  const criterion = (arg: string) => {
    const s = matchArg(ctx, arg);
    if (s.size === 0) onWarning?.(`The selection criterion '${arg}' does not match any enabled nodes`);
    return s;
  };
  for (const arg of sel) for (const id of criterion(arg)) chosen.add(id);
  for (const arg of exc) for (const id of criterion(arg)) chosen.delete(id);
  for (const id of chosen) if (!g.parents.has(id)) chosen.delete(id);
  return chosen;
}

/** The graph as selection walks it: the project's nodes, enabled ones and lake tables with edges to what reads them. */
interface SelectionContext { p: SelectProject; nodes: Selectable[]; parents: Map<string, string[]>; children: Map<string, string[]>; enabled: Set<string> }

function selectionContext(p: SelectProject, g: Graph): SelectionContext {
  const nodes = selectables(p);
  const parents = new Map(g.parents); const children = new Map(g.children);
  const edge = (from: string, to: string) => {
    if (!children.has(to)) return;
    parents.set(to, [...parents.get(to) ?? [], from]); children.set(from, [...children.get(from) ?? [], to]);
  };
  for (const n of nodes) if (n.kind === 'source') { parents.set(n.id, []); children.set(n.id, []); }
  for (const m of p.models.values()) for (const s of m.sources) edge(sourceId(s), modelId(m.name));
  for (const t of p.tests.values()) for (const s of t.sources) edge(sourceId(s), testId(t.name));
  // dbt selects among enabled nodes only: a disabled model or seed, and the tests on it, match nothing
  const disabled = new Set<string>();
  for (const m of p.models.values()) if (!m.config.enabled) disabled.add(modelId(m.name));
  for (const s of p.seeds?.values() ?? []) if (!s.config.enabled) disabled.add(seedId(s.name));
  for (const t of p.tests.values()) if (t.enabled === false || t.refs.some((r) => disabled.has(refId(p, r)))) disabled.add(testId(t.name));
  const enabled = new Set([...g.parents.keys(), ...nodes.filter((n) => n.kind === 'source').map((n) => n.id)].filter((id) => !disabled.has(id)));
  return { p, nodes, parents, children, enabled };
}

/** CLI/API arguments may hold several space-separated selectors each. */
function splitArgs(args: string[]): string[] {
  return args.flatMap((a) => a.split(/\s+/)).map((s) => s.trim()).filter(Boolean);
}

/** `a,b,…`: what every criterion selects, each with its eager tests. */
function matchArg(ctx: SelectionContext, arg: string): Set<string> {
  const sets = arg.split(',').filter(Boolean).map((part) => withTests(ctx, matchOne(ctx, part)));
  return sets.length ? new Set([...sets[0]].filter((x) => sets.every((s) => s.has(x)))) : new Set();
}

/** dbt's eager indirect selection: a test comes along when a node it reads is selected. */
function withTests({ p, enabled }: SelectionContext, s: Set<string>): Set<string> {
  const out = new Set(s);
  for (const t of p.tests.values()) if (enabled.has(testId(t.name)) && t.refs.some((r) => s.has(refId(p, r)))) out.add(testId(t.name));
  return out;
}

const SPEC = /^(@)?(?:(\d*)\+)?(?:([\w.]+):)?(.*?)(?:\+(\d*))?$/;

function matchOne(ctx: SelectionContext, raw: string): Set<string> {
  const [, at, up, rawMethod, value, down] = SPEC.exec(raw)!;
  const fail = (why: string) => new AppError('validation', `models: selector ${JSON.stringify(raw)} ${why}`, { field: 'select' });
  if (!value) throw fail('names nothing');
  if (at && down !== undefined) throw fail('is invalid: the "@" prefix and the "+" suffix are incompatible');
  const [method, ...args] = rawMethod === undefined ? [defaultMethod(value)] : rawMethod.split('.');
  checkMethod(method, raw);
  const base = new Set([...matchMethod(ctx.nodes, ctx.p.name, method, args, value)].filter((id) => ctx.enabled.has(id)));
  const out = new Set(base);
  const depth = (n: string | undefined) => (n ? Number(n) : Infinity);
  const walk = (edges: Map<string, string[]>, from: Iterable<string>, d = Infinity) => {
    const found = new Set<string>();
    for (const id of from) for (const x of reach(edges, id, d)) if (ctx.enabled.has(x)) found.add(x);
    return found;
  };
  if (at) {
    // @: the nodes, their descendants, and every ancestor of those (dbt's select_childrens_parents)
    const down = new Set([...base, ...walk(ctx.children, base)]);
    for (const x of [...down, ...walk(ctx.parents, down)]) out.add(x);
  }
  if (up !== undefined) for (const x of walk(ctx.parents, base, depth(up))) out.add(x);
  if (down !== undefined) for (const x of walk(ctx.children, base, depth(down))) out.add(x);
  return out;
}
