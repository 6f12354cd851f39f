'use client';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../_components/api-client';
import { EngineBadge } from '../../../_components/engine-badge';
import { FormError } from '../../../_components/form-error';
import { count } from '../../../_components/format';
import { useCan } from '../../../_components/user-context';

export type BoardAction = 'run' | 'reset' | 'reconcile' | 'clear';

/** What the actions need of the board feed. */
export interface BoardState {
  runId: number; executor: string | null; started: boolean; active: boolean; total: number; targetLake: string | null;
  endpoints?: { source: string | null; target: string | null; mergeKeys: string[] };
  counts: Record<string, number>;
}

interface Connection { name: string; kind: string }
interface JobRun { id: string; kind: string; status: string; error: string | null; result: unknown }
interface ReconcileResult {
  slices: { slice: number; target: string; sourceCount: number | null; targetCount: number | null; delta: number | null; note: string | null }[];
  total: { source: number | null; target: number | null; delta: number | null };
}

const WHAT: Record<BoardAction, { label: string; confirm: string; danger?: boolean }> = {
  run: { label: 'Run', confirm: 'Start the run: its NEW (and FAILED) slices are loaded into the target.' },
  reset: { label: 'Reset', confirm: 'Re-queue the run’s FAILED slices as NEW (optionally quarantined and failed-drop ones too).' },
  reconcile: { label: 'Reconcile', confirm: 'Count every slice on the source and on the target, and show the deltas.' },
  clear: { label: 'Clear', confirm: 'Retire the run from the active view (history is kept), or delete its rows for good.', danger: true },
};
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * The board's actions: Run (a registered run: executor and connections
 * chosen here), Reset, Reconcile and Clear, each confirmed first and started
 * as its `slices.*` job through `POST /api/v1/slices/runs/:id/actions`. Viewers
 * get no buttons (the API refuses them too); Clear is for admins, as its job is.
 */
export function BoardActions({ board }: { board: BoardState }) {
  const operator = useCan('operator');
  const admin = useCan('admin');
  const [open, setOpen] = useState<BoardAction | null>(null);
  const [jobId, setJobId] = useState<{ id: string; action: BoardAction } | null>(null);
  if (!operator) return null;
  const runnable = !board.active && (board.counts.NEW ?? 0) + (board.counts.FAILED ?? 0) > 0;
  const actions: BoardAction[] = [...(runnable ? ['run' as const] : []), 'reset', 'reconcile', ...(admin ? ['clear' as const] : [])];
  return (
    <section className="card" data-testid="board-actions">
      <div className="form-actions">
        {actions.map((a) => (
          <button key={a} type="button" className={`btn ${a === 'run' ? 'btn-primary' : WHAT[a].danger ? 'btn-danger' : ''}`}
            disabled={board.active && a !== 'reconcile'} aria-expanded={open === a} onClick={() => setOpen(open === a ? null : a)}>
            {WHAT[a].label}
          </button>
        ))}
        {board.active && <span className="muted small">The run is in progress: reset and clear wait for it to stop.</span>}
      </div>
      {open && <ConfirmAction key={open} action={open} board={board} onCancel={() => setOpen(null)} onStarted={(id) => { setJobId({ id, action: open }); setOpen(null); }} />}
      {jobId && <ActionResult key={jobId.id} jobId={jobId.id} action={jobId.action} />}
    </section>
  );
}

function ConfirmAction({ action, board, onCancel, onStarted }: { action: BoardAction; board: BoardState; onCancel(): void; onStarted(id: string): void }) {
  const [executor, setExecutor] = useState<'native' | 'striim'>((board.executor as 'native' | 'striim' | null) === 'striim' && board.started ? 'striim' : 'native');
  // A reconcile (or a resume) starts from what the run was started with.
  const [connection, setConnection] = useState(board.endpoints?.source ?? '');
  const [targetConnection, setTargetConnection] = useState(board.endpoints?.target ?? '');
  const [striimConnection, setStriimConnection] = useState('');
  const [lake, setLake] = useState(board.targetLake !== null);
  const [mergeKeys, setMergeKeys] = useState('');
  const [includeQuarantined, setIncludeQuarantined] = useState(false);
  const [includeFaileddrop, setIncludeFaileddrop] = useState(false);
  const [hard, setHard] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const needsConnections = action === 'run' || action === 'reconcile';
  const conns = useQuery({ queryKey: ['connections'], queryFn: () => api<{ connections: Connection[] }>('/api/v1/connections'), enabled: needsConnections });
  const list = conns.data?.connections ?? [];
  const sources = list.filter((c) => c.kind === 'postgres' || c.kind === 'oracle');
  const targets = list.filter((c) => c.kind === 'postgres');
  const striims = list.filter((c) => c.kind === 'striim');
  // A started run keeps its executor; a registered, never-started one may take either.
  const fixedExecutor = board.started ? (board.executor ?? 'striim') : null;
  const exec = fixedExecutor ?? executor;

  const params = (): Record<string, unknown> => {
    const p: Record<string, unknown> = {};
    if (action === 'run') {
      p.executor = exec;
      if (connection) p.connection = connection;
      if (exec === 'native') {
        if (lake) { p.targetLake = 'default'; if (mergeKeys.trim()) p.mergeKeys = mergeKeys.trim(); } else if (targetConnection) p.targetConnection = targetConnection;
      } else if (striimConnection) p.striimConnection = striimConnection;
    } else if (action === 'reconcile') {
      if (connection) p.connection = connection;
      if (lake) p.targetLake = 'default'; else if (targetConnection) p.targetConnection = targetConnection;
    } else if (action === 'reset') {
      if (includeQuarantined) p.includeQuarantined = true;
      if (includeFaileddrop) p.includeFaileddrop = true;
    } else if (hard) p.hard = true;
    return p;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await api<{ id: string }>(`/api/v1/slices/runs/${board.runId}/actions`, { method: 'POST', body: { action, params: params() } });
      onStarted(r.id);
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const picker = (label: string, name: string, value: string, set: (v: string) => void, options: Connection[], fallback: string) => (
    <label className="field">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">{fallback}</option>
        {options.map((c) => <option key={c.name} value={c.name}>{c.name} ({c.kind})</option>)}
      </select>
    </label>
  );
  const target = (
    <>
      <label className="field field-check">
        <input type="checkbox" name="lake" checked={lake} onChange={(e) => setLake(e.target.checked)} />
        <span>Target is the lake (the configured warehouse)</span>
      </label>
      {!lake && picker('Target connection', 'targetConnection', targetConnection, setTargetConnection, targets, 'default (SLICES_TARGET_URL)')}
    </>
  );

  return (
    <form className="form" role="dialog" aria-label={`${WHAT[action].label} run ${board.runId}`} onSubmit={submit}>
      <h2>{WHAT[action].label} run {board.runId}?</h2>
      <p className="field-help">{WHAT[action].confirm}</p>
      <div className="form-grid">
        {action === 'run' && (
          <>
            <label className="field">
              <span>Executor</span>
              <select name="executor" value={exec} disabled={!!fixedExecutor} onChange={(e) => setExecutor(e.target.value as 'native' | 'striim')}>
                <option value="native">native — read the source, write Postgres or the lake</option>
                <option value="striim">striim — one Striim app per slice</option>
              </select>
              {fixedExecutor && <span className="hint">the run has started with {fixedExecutor}: it resumes with it</span>}
            </label>
            {picker('Source connection', 'connection', connection, setConnection, sources, 'default (env:source)')}
            {exec === 'native' ? (
              <>
                {target}
                {lake && (
                  <label className="field">
                    <span>Merge keys</span>
                    <input name="mergeKeys" value={mergeKeys} onChange={(e) => setMergeKeys(e.target.value)} placeholder={board.endpoints?.mergeKeys.length ? board.endpoints.mergeKeys.join(', ') : 'the table\'s primary key'} />
                    <span className="hint">columns the lake merges on, comma-separated; empty: the primary key of the table the slices read</span>
                  </label>
                )}
              </>
            ) : picker('Striim connection', 'striimConnection', striimConnection, setStriimConnection, striims, 'default (env:striim)')}
          </>
        )}
        {action === 'reconcile' && (
          <>
            {picker('Source connection', 'connection', connection, setConnection, sources, 'default (env:source)')}
            {target}
          </>
        )}
        {action === 'reset' && (
          <>
            <label className="field field-check"><input type="checkbox" name="includeQuarantined" checked={includeQuarantined} onChange={(e) => setIncludeQuarantined(e.target.checked)} /><span>Also quarantined slices (their attempts start over)</span></label>
            <label className="field field-check"><input type="checkbox" name="includeFaileddrop" checked={includeFaileddrop} onChange={(e) => setIncludeFaileddrop(e.target.checked)} /><span>Also COMPLETED-FAILEDDROP slices</span></label>
          </>
        )}
        {action === 'clear' && (
          <label className="field field-check"><input type="checkbox" name="hard" checked={hard} onChange={(e) => setHard(e.target.checked)} /><span>Delete the run’s rows, events and run record for good</span></label>
        )}
      </div>
      <FormError error={error} />
      <div className="form-actions">
        <button type="submit" className={`btn ${WHAT[action].danger ? 'btn-danger' : 'btn-primary'}`} disabled={busy}>{busy ? 'Starting…' : `Confirm ${WHAT[action].label.toLowerCase()}`}</button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/** The started job, followed until it ends; a reconcile's counts are shown per slice. */
function ActionResult({ jobId, action }: { jobId: string; action: BoardAction }) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['slice-action', jobId],
    queryFn: async () => {
      const r = await api<JobRun>(`/api/v1/jobs/${encodeURIComponent(jobId)}?logLimit=0`);
      if (TERMINAL.has(r.status)) void qc.invalidateQueries({ queryKey: ['slice-board'] });
      return r;
    },
    refetchInterval: (query) => (query.state.data && TERMINAL.has(query.state.data.status) ? false : 1500),
  });
  const j = q.data;
  const rec = action === 'reconcile' && j?.status === 'succeeded' ? (j.result as ReconcileResult) : null;
  return (
    <div className="action-result" data-testid="action-result" data-status={j?.status ?? 'queued'}>
      <p>
        {WHAT[action].label}: {j ? <EngineBadge status={j.status} /> : 'starting…'}{' '}
        <Link href={`/runs/${encodeURIComponent(jobId)}`} className="small">job {jobId.slice(0, 8)}</Link>
        {j?.error && <span className="error-text"> {j.error}</span>}
        {j?.status === 'succeeded' && action !== 'reconcile' && <span className="muted small"> {summary(j.result)}</span>}
      </p>
      {rec && (
        <div className="table-scroll"><table className="table" data-testid="reconcile-result">
          <thead><tr><th>Slice</th><th>Target</th><th className="right">Source</th><th className="right">Target</th><th className="right">Delta</th><th>Note</th></tr></thead>
          <tbody>
            {rec.slices.map((s) => (
              <tr key={s.slice} data-slice={s.slice}>
                <td className="strong">#{s.slice}</td>
                <td className="mono small">{s.target}</td>
                <td className="num right">{count(s.sourceCount)}</td>
                <td className="num right">{count(s.targetCount)}</td>
                <td className={`num right ${s.delta ? 'error-text' : ''}`} data-delta={s.delta ?? ''}>{s.delta ?? '—'}</td>
                <td className="small muted">{s.note ?? ''}</td>
              </tr>
            ))}
            <tr className="strong" data-slice="total">
              <td>Total</td><td />
              <td className="num right">{count(rec.total.source)}</td>
              <td className="num right">{count(rec.total.target)}</td>
              <td className={`num right ${rec.total.delta ? 'error-text' : ''}`} data-delta={rec.total.delta ?? ''}>{rec.total.delta ?? '—'}</td>
              <td />
            </tr>
          </tbody>
        </table></div>
      )}
    </div>
  );
}

function summary(result: unknown): string {
  const r = (result ?? {}) as Record<string, unknown>;
  if (typeof r.verdict === 'string') return r.verdict;
  if (typeof r.requeued === 'number') return `${r.requeued} slice(s) re-queued`;
  if (typeof r.rows === 'number') return `${r.rows} row(s) cleared`;
  return '';
}
