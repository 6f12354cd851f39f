/**
 * Layered layout of a DAG for drawing (pure, no DOM): each node's column is
 * its longest path from a root, rows ordered within a column by the mean row
 * of their parents (one barycentre pass), so edges mostly run left to right
 * without crossing. Browser-safe: the Models page imports it.
 */
export interface DagInput { id: string; parents: string[] }
export interface DagLayout {
  nodes: { id: string; x: number; y: number; column: number; row: number }[];
  edges: { from: string; to: string; points: [number, number][] }[];
  width: number; height: number;
}

export function layoutDag(input: DagInput[], o: { colWidth?: number; rowHeight?: number; nodeWidth?: number } = {}): DagLayout {
  const colW = o.colWidth ?? 220; const rowH = o.rowHeight ?? 56; const nodeW = o.nodeWidth ?? 170;
  const ids = new Set(input.map((n) => n.id));
  const parents = new Map(input.map((n) => [n.id, n.parents.filter((p) => ids.has(p))]));
  const col = new Map<string, number>();
  const depth = (id: string, seen: Set<string>): number => {
    if (col.has(id)) return col.get(id)!;
    if (seen.has(id)) return 0; // a cycle is reported elsewhere; draw it anyway
    seen.add(id);
    const d = Math.max(-1, ...parents.get(id)!.map((p) => depth(p, seen))) + 1;
    col.set(id, d);
    return d;
  };
  for (const n of input) depth(n.id, new Set());
  const columns: string[][] = [];
  for (const n of [...input].sort((a, b) => a.id.localeCompare(b.id))) (columns[col.get(n.id)!] ??= []).push(n.id);
  const row = new Map<string, number>();
  columns.forEach((c, ci) => {
    if (ci > 0) {
      const bary = (id: string) => { const ps = parents.get(id)!; return ps.length ? ps.reduce((s, p) => s + (row.get(p) ?? 0), 0) / ps.length : Infinity; };
      c.sort((a, b) => bary(a) - bary(b) || a.localeCompare(b));
    }
    c.forEach((id, r) => row.set(id, r));
  });
  const pos = (id: string) => ({ x: col.get(id)! * colW, y: row.get(id)! * rowH });
  const nodes = input.map((n) => ({ id: n.id, ...pos(n.id), column: col.get(n.id)!, row: row.get(n.id)! }));
  const edges = input.flatMap((n) => parents.get(n.id)!.map((p) => {
    const a = pos(p); const b = pos(n.id);
    return { from: p, to: n.id, points: [[a.x + nodeW, a.y + rowH / 2 - 8], [b.x, b.y + rowH / 2 - 8]] as [number, number][] };
  }));
  const maxRows = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  return { nodes, edges, width: Math.max(1, columns.length) * colW, height: maxRows * rowH };
}
