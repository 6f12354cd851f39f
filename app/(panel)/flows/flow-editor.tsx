'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useReducer, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { addEdge, applyEdgeChanges, applyNodeChanges, type OnConnect, type OnEdgesChange, type OnNodesChange } from '@xyflow/react';
import { api, type JobKind } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { useCan } from '../../_components/user-context';
import { QueryState } from '../../_components/query-state';
import { FlowGraph } from './flow-graph';
import { EMPTY, definitionOf, draftReducer, initialDraft, type FlowDoc, type GNode, type NodeSpec, type PipelineRow } from './flow-draft';
import { ScheduleFields } from './schedule-fields';

export type { FlowDoc, NodeSpec } from './flow-draft';

const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'node';

/** The toolbar's choices (what to add, what to connect): not part of the flow. */
const NO_TOOLS = { pick: '', inlineKind: '', inlineParams: '{}', edgeFrom: '', edgeTo: '' };

/**
 * The flow editor: nodes from the pipeline library or inline job specs,
 * edges meaning "runs after", auto-layout, the schedule with its preview,
 * policies and alerts; also editable as JSON. The server validates the
 * whole flow on save and names the field of a problem. State: the draft
 * (flow-draft.ts, one reducer), the toolbar's choices, the JSON text, and
 * the save request's progress.
 */
export function FlowEditor({ flowId }: { flowId?: string }) {
  const router = useRouter();
  const canEdit = useCan('operator');
  const pipelines = useQuery({ queryKey: ['pipelines'], queryFn: () => api<{ pipelines: PipelineRow[] }>('/api/v1/pipelines') });
  const kinds = useQuery({ queryKey: ['job-kinds'], queryFn: () => api<{ kinds: JobKind[] }>('/api/v1/job-kinds') });
  const loaded = useQuery({ queryKey: ['flow', flowId], queryFn: () => api<FlowDoc>(`/api/v1/flows/${flowId}`), enabled: !!flowId });
  const [draft, dispatch] = useReducer(draftReducer, !!flowId, initialDraft);
  const [tools, setTools] = useState(NO_TOOLS);
  const [json, setJson] = useState<string | null>(null);
  const [request, setRequest] = useState<{ busy: boolean; error: unknown }>({ busy: false, error: null });
  const { doc, nodes, edges, recipients, webhooks, saved, layouts } = draft;
  const tool = (patch: Partial<typeof NO_TOOLS>) => setTools((t) => ({ ...t, ...patch }));
  const setError = (error: unknown) => setRequest((r) => ({ ...r, error }));

  useEffect(() => {
    if (!loaded.data || doc) return;
    dispatch({ type: 'load', doc: loaded.data, pipelines: pipelines.data?.pipelines ?? [] });
  }, [loaded.data, doc, pipelines.data]);

  if (!doc) return <QueryState query={loaded} failure="Could not load the flow" />;
  const set = (patch: Partial<FlowDoc>) => dispatch({ type: 'patch', patch });
  const setAlerts = (patch: Partial<FlowDoc['alerts']>) => dispatch({ type: 'alerts', patch });
  const definition = () => definitionOf({ ...draft, doc });

  const uniqueId = (base: string) => {
    const ids = new Set(nodes.map((n) => n.id));
    let id = slug(base);
    for (let i = 2; ids.has(id); i++) id = `${slug(base)}-${i}`;
    return id;
  };
  const addNode = (spec: NodeSpec, sub: string) => {
    const maxX = nodes.reduce((m, n) => Math.max(m, n.position.x), -260);
    dispatch({ type: 'nodes', edit: true, update: (ns) => [...ns, { id: spec.id, position: { x: maxX + 260, y: 40 }, data: { title: spec.label ?? spec.id, sub, spec } }] });
  };
  const addPipelineNode = () => {
    const p = pipelines.data?.pipelines.find((x) => x.name === tools.pick);
    if (!p) return;
    addNode({ id: uniqueId(p.name), pipeline: p.name }, `pipeline ${p.name}`);
  };
  const addInlineNode = () => {
    setError(null);
    let params: Record<string, unknown>;
    try { params = JSON.parse(tools.inlineParams || '{}'); } catch (e) { setError(new Error(`inline params: not valid JSON: ${(e as Error).message}`)); return; }
    if (!tools.inlineKind) return;
    addNode({ id: uniqueId(tools.inlineKind.replace(/\./g, '-')), kind: tools.inlineKind, params }, tools.inlineKind);
  };
  const connect = (from: string, to: string) => {
    if (!from || !to || from === to || edges.some((e) => e.source === from && e.target === to)) return;
    dispatch({ type: 'edges', edit: true, update: (es) => addEdge({ id: `${from}->${to}`, source: from, target: to }, es) });
  };
  const onNodesChange: OnNodesChange<GNode> = (ch) => {
    dispatch({ type: 'nodes', update: (ns) => applyNodeChanges(ch, ns) });
    const removed = new Set(ch.filter((c) => c.type === 'remove').map((c) => (c as { id: string }).id));
    if (removed.size) dispatch({ type: 'edges', update: (es) => es.filter((e) => !removed.has(e.source) && !removed.has(e.target)) });
  };
  const onEdgesChange: OnEdgesChange = (ch) => dispatch({ type: 'edges', update: (es) => applyEdgeChanges(ch, es) });
  const onConnect: OnConnect = (c) => { if (c.source && c.target) connect(c.source, c.target); };
  const removeSelected = () => {
    const gone = new Set(nodes.filter((n) => n.selected).map((n) => n.id));
    dispatch({ type: 'nodes', update: (ns) => ns.filter((n) => !gone.has(n.id)) });
    dispatch({ type: 'edges', update: (es) => es.filter((e) => !e.selected && !gone.has(e.source) && !gone.has(e.target)) });
  };
  const autoLayout = () => dispatch({ type: 'laidOut' });
  const applyJson = () => {
    setError(null);
    try {
      const d = { ...EMPTY, ...JSON.parse(json ?? '{}') } as FlowDoc;
      d.alerts = { ...EMPTY.alerts, ...(d.alerts ?? {}) };
      dispatch({ type: 'load', doc: { ...d, id: doc.id }, pipelines: pipelines.data?.pipelines ?? [] });
      setJson(null);
    } catch (e) { setError(new Error(`flow JSON: ${(e as Error).message}`)); }
  };
  const save = async () => {
    setRequest({ busy: true, error: null });
    try {
      const body = json !== null ? JSON.parse(json) : definition();
      const f = flowId
        ? await api<FlowDoc>(`/api/v1/flows/${flowId}`, { method: 'PUT', body })
        : await api<FlowDoc>('/api/v1/flows', { method: 'POST', body });
      if (!flowId) { dispatch({ type: 'saved' }); router.push(`/flows/${f.id}`); }
      else { dispatch({ type: 'saved', doc: f }); await loaded.refetch(); }
      setRequest({ busy: false, error: null });
    } catch (e) { setRequest({ busy: false, error: e }); }
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
                  <select aria-label="Pipeline to add" value={tools.pick} onChange={(e) => tool({ pick: e.target.value })}>
                    <option value="">choose…</option>
                    {(pipelines.data?.pipelines ?? []).map((p) => <option key={p.id} value={p.name}>{p.name} ({p.kind})</option>)}
                  </select>
                </label>
                <button type="button" className="btn" onClick={addPipelineNode} disabled={!tools.pick}>Add pipeline node</button>
                <label className="inline-field">
                  <span>Inline job</span>
                  <select aria-label="Inline job kind" value={tools.inlineKind} onChange={(e) => tool({ inlineKind: e.target.value })}>
                    <option value="">kind…</option>
                    {(kinds.data?.kinds ?? []).map((k) => <option key={k.kind} value={k.kind}>{k.kind}</option>)}
                  </select>
                </label>
                <input aria-label="Inline job params (JSON)" value={tools.inlineParams} onChange={(e) => tool({ inlineParams: e.target.value })} spellCheck={false} size={18} />
                <button type="button" className="btn" onClick={addInlineNode} disabled={!tools.inlineKind}>Add inline node</button>
              </div>
              <div className="flow-toolbar">
                <label className="inline-field">
                  <span>Connect</span>
                  <select aria-label="Edge from" value={tools.edgeFrom} onChange={(e) => tool({ edgeFrom: e.target.value })}>
                    <option value="">from…</option>{nodes.map((n) => <option key={n.id} value={n.id}>{n.id}</option>)}
                  </select>
                </label>
                <span className="muted">then</span>
                <select aria-label="Edge to" value={tools.edgeTo} onChange={(e) => tool({ edgeTo: e.target.value })}>
                  <option value="">to…</option>{nodes.map((n) => <option key={n.id} value={n.id}>{n.id}</option>)}
                </select>
                <button type="button" className="btn" onClick={() => connect(tools.edgeFrom, tools.edgeTo)} disabled={!tools.edgeFrom || !tools.edgeTo}>Add edge</button>
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
          <label className="field"><span>Recipients (comma-separated)</span><input name="recipients" value={recipients} onChange={(e) => dispatch({ type: 'list', field: 'recipients', value: e.target.value })} placeholder="ops@example.com" /></label>
          <label className="field field-check"><input type="checkbox" name="onFailure" checked={doc.alerts.onFailure} onChange={(e) => setAlerts({ onFailure: e.target.checked })} /><span>Mail on failure</span></label>
          <label className="field field-check"><input type="checkbox" name="onSuccess" checked={doc.alerts.onSuccess} onChange={(e) => setAlerts({ onSuccess: e.target.checked })} /><span>Mail on success</span></label>
          <label className="field"><span>Mail when running longer than (minutes)</span>
            <input name="longRunningMinutes" type="number" min={1} value={doc.alerts.longRunningMinutes ?? ''} onChange={(e) => setAlerts({ longRunningMinutes: e.target.value ? Number(e.target.value) : null })} placeholder="off" />
          </label>
          <label className="field"><span>Webhooks (webhook connections, comma-separated)</span>
            <input name="webhooks" value={webhooks} onChange={(e) => dispatch({ type: 'list', field: 'webhooks', value: e.target.value })} placeholder="none: alerts go by mail only" />
            <small className="muted">the same alerts, posted as JSON (Slack, Teams, any receiver) or PagerDuty events; add one under Connections, kind Webhook</small>
          </label>
          <label className="field"><span>SMTP connection</span><input name="smtpConnection" value={doc.alerts.connection ?? ''} onChange={(e) => setAlerts({ connection: e.target.value.trim() || null })} placeholder="the first smtp connection" /></label>
          <FormError error={request.error} />
          {canEdit && (
            <div className="form-actions">
              <button type="button" className="btn btn-primary" onClick={save} disabled={request.busy}>{request.busy ? 'Saving…' : flowId ? 'Save flow' : 'Create flow'}</button>
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
