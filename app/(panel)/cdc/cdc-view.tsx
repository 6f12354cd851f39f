'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { bytes, formatTime, ms, timeAgo } from '../../_components/format';
import { FormError } from '../../_components/form-error';
import { QueryTable } from '../../_components/query-table';
import { useCan } from '../../_components/user-context';
import { useNow } from '../../_components/use-now';
import type { CdcBranchView, CdcLiveView } from '@/lib/cdc/live-view';
import { PageHeader } from '../../_components/page-header';

const BADGE = { streaming: 'running', ready: 'queued', stopped: 'cancelled', failed: 'failed' } as const;

/** Lag in seconds, short: 0s, 4.2s, 3m 05s. */
const lagText = (s: number | null) => (s === null ? '—' : s === 0 ? '0s' : ms(Math.round(s * 1000)));

/** The panel's live view of streaming CDC (GET /api/v1/cdc, every 3 s): per branch its state, lag, rate and slot, with Start and Stop for operators. */
export function CdcView() {
  const now = useNow();
  const q = useQuery({ queryKey: ['cdc'], queryFn: () => api<CdcLiveView>('/api/v1/cdc'), refetchInterval: 3000 });
  const canAct = useCan('operator');
  const v = q.data;
  return (
    <div className="page">
      <PageHeader title="CDC"
        sub={<>
          PostgreSQL branches streamed from the write-ahead log (<code>cdc = &quot;log&quot;</code>). Lag in seconds: how old the oldest change not yet in the lake can be
          (0 when the slot has everything acknowledged). Rows/s: changes applied over the last one to two minutes.
          {v ? <> Lag alert: {v.lagAlertBytes > 0 ? <>a slot retaining more than <strong>{bytes(v.lagAlertBytes)}</strong> mails the freshness alert recipients</> : <>off (<code>TRIBUTARY_CDC_LAG_ALERT_BYTES</code>)</>}.</> : null}
        </>} />
      <section className="card card-flush">
        <QueryTable query={q} loading="Loading streams…" failure="Could not load the CDC streams" isEmpty={() => v!.branches.length === 0} testId="cdc-branches"
          empty={<div className="empty" data-testid="cdc-empty">
            <p><strong>No branch is streamed yet.</strong></p>
            <p>Set <code>cdc = &quot;log&quot;</code> on a PostgreSQL branch connection, then run <code>tributary cdc setup --branch B</code> (see the README).</p>
          </div>}
          head={() => (
            <tr>
              <th>Branch</th><th>State</th><th className="right">Lag</th><th className="right">Lag (s)</th><th className="right">Rows/s</th>
              <th>Last commit</th><th className="right">Retained WAL</th><th>Stream</th>{canAct && <th />}
            </tr>
          )}>
          {() => v!.branches.map((b) => <BranchRow key={b.branch} b={b} now={now} canAct={canAct} />)}
        </QueryTable>
      </section>
      {v && v.notSetUp.length > 0 && (
        <p className="muted small" data-testid="cdc-not-set-up">
          Set to <code>cdc = &quot;log&quot;</code> but not set up: {v.notSetUp.join(', ')} — run <code>tributary cdc setup --branch {v.notSetUp[0]}</code>.
        </p>
      )}
    </div>
  );
}

function BranchRow({ b, now, canAct }: { b: CdcBranchView; now: number; canAct: boolean }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const act = async (action: 'start' | 'stop') => {
    setBusy(true); setError(null);
    try { await api(`/api/v1/cdc/${encodeURIComponent(b.branch)}/${action}`, { method: 'POST', body: {} }); await qc.invalidateQueries({ queryKey: ['cdc'] }); } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const active = b.run !== null || b.status === 'streaming';
  return (
    <tr data-branch={b.branch}>
      <td className="strong">{b.branch}</td>
      <td>
        <span className={`badge badge-${BADGE[b.status]}`} data-testid="cdc-state">{b.status}</span>
        {b.lagAlerting && <span className="badge badge-failed" title="the slot retains more WAL than TRIBUTARY_CDC_LAG_ALERT_BYTES"> lag alert</span>}
        {b.error && <div className="error-text small">{b.error}</div>}
        {b.slotExists === false && <div className="error-text small">the slot is gone from the source</div>}
      </td>
      <td className="num right" data-testid="cdc-lag-bytes" title="WAL not yet acknowledged by the stream">{bytes(b.lagBytes)}</td>
      <td className="num right" data-testid="cdc-lag-seconds" title={b.sourceCommitAt ? `last applied source commit ${formatTime(b.sourceCommitAt)}` : undefined}>{lagText(b.lagSeconds)}</td>
      <td className="num right">{b.rowsPerSecond.toFixed(1)}</td>
      <td title={formatTime(b.lastCommitAt)}>{timeAgo(b.lastCommitAt, now)}</td>
      <td className="num right" title="WAL the slot makes the source keep">{bytes(b.retainedWalBytes)}</td>
      <td className="small">{b.run ? <Link href={`/runs/${b.run.id}`}>{b.run.status}</Link> : b.status === 'streaming' ? <span className="muted" title={b.owner ?? undefined}>foreground</span> : <span className="muted">—</span>}</td>
      {canAct && (
        <td className="right">
          {active
            ? <button type="button" className="btn btn-small" disabled={busy} onClick={() => act('stop')}>Stop</button>
            : <button type="button" className="btn btn-primary btn-small" disabled={busy || b.slotExists === false} onClick={() => act('start')}>Start</button>}
          <FormError error={error} />
        </td>
      )}
    </tr>
  );
}
