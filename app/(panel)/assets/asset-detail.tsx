'use client';
import Link from 'next/link';
import { useState } from 'react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { formatTime, timeAgo } from '../../_components/format';
import type { AssetNode, AssetRunAction, AssetRunScope } from '@/lib/assets/types';
import { statusTone } from './status-tone';

interface Queued { id: string; kind: string; params: Record<string, unknown> }

const age = (s: number | null | undefined) => {
  if (s === null || s === undefined) return '—';
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
};

/** Where a node opens: the lake table's page, the model's file in the editor, the table's DQ history. */
function linksOf(n: AssetNode): { label: string; href: string }[] {
  const out: { label: string; href: string }[] = [];
  if (n.ident && (n.kind === 'lake' || n.kind === 'source')) out.push({ label: 'Lake table', href: `/lake/${encodeURIComponent(n.ident)}` });
  if (n.kind === 'lake' || n.kind === 'source') out.push({ label: 'DQ history', href: `/data-quality?table=${encodeURIComponent(n.ident!.slice(n.ident!.lastIndexOf('.') + 1))}${n.branch ? `&branch=${encodeURIComponent(n.branch)}` : ''}` });
  if (n.path) out.push({ label: n.kind === 'test' ? 'Test in the editor' : 'Model editor', href: `/models?file=${encodeURIComponent(n.path)}` });
  return out;
}

/** One node: its last load/build, DQ per branch, schema, flows, links and the run buttons (operators). */
export function AssetDetail({ node: n, canRun, onQueued }: { node: AssetNode; canRun: boolean; onQueued(): void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [queued, setQueued] = useState<{ node: string; jobs: Queued[] } | null>(null);
  const run = async (scope: AssetRunScope, action: AssetRunAction = 'run') => {
    setBusy(true); setError(null);
    try {
      const r = await api<{ jobs: Queued[] }>('/api/v1/assets/run', { method: 'POST', body: { node: n.id, scope, action } });
      setQueued({ node: n.id, jobs: r.jobs }); onQueued();
    } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const tables = n.kind === 'lake' || n.kind === 'source';
  return (
    <div data-testid={`asset-detail-${n.id}`}>
      <div className="muted small"><span className="asset-kind">{n.kind}</span>{n.group}</div>
      <h2>{n.kind === 'source' ? `${n.name} @${n.branch}` : n.name}</h2>
      {n.kind === 'source' && <div className="muted small">loads into <span className="mono">{n.ident}</span></div>}
      {n.kind === 'lake' && n.sourceTable && <div className="muted small">from <span className="mono">{n.sourceTable}</span> (tables.json)</div>}

      <h3>{n.kind === 'model' || n.kind === 'seed' || n.kind === 'test' ? 'Last build' : 'Last load'}</h3>
      {n.last ? (
        <dl data-testid="asset-last">
          <dt>Status</dt><dd><span className={`badge badge-${{ ok: 'succeeded', failed: 'failed', warn: 'cancelled', none: 'muted' }[statusTone(n.last.status)]}`} data-testid="asset-last-status">{n.last.status ?? 'unknown'}</span></dd>
          <dt>Finished</dt><dd title={formatTime(n.last.at)}>{n.last.at ? timeAgo(n.last.at) : '—'}</dd>
          <dt>Age</dt><dd>{age(n.last.ageSeconds)}</dd>
          <dt>Rows</dt><dd>{n.last.rows?.toLocaleString() ?? '—'}</dd>
          {n.last.error && <><dt>Error</dt><dd className="small">{n.last.error}</dd></>}
        </dl>
      ) : <p className="muted small" data-testid="asset-last">Never {n.kind === 'model' || n.kind === 'test' || n.kind === 'seed' ? 'built' : 'loaded'}.</p>}
      {n.freshness ? (
        <div className="small" data-testid="asset-freshness">
          Freshness: <span className={`badge badge-${{ pass: 'succeeded', warn: 'cancelled', error: 'failed', unknown: 'muted' }[n.freshness.status]}`}>{n.freshness.status}</span>
          {' '}{n.freshness.lagSeconds !== null ? `${age(n.freshness.lagSeconds)} since the last success` : 'never succeeded'}
          {n.freshness.warnAfterSeconds !== null && ` · warn after ${age(n.freshness.warnAfterSeconds)}`}
          {n.freshness.errorAfterSeconds !== null && ` · error after ${age(n.freshness.errorAfterSeconds)}`}
          {n.freshness.worstBranch && ` · stalest branch ${n.freshness.worstBranch}`}
        </div>
      ) : <div className="muted small" data-testid="asset-freshness">Freshness: no expectation set</div>}

      {tables && <>
        <h3>Data quality</h3>
        {n.dq.length ? (
          <table className="table small" data-testid="asset-dq"><thead><tr><th>Branch</th><th>Status</th><th>Δ rows</th><th>Checked</th></tr></thead>
            <tbody>{n.dq.map((d) => <tr key={d.branch}><td>{d.branch}</td><td><span className={`badge badge-${d.status === 'OK' ? 'succeeded' : d.status === 'SKIPPED' ? 'muted' : 'failed'}`}>{d.status}</span></td><td className="num">{d.delta ?? '—'}</td><td title={formatTime(d.checkedAt)}>{timeAgo(d.checkedAt)}</td></tr>)}</tbody></table>
        ) : <p className="muted small">Never checked.</p>}
      </>}

      <h3>Schema</h3>
      {n.schema?.length ? (
        <table className="table small" data-testid="asset-schema"><tbody>{n.schema.map((c) => <tr key={c.name}><td className="mono">{c.name}</td><td className="muted">{c.type ?? ''}</td></tr>)}</tbody></table>
      ) : <p className="muted small">{n.kind === 'model' ? 'No columns declared in schema.yml.' : 'Unknown until it is loaded.'}</p>}

      <h3>Flows</h3>
      {n.flows.length ? <ul className="small" data-testid="asset-flows">{n.flows.map((f) => <li key={f.id}><Link href={`/flows/${f.id}`}>{f.name}</Link></li>)}</ul> : <p className="muted small">No flow names it.</p>}

      <h3>Open</h3>
      <div className="asset-actions">{linksOf(n).map((l) => <Link key={l.href} className="btn btn-small" href={l.href}>{l.label}</Link>)}</div>

      {canRun && <>
        <h3>Run</h3>
        <div className="asset-actions">
          <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => run('node')} data-testid="asset-run">Run</button>
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => run('upstream')} data-testid="asset-run-upstream">Run with upstream</button>
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => run('downstream')} data-testid="asset-run-downstream">Run with downstream</button>
          {tables && <button type="button" className="btn btn-small" disabled={busy} onClick={() => run('node', 'dq')} data-testid="asset-run-dq">Check DQ</button>}
        </div>
        <FormError error={error} />
        {queued?.node === n.id && (
          <ul className="small" data-testid="asset-queued">{queued.jobs.map((j) => <li key={j.id}>queued <Link href={`/runs/${j.id}`}>{j.kind}</Link> <span className="muted mono">{JSON.stringify(j.params)}</span></li>)}</ul>
        )}
      </>}
    </div>
  );
}
