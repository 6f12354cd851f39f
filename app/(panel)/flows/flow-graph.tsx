'use client';
import '@xyflow/react/dist/style.css';
import './flows.css';
import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps, type OnConnect, type OnEdgesChange, type OnNodesChange } from '@xyflow/react';

export interface GraphNodeData extends Record<string, unknown> {
  title: string;
  sub: string;
  /** Run status; colours the node (pending, queued, running, succeeded, failed, skipped, cancelled). */
  status?: string;
}

function FlowNodeBox({ id, data }: NodeProps<Node<GraphNodeData>>) {
  const status = data.status ?? 'pending';
  return (
    <div className={`flow-node flow-node-${status}`} data-testid={`flow-node-${id}`} data-status={data.status ?? ''} title={data.status ? `${data.title}: ${data.status}` : data.title}>
      <Handle type="target" position={Position.Left} />
      <div className="flow-node-title">{data.title}</div>
      <div className="flow-node-sub">{data.sub}{data.status ? ` · ${data.status}` : ''}</div>
      <Handle type="source" position={Position.Right} />
    </div>
  );
}

const nodeTypes = { flow: FlowNodeBox };

/** The flow DAG drawn with @xyflow/react: editable in the editor, read-only (coloured by status) on a run. */
export function FlowGraph<N extends Node<GraphNodeData>>({ nodes, edges, onNodesChange, onEdgesChange, onConnect, readOnly, small, fitKey }: {
  nodes: N[]; edges: Edge[];
  onNodesChange?: OnNodesChange<N>; onEdgesChange?: OnEdgesChange; onConnect?: OnConnect;
  readOnly?: boolean; small?: boolean;
  /** Changing it re-fits the view (after adding nodes or a layout). (Default: the node count) */
  fitKey?: string | number;
}) {
  return (
    <div className={`flow-canvas${small ? ' flow-canvas-small' : ''}`} data-testid="flow-canvas">
      <ReactFlow
        key={fitKey ?? nodes.length}
        nodes={nodes.map((n) => ({ ...n, type: 'flow' }) as N)} edges={edges.map((e) => ({ markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 }, ...e }))} nodeTypes={nodeTypes}
        onNodesChange={onNodesChange} onEdgesChange={onEdgesChange} onConnect={onConnect}
        nodesDraggable={!readOnly} nodesConnectable={!readOnly} elementsSelectable={!readOnly}
        deleteKeyCode={readOnly ? null : ['Backspace', 'Delete']}
        fitView fitViewOptions={{ padding: 0.2, maxZoom: 1 }} proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
