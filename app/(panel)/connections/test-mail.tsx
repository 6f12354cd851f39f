'use client';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { useRunOutcome } from './use-run-outcome';

/** What the `mail.test` job reports (lib/flows/jobs.ts). */
interface MailResult { messageId: string | null; accepted: string[]; connection: string }

/** How the mail.test run started by the form ended: sending, accepted by the SMTP server, or its error. */
function MailOutcome({ runId }: { runId: string }) {
  const run = useRunOutcome(runId).data;
  const r = (run?.result ?? null) as MailResult | null;
  if (!run || run.status === 'queued' || run.status === 'running') {
    return <p className="muted" data-status="sending">Sending… (<Link href={`/runs/${runId}`}>run</Link>)</p>;
  }
  if (run.status === 'succeeded' && r) {
    return (
      <p data-status="sent">
        <span className="badge badge-succeeded">sent</span>
        {' '}The server accepted it for <strong>{r.accepted.join(', ') || '—'}</strong>
        {r.messageId && <> · <span className="mono small" data-testid="test-mail-message-id">{r.messageId}</span></>}
        {' '}· <Link href={`/runs/${runId}`}>run</Link>
      </p>
    );
  }
  return (
    <p data-status="failed">
      <span className="badge badge-failed">{run.status}</span>
      {' '}<span className="error-text">{run.error ?? `test mail ${run.status}`}</span> · <Link href={`/runs/${runId}`}>run</Link>
    </p>
  );
}

/**
 * Admin, under an SMTP connection's row: ask for a recipient and send a test
 * mail through that connection (`POST /api/v1/connections/:id/test-mail`,
 * which queues a `mail.test` job), then show the server's answer or the error.
 */
export function TestMail({ connection, onClose }: { connection: { id: string; name: string }; onClose(): void }) {
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true); setError(null); setRunId(null);
    try {
      const r = await api<{ id: string }>(`/api/v1/connections/${encodeURIComponent(connection.id)}/test-mail`, { method: 'POST', body: { to: to.trim() } });
      setRunId(r.id);
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  return (
    <form className="test-outcome" data-testid="test-mail" onSubmit={(e) => void submit(e)} aria-label={`Send a test mail through ${connection.name}`}>
      <div className="form-inline">
        <label className="field">
          <span>Recipient</span>
          <input type="email" name="to" required value={to} onChange={(e) => setTo(e.target.value)} placeholder="ops@example.com" autoComplete="email" />
        </label>
        <div className="form-actions">
          <button type="submit" className="btn btn-primary btn-small" disabled={busy || !to.trim()}>{busy ? 'Sending…' : 'Send'}</button>
          <button type="button" className="btn btn-ghost btn-small" onClick={onClose}>Close</button>
        </div>
      </div>
      <FormError error={error} />
      {runId && <div role="status" data-testid="test-mail-outcome"><MailOutcome key={runId} runId={runId} /></div>}
    </form>
  );
}
