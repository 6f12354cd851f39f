import { AppError } from '../errors';
import type { Project } from './types';

/**
 * The DAG of a project: models by their refs (to models or seeds), tests
 * hanging off the models and seeds they read. Node ids are `model:name` /
 * `seed:name` / `test:name` so a model and a test may share a name.
 */
export interface Graph {
  /** id → ids it depends on. */
  parents: Map<string, string[]>;
  /** id → ids depending on it. */
  children: Map<string, string[]>;
  /** Seeds, then models in dependency order (parents first). */
  order: string[];
}

export const modelId = (n: string) => `model:${n}`;
export const testId = (n: string) => `test:${n}`;
export const seedId = (n: string) => `seed:${n}`;

type GraphProject = Pick<Project, 'models' | 'tests'> & Partial<Pick<Project, 'seeds'>>;

/** The node a `ref(name)` reaches: a model, else a seed. */
export function refId(p: GraphProject, name: string): string {
  return !p.models.has(name) && p.seeds?.has(name) ? seedId(name) : modelId(name);
}

export function buildGraph(p: GraphProject): Graph {
  const parents = new Map<string, string[]>(); const children = new Map<string, string[]>();
  const add = (id: string) => { if (!parents.has(id)) { parents.set(id, []); children.set(id, []); } };
  for (const s of p.seeds?.values() ?? []) add(seedId(s.name));
  for (const m of p.models.values()) add(modelId(m.name));
  for (const t of p.tests.values()) add(testId(t.name));
  const edge = (from: string, to: string) => {
    if (!parents.has(from) || !parents.has(to)) return;
    if (!parents.get(to)!.includes(from)) { parents.get(to)!.push(from); children.get(from)!.push(to); }
  };
  for (const m of p.models.values()) for (const r of m.refs) edge(refId(p, r), modelId(m.name));
  for (const t of p.tests.values()) for (const r of t.refs) edge(refId(p, r), testId(t.name));
  return { parents, children, order: [...[...p.seeds?.keys() ?? []].sort().map(seedId), ...topoOrder(p)] };
}

/**
 * Models in dependency order; a cycle is refused naming its models in ref
 * order (`a → b → a`), found by depth-first search.
 */
export function topoOrder(p: Pick<Project, 'models'>): string[] {
  const state = new Map<string, 1 | 2>(); const out: string[] = []; const stack: string[] = [];
  const visit = (n: string) => {
    const s = state.get(n);
    if (s === 2) return;
    if (s === 1) {
      const cyc = [...stack.slice(stack.indexOf(n)), n];
      throw new AppError('validation', `models: dependency cycle: ${cyc.join(' → ')}`);
    }
    state.set(n, 1); stack.push(n);
    for (const r of p.models.get(n)?.refs ?? []) if (p.models.has(r)) visit(r);
    stack.pop(); state.set(n, 2); out.push(modelId(n));
  };
  for (const n of [...p.models.keys()].sort()) visit(n);
  return out;
}

/** Every id reachable by following `edges` from `start` (not including it), up to `depth` steps. */
export function reach(edges: Map<string, string[]>, start: string, depth = Infinity): Set<string> {
  const seen = new Set<string>(); let frontier = [start]; let d = 0;
  while (frontier.length && d < depth) {
    const next: string[] = [];
    for (const id of frontier) for (const x of edges.get(id) ?? []) if (!seen.has(x) && x !== start) { seen.add(x); next.push(x); }
    frontier = next; d++;
  }
  return seen;
}
