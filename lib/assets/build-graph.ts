import type { AssetColumn, AssetDq, AssetEdge, AssetGraph, AssetKind, AssetLast, AssetNode } from './types';

/** Everything the graph is made of, already read (see load-graph.ts): building it is pure. */
export interface AssetInputs {
  /** The lake namespace tables.json loads into. (Default of the ETL: etl) */
  namespace: string;
  /** tables.json entries: lake table name and source table. */
  tables: { lakeName: string; source: string }[];
  /** Branch keys (connections marked as branches). */
  branches: string[];
  /** Lake tables in the catalog, with their current schema and snapshot facts. */
  lakeTables: { ident: string; columns: AssetColumn[] | null; lastUpdated: string | null; rows: number | null }[];
  /**
   * Nodes of the models project other than tests: models, and seeds (or any
   * other resource type) as `kind`. `refs` name other such nodes, `sources`
   * lake identifiers.
   */
  models: { name: string; kind: 'model' | 'seed'; path: string; refs: string[]; sources: string[]; columns?: { name: string; data_type?: string }[] }[];
  /** Tests: what they read (`refs`, `sources`). */
  tests: { name: string; path: string; refs: string[]; sources: string[] }[];
  /** etl_meta.etl_control rows. */
  control: { namespace: string; table: string; branch: string; status: string | null; rows: number | null; finishedAt: Date | null; lastSuccessAt: Date | null; error: string | null }[];
  /** Latest etl_meta.etl_dq_results row per table × branch (table = lake name). */
  dq: { table: string; branch: string; status: string; checkedAt: Date; delta: number | null; mismatches: number | null; error: string | null }[];
  /** Latest model_results row per kind × node. */
  results: { kind: string; name: string; status: string; rows: number | null; at: Date; error: string | null }[];
  /** Flows with their steps' job specs (pipelines resolved to their kind and params). */
  flows: { id: string; name: string; steps: { kind: string; params: Record<string, unknown> }[] }[];
  now: Date;
}

export const sourceNodeId = (branch: string, ident: string) => `source:${branch}:${ident}`;
export const lakeNodeId = (ident: string) => `lake:${ident}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const age = (now: Date, d: Date | null) => (d ? Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000)) : null);
/** The folder of a project path (`models/staging/x.sql` → `models/staging`). */
const folderOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : p);
/** Worst first: a lake table's status is its worst branch's. */
const LOAD_RANK: Record<string, number> = { FAILED: 3, REFUSED: 2, SUCCESS: 1 };

/**
 * The asset graph: source tables per branch → lake tables (tables.json) →
 * models (`source()`) → models (`ref()`) → tests, each node with its last
 * load or build, its DQ per branch, its schema and the flows naming it.
 * Nodes are sorted by id and edges by (from, to), so equal inputs give equal
 * graphs.
 */
export function buildAssetGraph(x: AssetInputs): AssetGraph {
  const nodes = new Map<string, AssetNode>();
  const edges = new Map<string, AssetEdge>();
  const problems: string[] = [];
  const edge = (from: string, to: string) => { if (nodes.has(from) && nodes.has(to)) edges.set(`${from}\u0000${to}`, { from, to }); };
  const add = (n: Omit<AssetNode, 'dq' | 'freshness' | 'flows' | 'schema' | 'last'> & Partial<Pick<AssetNode, 'dq' | 'schema' | 'last'>>) => {
    nodes.set(n.id, { last: null, dq: [], schema: null, ...n, freshness: null, flows: [] });
  };
  const control = new Map(x.control.map((c) => [`${c.namespace}.${c.table}\u0000${c.branch}`, c]));
  const dqOf = (lakeName: string, ns: string) => (ns === x.namespace ? x.dq.filter((d) => d.table === lakeName) : [])
    .map((d): AssetDq => ({ branch: d.branch, status: d.status, checkedAt: d.checkedAt.toISOString(), delta: d.delta, mismatches: d.mismatches, error: d.error }))
    .sort((a, b) => a.branch.localeCompare(b.branch));
  const loadOf = (c: AssetInputs['control'][number] | undefined): AssetLast | null => (c ? {
    at: iso(c.finishedAt), rows: c.rows, status: c.status, ageSeconds: age(x.now, c.lastSuccessAt), error: c.error,
  } : null);

  // Lake tables: those in the catalog, and those tables.json will create (not loaded yet).
  const lake = new Map(x.lakeTables.map((t) => [t.ident, t]));
  const tableOf = new Map<string, string>(); // ident → source table
  for (const t of x.tables) tableOf.set(`${x.namespace}.${t.lakeName}`, t.source);
  for (const ident of new Set([...lake.keys(), ...tableOf.keys()])) {
    const dot = ident.lastIndexOf('.');
    const ns = ident.slice(0, dot); const name = ident.slice(dot + 1);
    const t = lake.get(ident);
    const loads = x.branches.map((b) => control.get(`${ident}\u0000${b}`)).filter((c) => c !== undefined);
    // A lake table's last load: its newest branch load, with the worst branch status and the rows the lake holds.
    const newest = loads.reduce<typeof loads[number] | undefined>((a, c) => (!a || (c.finishedAt?.getTime() ?? 0) > (a.finishedAt?.getTime() ?? 0) ? c : a), undefined);
    const worst = loads.reduce<string | null>((a, c) => ((LOAD_RANK[c.status ?? ''] ?? 0) > (LOAD_RANK[a ?? ''] ?? 0) ? c.status : a), null);
    const lastSuccess = loads.reduce<Date | null>((a, c) => (c.lastSuccessAt && (!a || c.lastSuccessAt > a) ? c.lastSuccessAt : a), null);
    const last: AssetLast | null = newest
      ? { at: iso(newest.finishedAt), rows: t?.rows ?? null, status: worst, ageSeconds: age(x.now, lastSuccess), error: loads.find((c) => c.status !== 'SUCCESS' && c.error)?.error ?? null }
      : t?.lastUpdated ? { at: t.lastUpdated, rows: t.rows, status: null, ageSeconds: age(x.now, new Date(t.lastUpdated)), error: null } : null;
    add({ id: lakeNodeId(ident), kind: 'lake', name, group: ns, ident, sourceTable: tableOf.get(ident), last, dq: dqOf(name, ns), schema: t?.columns ?? null });
  }

  // Source tables per branch feed their lake table.
  for (const t of x.tables) {
    const ident = `${x.namespace}.${t.lakeName}`;
    for (const b of x.branches) {
      const id = sourceNodeId(b, ident);
      add({ id, kind: 'source', name: t.source, group: `branch ${b}`, branch: b, ident, sourceTable: t.source, last: loadOf(control.get(`${ident}\u0000${b}`)), dq: dqOf(t.lakeName, x.namespace).filter((d) => d.branch === b) });
      edge(id, lakeNodeId(ident));
    }
  }

  // The models project: models and seeds, then tests.
  const result = new Map(x.results.map((r) => [`${r.kind}:${r.name}`, r]));
  const buildOf = (kind: string, name: string): AssetLast | null => {
    const r = result.get(`${kind}:${name}`);
    return r ? { at: r.at.toISOString(), rows: r.rows, status: r.status, ageSeconds: age(x.now, r.at), error: r.error } : null;
  };
  const projectId = new Map<string, string>(); // name → node id (ref() names either a model or a seed)
  for (const m of x.models) {
    const id = `${m.kind}:${m.name}`;
    projectId.set(m.name, id);
    const schema = m.columns?.length ? m.columns.map((c) => ({ name: c.name, type: c.data_type ?? null })) : null;
    add({ id, kind: m.kind as AssetKind, name: m.name, group: folderOf(m.path), path: m.path, last: buildOf(m.kind, m.name), schema });
  }
  const readsLake = (id: string, sources: string[]) => {
    for (const s of sources) {
      if (!nodes.has(lakeNodeId(s))) problems.push(`${id} reads source('lake', '${s}'), which is no lake table`);
      edge(lakeNodeId(s), id);
    }
  };
  for (const m of x.models) {
    const id = projectId.get(m.name)!;
    readsLake(id, m.sources);
    for (const r of m.refs) if (projectId.has(r)) edge(projectId.get(r)!, id);
  }
  for (const t of x.tests) {
    const id = `test:${t.name}`;
    const first = t.refs.map((r) => projectId.get(r)).find((v) => v !== undefined);
    add({ id, kind: 'test', name: t.name, group: first ? nodes.get(first)!.group : folderOf(t.path), path: t.path, last: buildOf('test', t.name) });
    readsLake(id, t.sources);
    for (const r of t.refs) if (projectId.has(r)) edge(projectId.get(r)!, id);
  }

  for (const f of x.flows) for (const s of f.steps) for (const id of touchedBy(s, [...nodes.values()], x)) {
    const n = nodes.get(id)!;
    if (!n.flows.some((v) => v.id === f.id)) n.flows.push({ id: f.id, name: f.name });
  }

  return {
    nodes: [...nodes.values()].sort((a, b) => a.id.localeCompare(b.id)),
    edges: [...edges.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
    problems, generatedAt: x.now.toISOString(),
  };
}

/** A list param as the job schemas take it: an array, or a string of names separated by spaces or commas. */
function listParam(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap((s) => String(s).split(/[\s,]+/)).filter(Boolean);
  if (typeof v === 'string') return v.split(/[\s,]+/).filter(Boolean);
  return [];
}

/**
 * The nodes a job spec names. etl.run and dq.run name tables (OWNER.TABLE,
 * TABLE or lake name; none = every table) and branches (none = every branch):
 * their source and lake nodes. models.* name nodes by dbt selectors: plain
 * names and globs with `+` on either side are followed on this graph; other
 * methods (tag:, path:) are not resolved here. No select = every model and test.
 */
function touchedBy(step: { kind: string; params: Record<string, unknown> }, nodes: AssetNode[], x: AssetInputs): string[] {
  const p = step.params ?? {};
  if (step.kind === 'etl.run' || step.kind === 'dq.run') {
    const ns = typeof p.namespace === 'string' ? p.namespace : x.namespace;
    if (ns !== x.namespace) return [];
    const wanted = listParam(p.tables).map((s) => s.toLowerCase());
    const branches = listParam(p.branch);
    const names = (n: AssetNode) => [n.ident!.slice(ns.length + 1), n.sourceTable ?? '', (n.sourceTable ?? '').split('.').pop()!].map((s) => s.toLowerCase());
    return nodes.filter((n) => (n.kind === 'lake' || (n.kind === 'source' && (!branches.length || branches.includes(n.branch!))))
      && n.sourceTable !== undefined && (!wanted.length || names(n).some((s) => wanted.includes(s)))).map((n) => n.id);
  }
  if (/^models\.(run|test|build|seed)$/.test(step.kind)) {
    const project = nodes.filter((n) => n.kind === 'model' || n.kind === 'seed' || n.kind === 'test');
    const select = listParam(p.select);
    if (!select.length) return project.map((n) => n.id);
    const parents = new Map<string, string[]>(); const children = new Map<string, string[]>();
    // Only project edges: a selector's + never leaves the models project.
    const ids = new Set(project.map((n) => n.id));
    for (const n of project) { parents.set(n.id, []); children.set(n.id, []); }
    for (const e of edgesOf(x, ids)) { parents.get(e.to)!.push(e.from); children.get(e.from)!.push(e.to); }
    const out = new Set<string>();
    for (const s of select) {
      const m = /^(\d*\+)?([A-Za-z0-9_*]+)(\+\d*)?$/.exec(s);
      if (!m) continue;
      const re = new RegExp(`^${m[2].split('*').map((t) => t.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      for (const n of project) if (re.test(n.name)) {
        out.add(n.id);
        if (m[1]) for (const a of walk(parents, n.id)) out.add(a);
        if (m[3]) for (const a of walk(children, n.id)) out.add(a);
      }
    }
    return [...out];
  }
  return [];
}

/** The project's ref edges among `ids` (recomputed from the inputs: touchedBy runs before edges are final). */
function edgesOf(x: AssetInputs, ids: Set<string>): AssetEdge[] {
  const idOf = new Map(x.models.map((m) => [m.name, `${m.kind}:${m.name}`]));
  const out: AssetEdge[] = [];
  for (const m of x.models) for (const r of m.refs) if (idOf.has(r)) out.push({ from: idOf.get(r)!, to: idOf.get(m.name)! });
  for (const t of x.tests) for (const r of t.refs) if (idOf.has(r)) out.push({ from: idOf.get(r)!, to: `test:${t.name}` });
  return out.filter((e) => ids.has(e.from) && ids.has(e.to));
}

/** Every id reachable from `start` along `next` (not including it). */
export function walk(next: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set<string>(); const stack = [start];
  while (stack.length) for (const y of next.get(stack.pop()!) ?? []) if (!seen.has(y) && y !== start) { seen.add(y); stack.push(y); }
  return seen;
}
