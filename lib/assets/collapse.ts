import type { AssetEdge, AssetNode } from './types';

/** A node as drawn: an asset, or a collapsed group standing for its members. */
export type DrawnNode =
  | { id: string; type: 'asset'; node: AssetNode }
  | { id: string; type: 'group'; group: string; members: string[] };

export const groupNodeId = (group: string) => `group:${group}`;

/**
 * The graph with each collapsed group drawn as one node: edges into or out
 * of a member go to the group, edges inside it vanish, duplicates merge.
 * Pure and browser-safe (the /assets page calls it on every toggle).
 */
export function collapseGroups(nodes: AssetNode[], edges: AssetEdge[], collapsed: ReadonlySet<string>): { nodes: DrawnNode[]; edges: AssetEdge[] } {
  const drawnOf = new Map<string, string>();
  const groups = new Map<string, string[]>();
  const out: DrawnNode[] = [];
  for (const n of nodes) {
    if (collapsed.has(n.group)) {
      const gid = groupNodeId(n.group);
      drawnOf.set(n.id, gid);
      if (!groups.has(n.group)) { groups.set(n.group, []); out.push({ id: gid, type: 'group', group: n.group, members: groups.get(n.group)! }); }
      groups.get(n.group)!.push(n.id);
    } else {
      drawnOf.set(n.id, n.id);
      out.push({ id: n.id, type: 'asset', node: n });
    }
  }
  const seen = new Set<string>(); const es: AssetEdge[] = [];
  for (const e of edges) {
    const from = drawnOf.get(e.from); const to = drawnOf.get(e.to);
    if (!from || !to || from === to) continue;
    const k = `${from}\u0000${to}`;
    if (!seen.has(k)) { seen.add(k); es.push({ from, to }); }
  }
  return { nodes: out, edges: es };
}

/**
 * Nodes whose name, id, group or source table contains every word of `query`
 * (case-insensitive), exact names first, then names starting with the query.
 * Empty query: none.
 */
export function searchAssets(nodes: AssetNode[], query: string): AssetNode[] {
  const q = query.trim().toLowerCase();
  const words = q.split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  const rank = (n: AssetNode) => (n.name.toLowerCase() === q ? 0 : n.name.toLowerCase().startsWith(q) ? 1 : 2);
  return nodes.filter((n) => {
    const text = `${n.name} ${n.id} ${n.group} ${n.sourceTable ?? ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  }).map((n, i) => ({ n, i })).sort((a, b) => rank(a.n) - rank(b.n) || a.i - b.i).map((x) => x.n);
}
