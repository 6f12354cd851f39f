import type { Edge, Node } from '@xyflow/react';
import { layoutFlow } from '@/lib/flows/layout';
import type { GraphNodeData } from './flow-graph';

/**
 * The flow editor's document as one state, changed only by the actions of
 * `draftReducer` (a pure function, tested without React): the flow's fields,
 * its graph, the alert address lists as typed, and whether it is saved.
 */

export interface NodeSpec { id: string; label?: string; pipeline?: string; pipelineName?: string; kind?: string; params?: Record<string, unknown>; position?: { x: number; y: number } }
export interface FlowDoc {
  id?: string; name: string; description: string; nodes: NodeSpec[]; edges: { from: string; to: string }[];
  cron: string | null; timezone: string; enabled: boolean; catchup: 'skip' | 'once'; overlap: 'skip' | 'queue'; maxParallel: number;
  alerts: { onFailure: boolean; onSuccess: boolean; longRunningMinutes: number | null; recipients: string[]; connection: string | null; webhooks?: string[] };
  nextFires?: string[];
}
export interface PipelineRow { id: string; name: string; kind: string }
export type GNode = Node<GraphNodeData & { spec: NodeSpec }>;

export const EMPTY: FlowDoc = {
  name: '', description: '', nodes: [], edges: [], cron: null, timezone: 'UTC', enabled: true, catchup: 'skip', overlap: 'skip', maxParallel: 4,
  alerts: { onFailure: true, onSuccess: false, longRunningMinutes: null, recipients: [], connection: null, webhooks: [] },
};

export interface Draft {
  /** Null until the flow being edited has loaded. */
  doc: FlowDoc | null;
  nodes: GNode[];
  edges: Edge[];
  /** The alert lists as typed (comma- or space-separated), split on save. */
  recipients: string;
  webhooks: string;
  saved: boolean;
  /** Counts auto-layouts, so the graph fits its view again after one. */
  layouts: number;
}

export type DraftAction =
  /** A flow loaded from the server or applied from JSON: fields, graph and lists replaced. */
  | { type: 'load'; doc: FlowDoc; pipelines: PipelineRow[] }
  | { type: 'patch'; patch: Partial<FlowDoc> }
  | { type: 'alerts'; patch: Partial<FlowDoc['alerts']> }
  | { type: 'list'; field: 'recipients' | 'webhooks'; value: string }
  /** A graph change; `edit` marks the draft unsaved (a selection or drag does not). */
  | { type: 'nodes'; update: (ns: GNode[]) => GNode[]; edit?: boolean }
  | { type: 'edges'; update: (es: Edge[]) => Edge[]; edit?: boolean }
  | { type: 'laidOut' }
  /** The server accepted the flow; `doc` is its answer when the flow stays open. */
  | { type: 'saved'; doc?: FlowDoc };

export const initialDraft = (editing: boolean): Draft => ({ doc: editing ? null : EMPTY, nodes: [], edges: [], recipients: '', webhooks: '', saved: false, layouts: 0 });

export function draftReducer(s: Draft, a: DraftAction): Draft {
  switch (a.type) {
    case 'load': {
      const g = toGraph(a.doc, a.pipelines);
      return { ...s, doc: a.doc, nodes: g.nodes, edges: g.edges, recipients: a.doc.alerts.recipients.join(', '), webhooks: (a.doc.alerts.webhooks ?? []).join(', ') };
    }
    case 'patch': return s.doc ? { ...s, doc: { ...s.doc, ...a.patch }, saved: false } : s;
    case 'alerts': return s.doc ? { ...s, doc: { ...s.doc, alerts: { ...s.doc.alerts, ...a.patch } }, saved: false } : s;
    case 'list': return { ...s, [a.field]: a.value, saved: false };
    case 'nodes': return { ...s, nodes: a.update(s.nodes), saved: a.edit ? false : s.saved };
    case 'edges': return { ...s, edges: a.update(s.edges), saved: a.edit ? false : s.saved };
    case 'laidOut': {
      const { positions } = layoutFlow(s.nodes.map((n) => ({ id: n.id })), s.edges.map((e) => ({ from: e.source, to: e.target })));
      return { ...s, nodes: s.nodes.map((n) => ({ ...n, position: positions[n.id] ?? n.position })), layouts: s.layouts + 1 };
    }
    case 'saved': return { ...s, doc: a.doc ?? s.doc, saved: true };
  }
}

/** The flow as the API takes it, from the draft. */
export function definitionOf(s: Draft & { doc: FlowDoc }): FlowDoc {
  const { doc } = s;
  const list = (text: string) => text.split(/[,\s]+/).map((x) => x.trim()).filter(Boolean);
  return {
    name: doc.name.trim(), description: doc.description,
    nodes: s.nodes.map((n) => {
      const { pipelineName, ...spec } = n.data.spec; void pipelineName;
      return { ...spec, position: { x: Math.round(n.position.x), y: Math.round(n.position.y) } };
    }),
    edges: s.edges.map((e) => ({ from: e.source, to: e.target })),
    cron: doc.cron && doc.cron.trim() ? doc.cron.trim() : null, timezone: doc.timezone.trim() || 'UTC', enabled: doc.enabled,
    catchup: doc.catchup, overlap: doc.overlap, maxParallel: doc.maxParallel,
    alerts: { ...doc.alerts, recipients: list(s.recipients), webhooks: list(s.webhooks) },
  };
}

export function toGraph(doc: FlowDoc, pipelines: PipelineRow[]): { nodes: GNode[]; edges: Edge[] } {
  const missing = doc.nodes.some((n) => !n.position);
  const laid = missing ? layoutFlow(doc.nodes.map((n) => ({ id: n.id })), doc.edges).positions : {};
  return {
    nodes: doc.nodes.map((n) => {
      const pname = n.pipelineName ?? pipelines.find((p) => p.id === n.pipeline || p.name === n.pipeline)?.name ?? n.pipeline;
      return {
        id: n.id, position: n.position ?? laid[n.id] ?? { x: 0, y: 0 },
        data: { title: n.label ?? n.id, sub: n.pipeline ? `pipeline ${pname}` : `${n.kind}`, spec: n },
      };
    }),
    edges: doc.edges.map((e) => ({ id: `${e.from}->${e.to}`, source: e.from, target: e.to })),
  };
}
