'use client';
import { useState, type FormEvent } from 'react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';

interface ImportAnswer { dryRun: boolean; connections: { name: string; branchKey: string; kind: string; action: string }[] }

/**
 * Admin: paste branch sections in the seed's TOML format. "Check" shows what
 * would change; "Import" writes all of them or none. Stored secrets the text
 * omits are kept (an exported file carries none).
 */
export function ConnectionsImport({ onDone, onCancel }: { onDone(count: number): void; onCancel(): void }) {
  const [toml, setToml] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [checked, setChecked] = useState<ImportAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (dryRun: boolean) => {
    setBusy(true); setError(null);
    try {
      const r = await api<ImportAnswer>('/api/v1/connections/import', { method: 'POST', body: { toml, dryRun } });
      if (dryRun) setChecked(r); else onDone(r.connections.length);
    } catch (e) { setError(e); setChecked(null); } finally { setBusy(false); }
  };
  const submit = (e: FormEvent) => { e.preventDefault(); void send(false); };
  return (
    <form className="card form" onSubmit={submit} aria-label="Import connections">
      <h2>Import branch connections (TOML)</h2>
      <p className="muted small">Sections <code>[oracle_branches.&lt;key&gt;]</code> / <code>[postgres_branches.&lt;key&gt;]</code>, as <code>tributary connections import</code> reads them. <code>{'${VAR}'}</code> is not expanded here.</p>
      <label className="field">
        <span>TOML</span>
        <textarea name="toml" rows={8} value={toml} onChange={(e) => { setToml(e.target.value); setChecked(null); }} spellCheck={false}
          placeholder={'[postgres_branches.cairo]\nhost = "db-cairo.example"\nport = 5432\ndatabase = "shop"\nuser = "etl"\npassword = "…"'} />
      </label>
      {checked && (
        <ul className="small" data-testid="import-check">
          {checked.connections.map((c) => <li key={c.branchKey}><span className="mono">{c.branchKey}</span> ({c.kind})</li>)}
        </ul>
      )}
      <FormError error={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !toml.trim()}>{busy ? 'Importing…' : 'Import'}</button>
        <button type="button" className="btn btn-ghost" disabled={busy || !toml.trim()} onClick={() => void send(true)}>Check</button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
        {!toml.trim() && <span className="hint">Import is disabled — paste the TOML text first.</span>}
      </div>
    </form>
  );
}
