'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Edge, Node } from '@xyflow/react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { duration, formatTime } from '../../_components/format';
import { useCan } from '../../_components/user-context';
import { useNow } from '../../_components/use-now';
import { layoutFlow } from '@/lib/flows/layout';
import { FlowGraph, type GraphNodeData } from './flow-graph';
import { badgeFor } from './flow-runs';
import { PageHeader } from '../../_components/page-header';

interface RunDetail {
  run: { id: string; flowId: string; flowName: string; status: string; trigger: string; scheduledFor: string | null; error: string | null; createdAt: string; startedAt: string | null; finishedAt: string | null; cancelRequested: boolean };
  nodes: { nodeId: string; label: string | null; kind: string; parents: string[]; status: string; jobRunId: string | null; attempts: number; error: string | null; startedAt: string | null; finishedAt: string | null }[];
  logs: { id: number; ts: string; level: string; message: string }[];
}
interface FlowDef { nodes: { id: string; position?: { x: number; y: number } }[] }

/** One flow run: the graph coloured by node status, each node's timings and job, the run's log; cancel and retry. */
export function FlowRunView({ flowId, runId }: { flowId: string; runId: string }) {
  const canRun = useCan('operator');
  const now = useNow(1000);
  const [error, setError] = useState<unknown>(null);
  const q = useQuery({ queryKey: ['flow-run', runId], queryFn: () => api<RunDetail>(`/api/v1/flows/runs/${runId}`), refetchInterval: (s) => (s.state.data && ['queued', 'running'].includes(s.state.data.run.status) ? 1000 : 5000) });
  const flow = useQuery({ queryKey: ['flow', flowId], queryFn: () => api<FlowDef>(`/api/v1/flows/${flowId}`) });
  if (!q.data) return <div className="page"><p className="empty">{q.isError ? (q.error as Error).message : 'Loading…'}</p></div>;
  const { run, nodes, logs } = q.data;
  const edges = nodes.flatMap((n) => n.parents.map((p) => ({ from: p, to: n.nodeId })));
  const saved = new Map((flow.data?.nodes ?? []).map((n) => [n.id, n.position]));
  const laid = layoutFlow(nodes.map((n) => ({ id: n.nodeId })), edges).positions;
  const gNodes: Node<GraphNodeData>[] = nodes.map((n) => ({
    id: n.nodeId, position: saved.get(n.nodeId) ?? laid[n.nodeId], data: { title: n.label && n.label !== n.nodeId ? `${n.nodeId} · ${n.label}` : n.nodeId, sub: n.kind, status: n.status },
  }));
  const gEdges: Edge[] = edges.map((e) => ({ id: `${e.from}->${e.to}`, source: e.from, target: e.to, animated: nodes.find((n) => n.nodeId === e.to)?.status === 'running' }));
  const act = async (what: 'cancel' | 'retry') => { setError(null); try { await api(`/api/v1/flows/runs/${runId}/${what}`, { method: 'POST' }); await q.refetch(); } catch (e) { setError(e); } };
  return (
    <div className="page">
      <PageHeader title={<>Run of <Link href={`/flows/${flowId}`}>{run.flowName}</Link> <span className={badgeFor(run.status)} data-testid="flow-run-status">{run.status}</span></>}
        sub={<>
          {run.trigger === 'schedule' ? `Scheduled for ${formatTime(run.scheduledFor)}` : 'Started by hand'} · created {formatTime(run.createdAt)}
          {run.startedAt && <> · {duration(run.startedAt, run.finishedAt, now)}</>}
        </>}>
        {canRun && (
          <div className="form-actions">
            {['queued', 'running'].includes(run.status) && <button type="button" className="btn" onClick={() => act('cancel')} disabled={run.cancelRequested}>{run.cancelRequested ? 'Cancelling…' : 'Cancel run'}</button>}
            {['failed', 'cancelled'].includes(run.status) && <button type="button" className="btn btn-primary" onClick={() => act('retry')}>Retry failed nodes</button>}
          </div>
        )}
      </PageHeader>
      <FormError error={error} />
      {run.error && <p className="form-error">{run.error}</p>}
      <section className="card"><FlowGraph nodes={gNodes} edges={gEdges} readOnly small /></section>
      <section className="card card-flush">
        <div className="card-head"><h2>Nodes</h2></div>
        <table className="table table-compact" data-testid="flow-run-nodes">
          <thead><tr><th>Node</th><th>Kind</th><th>Status</th><th>Started</th><th className="right">Duration</th><th>Job run</th></tr></thead>
          <tbody>
            {nodes.map((n) => (
              <tr key={n.nodeId} data-node={n.nodeId} data-status={n.status}>
                <td className="strong">{n.nodeId}{n.label && n.label !== n.nodeId && <div className="muted small">{n.label}</div>}</td>
                <td className="mono small">{n.kind}</td>
                <td><span className={badgeFor(n.status)}>{n.status}</span>{n.error && n.status !== 'succeeded' && <div className="cell-error" title={n.error}>{n.error}</div>}</td>
                <td className="small">{formatTime(n.startedAt)}</td>
                <td className="num right">{n.startedAt ? duration(n.startedAt, n.finishedAt, now) : '—'}</td>
                <td>{n.jobRunId ? <Link className="mono small" href={`/runs/${n.jobRunId}`}>{n.jobRunId.slice(0, 8)}…</Link> : <span className="muted">—</span>}{n.attempts > 1 && <span className="muted small"> ({n.attempts} tries)</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="card card-flush">
        <div className="card-head"><h2>Log</h2></div>
        <ol className="log" data-testid="flow-run-log">
          {logs.map((l) => <li key={l.id} className={`log-${l.level}`}><span className="muted small">{formatTime(l.ts)}</span> {l.message}</li>)}
        </ol>
      </section>
    </div>
  );
}
