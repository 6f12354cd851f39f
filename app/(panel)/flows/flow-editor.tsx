'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { addEdge, applyEdgeChanges, applyNodeChanges, type Edge, type Node, type OnConnect, type OnEdgesChange, type OnNodesChange } from '@xyflow/react';
import { api, type JobKind } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { useCan } from '../../_components/user-context';
import { layoutFlow } from '@/lib/flows/layout';
import { FlowGraph, type GraphNodeData } from './flow-graph';
import { ScheduleFields } from './schedule-fields';

export interface NodeSpec { id: string; label?: string; pipeline?: string; pipelineName?: string; kind?: string; params?: Record<string, unknown>; position?: { x: number; y: number } }
export interface FlowDoc {
  id?: string; name: string; description: string; nodes: NodeSpec[]; edges: { from: string; to: string }[];
  cron: string | null; timezone: string; enabled: boolean; catchup: 'skip' | 'once'; overlap: 'skip' | 'queue'; maxParallel: number;
  alerts: { onFailure: boolean; onSuccess: boolean; longRunningMinutes: number | null; recipients: string[]; connection: string | null; webhooks?: string[] };
  nextFires?: string[];
}
interface PipelineRow { id: string; name: string; kind: string }
type GNode = Node<GraphNodeData & { spec: NodeSpec }>;

const EMPTY: FlowDoc = {
  name: '', description: '', nodes: [], edges: [], cron: null, timezone: 'UTC', enabled: true, catchup: 'skip', overlap: 'skip', maxParallel: 4,
  alerts: { onFailure: true, onSuccess: false, longRunningMinutes: null, recipients: [], connection: null, webhooks: [] },
};

const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'node';

function toGraph(doc: FlowDoc, pipelines: PipelineRow[]): { nodes: GNode[]; edges: Edge[] } {
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

/**
 * The flow editor: nodes from the pipeline library or inline job specs,
 * edges meaning "runs after", auto-layout, the schedule with its preview,
 * policies and alerts; also editable as JSON. The server validates the
 * whole flow on save and names the field of a problem.
 */
export function FlowEditor({ flowId }: { flowId?: string }) {
  const router = useRouter();
  const canEdit = useCan('operator');
  const pipelines = useQuery({ queryKey: ['pipelines'], queryFn: () => api<{ pipelines: PipelineRow[] }>('/api/v1/pipelines') });
  const kinds = useQuery({ queryKey: ['job-kinds'], queryFn: () => api<{ kinds: JobKind[] }>('/api/v1/job-kinds') });
  const loaded = useQuery({ queryKey: ['flow', flowId], queryFn: () => api<FlowDoc>(`/api/v1/flows/${flowId}`), enabled: !!flowId });
  const [doc, setDoc] = useState<FlowDoc | null>(flowId ? null : EMPTY);
  const [nodes, setNodes] = useState<GNode[]>([]);
  const [edges, setEdges] = useState<Edge[]>([]);
  const [recipients, setRecipients] = useState('');
  const [webhooks, setWebhooks] = useState('');
  const [pick, setPick] = useState('');
  const [inlineKind, setInlineKind] = useState('');
  const [inlineParams, setInlineParams] = useState('{}');
  const [edgeFrom, setEdgeFrom] = useState('');
  const [edgeTo, setEdgeTo] = useState('');
  const [json, setJson] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [layouts, setLayouts] = useState(0);

  useEffect(() => {
    if (!loaded.data || doc) return;
    const d = loaded.data;
    setDoc(d);
    const g = toGraph(d, pipelines.data?.pipelines ?? []);
    setNodes(g.nodes); setEdges(g.edges);
    setRecipients(d.alerts.recipients.join(', '));
    setWebhooks((d.alerts.webhooks ?? []).join(', '));
  }, [loaded.data, doc, pipelines.data]);

  if (!doc) return <p className="empty">{loaded.isError ? `Could not load the flow: ${(loaded.error as Error).message}` : 'Loading…'}</p>;
  const set = (patch: Partial<FlowDoc>) => { setDoc({ ...doc, ...patch }); setSaved(false); };
  const setAlerts = (patch: Partial<FlowDoc['alerts']>) => set({ alerts: { ...doc.alerts, ...patch } });

  const definition = (): FlowDoc => ({
    name: doc.name.trim(), description: doc.description,
    nodes: nodes.map((n) => {
      const { pipelineName, ...spec } = n.data.spec; void pipelineName;
      return { ...spec, position: { x: Math.round(n.position.x), y: Math.round(n.position.y) } };
    }),
    edges: edges.map((e) => ({ from: e.source, to: e.target })),
    cron: doc.cron && doc.cron.trim() ? doc.cron.trim() : null, timezone: doc.timezone.trim() || 'UTC', enabled: doc.enabled,
    catchup: doc.catchup, overlap: doc.overlap, maxParallel: doc.maxParallel,
    alerts: { ...doc.alerts, recipients: recipients.split(/[,\s]+/).map((x) => x.trim()).filter(Boolean), webhooks: webhooks.split(/[,\s]+/).map((x) => x.trim()).filter(Boolean) },
  });

  const uniqueId = (base: string) => {
    const ids = new Set(nodes.map((n) => n.id));
    let id = slug(base);
    for (let i = 2; ids.has(id); i++) id = `${slug(base)}-${i}`;
    return id;
  };
  const addNode = (spec: NodeSpec, sub: string) => {
    const maxX = nodes.reduce((m, n) => Math.max(m, n.position.x), -260);
    setNodes([...nodes, { id: spec.id, position: { x: maxX + 260, y: 40 }, data: { title: spec.label ?? spec.id, sub, spec } }]);
    setSaved(false);
  };
  const addPipelineNode = () => {
    const p = pipelines.data?.pipelines.find((x) => x.name === pick);
    if (!p) return;
    addNode({ id: uniqueId(p.name), pipeline: p.name }, `pipeline ${p.name}`);
  };
  const addInlineNode = () => {
    setError(null);
    let params: Record<string, unknown>;
    try { params = JSON.parse(inlineParams || '{}'); } catch (e) { setError(new Error(`inline params: not valid JSON: ${(e as Error).message}`)); return; }
    if (!inlineKind) return;
    addNode({ id: uniqueId(inlineKind.replace(/\./g, '-')), kind: inlineKind, params }, inlineKind);
  };
  const connect = (from: string, to: string) => {
    if (!from || !to || from === to || edges.some((e) => e.source === from && e.target === to)) return;
    setEdges(addEdge({ id: `${from}->${to}`, source: from, target: to }, edges));
    setSaved(false);
  };
  const onNodesChange: OnNodesChange<GNode> = (ch) => {
    setNodes((ns) => applyNodeChanges(ch, ns));
    const removed = new Set(ch.filter((c) => c.type === 'remove').map((c) => (c as { id: string }).id));
    if (removed.size) setEdges((es) => es.filter((e) => !removed.has(e.source) && !removed.has(e.target)));
  };
  const onEdgesChange: OnEdgesChange = (ch) => setEdges((es) => applyEdgeChanges(ch, es));
  const onConnect: OnConnect = (c) => { if (c.source && c.target) connect(c.source, c.target); };
  const removeSelected = () => {
    const gone = new Set(nodes.filter((n) => n.selected).map((n) => n.id));
    setNodes(nodes.filter((n) => !gone.has(n.id)));
    setEdges(edges.filter((e) => !e.selected && !gone.has(e.source) && !gone.has(e.target)));
  };
  const autoLayout = () => {
    const { positions } = layoutFlow(nodes.map((n) => ({ id: n.id })), edges.map((e) => ({ from: e.source, to: e.target })));
    setNodes(nodes.map((n) => ({ ...n, position: positions[n.id] ?? n.position })));
    setLayouts(layouts + 1);
  };
  const applyJson = () => {
    setError(null);
    try {
      const d = { ...EMPTY, ...JSON.parse(json ?? '{}') } as FlowDoc;
      d.alerts = { ...EMPTY.alerts, ...(d.alerts ?? {}) };
      setDoc({ ...d, id: doc.id });
      const g = toGraph(d, pipelines.data?.pipelines ?? []);
      setNodes(g.nodes); setEdges(g.edges); setRecipients(d.alerts.recipients.join(', ')); setWebhooks((d.alerts.webhooks ?? []).join(', '));
      setJson(null);
    } catch (e) { setError(new Error(`flow JSON: ${(e as Error).message}`)); }
  };
  const save = async () => {
    setBusy(true); setError(null);
    try {
      const body = json !== null ? JSON.parse(json) : definition();
      const f = flowId
        ? await api<FlowDoc>(`/api/v1/flows/${flowId}`, { method: 'PUT', body })
        : await api<FlowDoc>('/api/v1/flows', { method: 'POST', body });
      setSaved(true);
      if (!flowId) router.push(`/flows/${f.id}`);
      else { setDoc(f); await loaded.refetch(); }
    } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const runNow = async () => {
    setError(null);
    try { const r = await api<{ id: string }>(`/api/v1/flows/${flowId}/run`, { method: 'POST' }); router.push(`/flows/${flowId}/runs/${r.id}`); } catch (e) { setError(e); }
  };

  return (
    <div className="flow-editor">
      <div className="flow-editor-grid">
        <section className="card">
          <div className="card-head"><h2>Graph</h2><span className="muted small">drag from a node’s right handle to another’s left: “runs after” · Delete removes the selection</span></div>
          <FlowGraph nodes={nodes} edges={edges} onNodesChange={canEdit ? onNodesChange : undefined} onEdgesChange={canEdit ? onEdgesChange : undefined} onConnect={canEdit ? onConnect : undefined} readOnly={!canEdit} fitKey={`${nodes.length}:${layouts}`} />
          {canEdit && (
            <div className="form">
              <div className="flow-toolbar">
                <label className="inline-field">
                  <span>Pipeline</span>
                  <select aria-label="Pipeline to add" value={pick} onChange={(e) => setPick(e.target.value)}>
                    <option value="">choose…</option>
                    {(pipelines.data?.pipelines ?? []).map((p) => <option key={p.id} value={p.name}>{p.name} ({p.kind})</option>)}
                  </select>
                </label>
                <button type="button" className="btn" onClick={addPipelineNode} disabled={!pick}>Add pipeline node</button>
                <label className="inline-field">
                  <span>Inline job</span>
                  <select aria-label="Inline job kind" value={inlineKind} onChange={(e) => setInlineKind(e.target.value)}>
                    <option value="">kind…</option>
                    {(kinds.data?.kinds ?? []).map((k) => <option key={k.kind} value={k.kind}>{k.kind}</option>)}
                  </select>
                </label>
                <input aria-label="Inline job params (JSON)" value={inlineParams} onChange={(e) => setInlineParams(e.target.value)} spellCheck={false} size={18} />
                <button type="button" className="btn" onClick={addInlineNode} disabled={!inlineKind}>Add inline node</button>
              </div>
              <div className="flow-toolbar">
                <label className="inline-field">
                  <span>Connect</span>
                  <select aria-label="Edge from" value={edgeFrom} onChange={(e) => setEdgeFrom(e.target.value)}>
                    <option value="">from…</option>{nodes.map((n) => <option key={n.id} value={n.id}>{n.id}</option>)}
                  </select>
                </label>
                <span className="muted">then</span>
                <select aria-label="Edge to" value={edgeTo} onChange={(e) => setEdgeTo(e.target.value)}>
                  <option value="">to…</option>{nodes.map((n) => <option key={n.id} value={n.id}>{n.id}</option>)}
                </select>
                <button type="button" className="btn" onClick={() => connect(edgeFrom, edgeTo)} disabled={!edgeFrom || !edgeTo}>Add edge</button>
                <button type="button" className="btn" onClick={removeSelected}>Remove selected</button>
                <button type="button" className="btn" onClick={autoLayout}>Auto-layout</button>
              </div>
            </div>
          )}
          <p className="small muted">{nodes.length} nodes · {edges.length} edges{edges.length ? `: ${edges.map((e) => `${e.source} → ${e.target}`).join(', ')}` : ''}</p>
        </section>

        <section className="card form" aria-label="Flow settings">
          <h2>{flowId ? 'Flow' : 'New flow'}</h2>
          <label className="field"><span>Name</span><input name="flowName" value={doc.name} onChange={(e) => set({ name: e.target.value })} placeholder="nightly" /></label>
          <label className="field"><span>Description</span><input name="flowDescription" value={doc.description} onChange={(e) => set({ description: e.target.value })} /></label>
          <ScheduleFields cron={doc.cron ?? ''} timezone={doc.timezone} onCron={(v) => set({ cron: v })} onTimezone={(v) => set({ timezone: v })} />
          <label className="field field-check"><input type="checkbox" name="enabled" checked={doc.enabled} onChange={(e) => set({ enabled: e.target.checked })} /><span>Enabled (schedule fires)</span></label>
          <label className="field"><span>Catch-up (a fire missed while no scheduler ran)</span>
            <select name="catchup" value={doc.catchup} onChange={(e) => set({ catchup: e.target.value as FlowDoc['catchup'] })}><option value="skip">skip it</option><option value="once">run once</option></select>
          </label>
          <label className="field"><span>Overlap (a fire while the last run still goes)</span>
            <select name="overlap" value={doc.overlap} onChange={(e) => set({ overlap: e.target.value as FlowDoc['overlap'] })}><option value="skip">skip it</option><option value="queue">queue one run</option></select>
          </label>
          <label className="field"><span>Nodes at once</span><input name="maxParallel" type="number" min={1} max={64} value={doc.maxParallel} onChange={(e) => set({ maxParallel: Number(e.target.value) || 1 })} /></label>
          <h3>Alerts</h3>
          <label className="field"><span>Recipients (comma-separated)</span><input name="recipients" value={recipients} onChange={(e) => { setRecipients(e.target.value); setSaved(false); }} placeholder="ops@example.com" /></label>
          <label className="field field-check"><input type="checkbox" name="onFailure" checked={doc.alerts.onFailure} onChange={(e) => setAlerts({ onFailure: e.target.checked })} /><span>Mail on failure</span></label>
          <label className="field field-check"><input type="checkbox" name="onSuccess" checked={doc.alerts.onSuccess} onChange={(e) => setAlerts({ onSuccess: e.target.checked })} /><span>Mail on success</span></label>
          <label className="field"><span>Mail when running longer than (minutes)</span>
            <input name="longRunningMinutes" type="number" min={1} value={doc.alerts.longRunningMinutes ?? ''} onChange={(e) => setAlerts({ longRunningMinutes: e.target.value ? Number(e.target.value) : null })} placeholder="off" />
          </label>
          <label className="field"><span>Webhooks (webhook connections, comma-separated)</span>
            <input name="webhooks" value={webhooks} onChange={(e) => { setWebhooks(e.target.value); setSaved(false); }} placeholder="none: alerts go by mail only" />
            <small className="muted">the same alerts, posted as JSON (Slack, Teams, any receiver) or PagerDuty events; add one under Connections, kind Webhook</small>
          </label>
          <label className="field"><span>SMTP connection</span><input name="smtpConnection" value={doc.alerts.connection ?? ''} onChange={(e) => setAlerts({ connection: e.target.value.trim() || null })} placeholder="the first smtp connection" /></label>
          <FormError error={error} />
          {canEdit && (
            <div className="form-actions">
              <button type="button" className="btn btn-primary" onClick={save} disabled={busy}>{busy ? 'Saving…' : flowId ? 'Save flow' : 'Create flow'}</button>
              {flowId && <button type="button" className="btn" onClick={runNow}>Run now</button>}
              <button type="button" className="btn btn-ghost" onClick={() => setJson(json === null ? JSON.stringify(definition(), null, 2) : null)}>{json === null ? 'Edit as JSON' : 'Back to the form'}</button>
              {saved && <span className="muted small" role="status">Saved.</span>}
            </div>
          )}
          {json !== null && (
            <div>
              <label className="field"><span>Flow definition (JSON; saved as is, with the same validation)</span>
                <textarea aria-label="Flow JSON" rows={16} value={json} onChange={(e) => setJson(e.target.value)} spellCheck={false} />
              </label>
              <button type="button" className="btn" onClick={applyJson}>Apply to the editor</button>
            </div>
          )}
          {flowId && doc.nextFires && doc.nextFires.length > 0 && <p className="small muted">Next fire: {doc.nextFires[0]}</p>}
          <p className="small"><Link href="/flows">All flows</Link></p>
        </section>
      </div>
    </div>
  );
}
