'use client';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import { Background, Controls, Handle, MarkerType, MiniMap, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { layoutFlow } from '@/lib/flows/layout';
import type { DrawnNode } from '@/lib/assets/collapse';
import type { AssetEdge, AssetNode } from '@/lib/assets/types';
import { statusTone } from './status-tone';

interface AssetData extends Record<string, unknown> { drawn: DrawnNode; selected: boolean; dim: boolean; match: boolean }

const W = 210; const H = 52;

function AssetBox({ id, data }: NodeProps<Node<AssetData>>) {
  const d = data.drawn;
  if (d.type === 'group') {
    return (
      <div className={`asset-group${data.selected ? ' asset-node-selected' : ''}`} data-testid={`asset-node-${id}`} title={`${d.group}: ${d.members.length} nodes (collapsed)`}>
        <Handle type="target" position={Position.Left} />
        <div className="asset-node-title">{d.group}</div>
        <div className="asset-node-sub">{d.members.length} nodes · collapsed</div>
        <Handle type="source" position={Position.Right} />
      </div>
    );
  }
  const n: AssetNode = d.node;
  const tone = statusTone(n.last?.status);
  const cls = ['asset-node', `asset-node-${tone}`, data.selected && 'asset-node-selected', data.dim && 'asset-node-dim', data.match && 'asset-node-match'].filter(Boolean).join(' ');
  return (
    <div className={cls} data-testid={`asset-node-${id}`} data-status={n.last?.status ?? ''} title={`${n.kind} ${n.name}${n.last?.status ? `: ${n.last.status}` : ''}`}>
      <Handle type="target" position={Position.Left} />
      <div className="asset-node-title"><span className="asset-kind">{n.kind}</span>{n.kind === 'source' ? `${n.name} @${n.branch}` : n.name}</div>
      <div className="asset-node-sub">{n.last?.status ?? 'never run'}{n.last?.rows != null ? ` · ${n.last.rows.toLocaleString()} rows` : ''}</div>
      <Handle type="source" position={Position.Right} />
    </div>
  );
}

const nodeTypes = { asset: AssetBox };

/**
 * The graph drawn with @xyflow/react, laid out left to right by dagre
 * (lib/flows/layout.ts). Only the visible part is rendered, so a few hundred
 * nodes stay responsive; the layout is recomputed only when the shape changes.
 */
export function AssetGraphCanvas({ nodes, edges, selected, matches, onSelect }: {
  nodes: DrawnNode[]; edges: AssetEdge[]; selected: string | null; matches: Set<string>; onSelect(id: string): void;
}) {
  const shape = useMemo(() => JSON.stringify([nodes.map((n) => n.id), edges]), [nodes, edges]);
  // Laid out from the shape alone: a refresh that only changes statuses keeps every node where it was.
  const positions = useMemo(() => {
    const [ids, es] = JSON.parse(shape) as [string[], AssetEdge[]];
    return layoutFlow(ids.map((id) => ({ id, width: W, height: H })), es, { gap: 24 }).positions;
  }, [shape]);
  const rfNodes: Node<AssetData>[] = nodes.map((d) => ({
    id: d.id, type: 'asset', position: positions[d.id] ?? { x: 0, y: 0 },
    data: { drawn: d, selected: d.id === selected, match: matches.has(d.id), dim: matches.size > 0 && !matches.has(d.id) },
  }));
  const rfEdges: Edge[] = edges.map((e) => ({ id: `${e.from}->${e.to}`, source: e.from, target: e.to, markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 } }));
  return (
    <div className="assets-canvas" data-testid="asset-canvas">
      <ReactFlow
        key={shape}
        nodes={rfNodes} edges={rfEdges} nodeTypes={nodeTypes}
        onNodeClick={(_e, n) => onSelect(n.id)}
        nodesDraggable={false} nodesConnectable={false} elementsSelectable={false}
        onlyRenderVisibleElements minZoom={0.05}
        fitView fitViewOptions={{ padding: 0.15, maxZoom: 1 }} proOptions={{ hideAttribution: true }}
      >
        <Background />
        <MiniMap pannable zoomable />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
