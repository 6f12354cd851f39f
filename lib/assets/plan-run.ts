import { AppError } from '../errors';
import { walk } from './build-graph';
import type { AssetGraph, AssetJobSpec, AssetNode, AssetRunAction, AssetRunScope } from './types';

/**
 * The jobs a run from one node needs, in the order they should run (loads
 * before builds). Pure: the graph in, job specs out.
 *
 * - run: the lake tables in scope that tables.json loads become one
 *   `etl.run` (INCREMENTAL) per set of branches — a source node alone loads
 *   its branch only — and the models project's nodes one `models.build`
 *   with dbt's selection syntax: `name`, `+name` (with its ancestors),
 *   `name+` (with its descendants); downstream of a lake table, each model
 *   reading it with `+` after it.
 * - dq: one `dq.run` over the same lake tables and branches.
 *
 * Lake tables nobody loads (not in tables.json) have no job: they are read,
 * never rebuilt. An empty plan is refused by the caller, naming the scope.
 */
export function planAssetRun(graph: Pick<AssetGraph, 'nodes' | 'edges'>, nodeId: string, scope: AssetRunScope, action: AssetRunAction = 'run'): AssetJobSpec[] {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const node = byId.get(nodeId);
  if (!node) throw new AppError('not_found', `assets: no node ${JSON.stringify(nodeId)} in the asset graph`, { field: 'node' });
  const parents = new Map<string, string[]>(); const children = new Map<string, string[]>();
  for (const e of graph.edges) {
    (parents.get(e.to) ?? parents.set(e.to, []).get(e.to)!).push(e.from);
    (children.get(e.from) ?? children.set(e.from, []).get(e.from)!).push(e.to);
  }
  const inScope = new Set([node.id, ...(scope === 'upstream' ? walk(parents, node.id) : scope === 'downstream' ? walk(children, node.id) : [])]);
  const nodes = [...inScope].map((id) => byId.get(id)!);

  // Lake tables to load or check, each with the branches its loads come from.
  const loads = new Map<string, Set<string>>(); // ident → branches
  const sourcesOf = (lake: AssetNode) => (parents.get(lake.id) ?? []).map((id) => byId.get(id)!).filter((n) => n.kind === 'source');
  for (const n of nodes) {
    if (n.kind === 'source') (loads.get(n.ident!) ?? loads.set(n.ident!, new Set()).get(n.ident!)!).add(n.branch!);
    if (n.kind === 'lake' && n.sourceTable !== undefined) {
      const s = loads.get(n.ident!) ?? loads.set(n.ident!, new Set()).get(n.ident!)!;
      // Downstream of one source node, its lake table is reloaded from that branch only.
      if (!(node.kind === 'source' && scope !== 'upstream')) for (const src of sourcesOf(n)) s.add(src.branch!);
    }
  }
  // Tables sharing a namespace and the same branches run as one request.
  const groups = new Map<string, { namespace: string; tables: string[]; branches: string[] }>();
  for (const [ident, branches] of [...loads].sort(([a], [b]) => a.localeCompare(b))) {
    if (!branches.size) continue; // no branch is configured: nothing can load it
    const dot = ident.lastIndexOf('.');
    const namespace = ident.slice(0, dot); const bs = [...branches].sort();
    const key = `${namespace}\u0000${bs.join(',')}`;
    const g = groups.get(key) ?? groups.set(key, { namespace, tables: [], branches: bs }).get(key)!;
    g.tables.push(ident.slice(dot + 1));
  }
  const tableJobs = [...groups.values()].map((g): AssetJobSpec => action === 'dq'
    ? { kind: 'dq.run', params: { tables: g.tables, branch: g.branches, namespace: g.namespace } }
    : { kind: 'etl.run', params: { mode: 'INCREMENTAL', tables: g.tables, branch: g.branches, namespace: g.namespace } });
  if (action === 'dq') return tableJobs;

  const project = (n: AssetNode | undefined) => n !== undefined && (n.kind === 'model' || n.kind === 'seed' || n.kind === 'test');
  let select: string[] = [];
  if (project(node)) select = [scope === 'upstream' ? `+${node.name}` : scope === 'downstream' ? `${node.name}+` : node.name];
  else if (scope === 'downstream') {
    // The project nodes reading a lake table in scope, each with what lies downstream of it.
    const first = new Set<string>();
    for (const n of nodes) if (n.kind === 'lake') for (const c of children.get(n.id) ?? []) if (project(byId.get(c))) first.add(byId.get(c)!.name);
    select = [...first].sort().map((name) => `${name}+`);
  }
  return select.length ? [...tableJobs, { kind: 'models.build', params: { select } }] : tableJobs;
}
