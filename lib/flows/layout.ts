import dagre from '@dagrejs/dagre';
import type { DagEdge } from './dag';

/** What the layout needs of a node: its id and drawn size. */
export interface LayoutNode { id: string; width?: number; height?: number }

export interface LayoutResult {
  /** Top-left corner of each node (what @xyflow/react's `position` takes). */
  positions: Record<string, { x: number; y: number }>;
  width: number;
  height: number;
}

/** Default drawn node size. (Default: 200 × 56) */
export const NODE_SIZE = { width: 200, height: 56 };

/**
 * Lay a flow out left to right in layers (dagre's Sugiyama layout): every
 * node sits right of the nodes it runs after. Pure: same graph, same result;
 * tested without React.
 */
export function layoutFlow(nodes: LayoutNode[], edges: DagEdge[], opts: { direction?: 'LR' | 'TB'; gap?: number } = {}): LayoutResult {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: opts.direction ?? 'LR', nodesep: opts.gap ?? 40, ranksep: (opts.gap ?? 40) * 2, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.width ?? NODE_SIZE.width, height: n.height ?? NODE_SIZE.height });
  const ids = new Set(nodes.map((n) => n.id));
  for (const e of edges) if (ids.has(e.from) && ids.has(e.to)) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const positions: LayoutResult['positions'] = {};
  for (const n of nodes) {
    const p = g.node(n.id);
    // dagre gives centres; the editor wants top-left corners.
    positions[n.id] = { x: Math.round(p.x - p.width / 2), y: Math.round(p.y - p.height / 2) };
  }
  const gr = g.graph();
  return { positions, width: Math.ceil(gr.width ?? 0), height: Math.ceil(gr.height ?? 0) };
}
