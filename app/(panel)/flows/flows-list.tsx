'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { QueryTable } from '../../_components/query-table';
import { formatTime, timeAgo } from '../../_components/format';
import { useCan } from '../../_components/user-context';
import { useNow } from '../../_components/use-now';
import { describeCron, formatInZone } from '@/lib/flows/schedule';
import { PageHeader } from '../../_components/page-header';

interface FlowRow {
  id: string; name: string; description: string; cron: string | null; timezone: string; enabled: boolean; nodes: unknown[];
  nextFires: string[]; lastRun: { id: string; status: string; createdAt: string } | null;
}

/** Every flow: schedule in words, next fire in its zone, last run; run now, pause / resume. */
export function FlowsList() {
  const canRun = useCan('operator');
  const now = useNow(5000);
  const [error, setError] = useState<unknown>(null);
  const q = useQuery({ queryKey: ['flows'], queryFn: () => api<{ flows: FlowRow[] }>('/api/v1/flows'), refetchInterval: 5000 });
  const act = async (url: string) => { setError(null); try { await api(url, { method: 'POST' }); await q.refetch(); } catch (e) { setError(e); } };
  const flows = q.data?.flows ?? [];
  return (
    <div className="page">
      <PageHeader title="Flows" sub="DAGs of pipelines and jobs on a cron schedule in a time zone, with alert mail. One scheduler leads across all workers.">
        {canRun && <Link href="/flows/new" className="btn btn-primary">New flow</Link>}
      </PageHeader>
      <FormError error={error} />
      <section className="card card-flush">
        <QueryTable query={q} failure="Could not load flows" isEmpty={() => flows.length === 0} testId="flows-table"
          empty={<div className="empty"><p><strong>No flows yet.</strong></p><p>Save pipelines from the run forms, then build a flow of them with “New flow” (or <code>POST /api/v1/flows</code>).</p></div>}
          head={() => <tr><th>Flow</th><th>Schedule</th><th>Next fire</th><th>Last run</th><th>Nodes</th><th></th></tr>}>
          {() => flows.map((f) => (
                  <tr key={f.id}>
                    <td><Link href={`/flows/${f.id}`} className="strong">{f.name}</Link>{f.description && <div className="muted small">{f.description}</div>}</td>
                    <td className="small">{f.cron ? <><span className="mono">{f.cron}</span> <span className="muted">{f.timezone}</span><div className="muted">{describeCron(f.cron)}</div></> : <span className="muted">none</span>}
                      {!f.enabled && <div><span className="badge badge-cancelled">paused</span></div>}</td>
                    <td className="small">{f.nextFires[0] ? <>{formatInZone(new Date(f.nextFires[0]), f.timezone)}<div className="muted">{timeAgo(f.nextFires[0], now)}</div></> : '—'}</td>
                    <td className="small">{f.lastRun ? <Link href={`/flows/${f.id}/runs/${f.lastRun.id}`}><span className={`badge badge-${f.lastRun.status === 'skipped' ? 'muted' : f.lastRun.status}`}>{f.lastRun.status}</span></Link> : <span className="muted">never</span>}
                      {f.lastRun && <div className="muted" title={formatTime(f.lastRun.createdAt)}>{timeAgo(f.lastRun.createdAt, now)}</div>}</td>
                    <td className="num">{f.nodes.length}</td>
                    <td className="right">
                      {canRun && <>
                        <button type="button" className="btn" onClick={() => act(`/api/v1/flows/${f.id}/run`)}>Run now</button>{' '}
                        <button type="button" className="btn btn-ghost" onClick={() => act(`/api/v1/flows/${f.id}/${f.enabled ? 'pause' : 'resume'}`)}>{f.enabled ? 'Pause' : 'Resume'}</button>
                      </>}
                    </td>
                  </tr>
                ))}
        </QueryTable>
      </section>
    </div>
  );
}
