'use client';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, type JobKind } from '../../_components/api-client';
import { useUser } from '../../_components/user-context';

const RANK = { viewer: 0, operator: 1, admin: 2 } as const;

/** Kind picker + JSON parameters; the server validates them against the kind's schema. */
export function StartJobForm({ onStarted, onCancel }: { onStarted(id: string): void; onCancel(): void }) {
  const user = useUser();
  const kinds = useQuery({ queryKey: ['job-kinds'], queryFn: () => api<{ kinds: JobKind[] }>('/api/v1/job-kinds'), staleTime: 60_000 });
  const allowed = (kinds.data?.kinds ?? []).filter((k) => RANK[user.role] >= RANK[k.role]);
  const [kind, setKind] = useState('');
  const [params, setParams] = useState('{}');
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const selected = allowed.find((k) => k.kind === (kind || allowed[0]?.kind));

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!selected) return;
    let parsed: unknown;
    try { parsed = params.trim() ? JSON.parse(params) : {}; } catch (err) {
      setError({ message: `Parameters are not valid JSON: ${(err as Error).message}`, field: 'params' });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await api<{ id: string }>('/api/v1/jobs', { method: 'POST', body: { kind: selected.kind, params: parsed } });
      onStarted(r.id);
    } catch (err) {
      setError({ message: (err as Error).message, field: err instanceof ApiError ? err.field : undefined });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card form start-job" onSubmit={submit} aria-label="Start a job">
      <h2>Start a job</h2>
      <div className="form-row">
        <label className="field">
          <span>Kind</span>
          <select name="kind" value={selected?.kind ?? ''} onChange={(e) => setKind(e.target.value)} aria-invalid={error?.field === 'kind'}>
            {allowed.map((k) => <option key={k.kind} value={k.kind}>{k.kind}</option>)}
          </select>
        </label>
        <p className="field-help">{kinds.isPending ? 'Loading job kinds…' : selected?.description ?? 'No job kind available to your role.'}</p>
      </div>
      <label className="field">
        <span>Parameters (JSON)</span>
        <textarea name="params" className="mono" rows={4} value={params} onChange={(e) => setParams(e.target.value)} spellCheck={false}
          aria-invalid={error?.field?.startsWith('params') ?? false} />
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error.field ? <strong>{error.field}: </strong> : null}
          {error.field && error.message.startsWith(`${error.field}: `) ? error.message.slice(error.field.length + 2) : error.message}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !selected}>{busy ? 'Starting…' : 'Start'}</button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
