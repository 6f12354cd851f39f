'use client';
import { useState, type FormEvent } from 'react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { CONNECTION_KIND_SPECS, type ConnectionField, type ConnectionKind } from '@/lib/api/presenters/connection-kinds';

const KINDS = Object.keys(CONNECTION_KIND_SPECS) as ConnectionKind[];

function parseObject(text: string, what: string): Record<string, unknown> {
  if (!text.trim()) return {};
  const v = JSON.parse(text);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} must be a JSON object`);
  return v;
}

/** Admin form: kind-specific fields; secrets are write-only inputs, cleared after saving. */
export function ConnectionForm({ onCreated, onCancel }: { onCreated(name: string): void; onCancel(): void }) {
  const [kind, setKind] = useState<ConnectionKind>('postgres');
  const [name, setName] = useState('');
  const [isBranch, setIsBranch] = useState(true);
  const [branchKey, setBranchKey] = useState('');
  const [params, setParams] = useState<Record<string, string | boolean>>({});
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [rawParams, setRawParams] = useState('{}');
  const [rawSecrets, setRawSecrets] = useState('{}');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const spec = CONNECTION_KIND_SPECS[kind];
  const branch = spec.branchable && isBranch;

  function pickKind(k: ConnectionKind) {
    setKind(k);
    setParams({});
    setSecrets({});
    setError(null);
  }

  function value(f: ConnectionField, v: string | boolean | undefined): unknown {
    if (v === undefined || v === '') return undefined;
    if (f.type === 'number') return Number(v);
    return v;
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    let p: Record<string, unknown>;
    let s: Record<string, unknown>;
    try {
      if (kind === 'other') {
        p = parseObject(rawParams, 'params');
        s = parseObject(rawSecrets, 'secrets');
      } else {
        p = Object.fromEntries(spec.params.map((f) => [f.key, value(f, params[f.key])]).filter(([, v]) => v !== undefined));
        s = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== ''));
      }
    } catch (err) { setError(err); return; }
    setBusy(true);
    try {
      await api('/api/v1/connections', {
        method: 'POST',
        body: { name: name.trim(), kind, isBranch: branch, ...(branch ? { branchKey: branchKey.trim() } : {}), params: p, secrets: s },
      });
      setSecrets({});
      setRawSecrets('{}');
      onCreated(name.trim());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const invalid = (field: string) => (error as { field?: string } | null)?.field === field;

  return (
    <form className="card form" onSubmit={submit} aria-label="Add a connection" autoComplete="off">
      <h2>Add a connection</h2>
      <div className="form-grid">
        <label className="field">
          <span>Kind</span>
          <select name="kind" value={kind} onChange={(e) => pickKind(e.target.value as ConnectionKind)} aria-invalid={invalid('kind')}>
            {KINDS.map((k) => <option key={k} value={k}>{CONNECTION_KIND_SPECS[k].label}</option>)}
          </select>
        </label>
        <label className="field">
          <span>Name</span>
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. branch_cairo" required maxLength={100} aria-invalid={invalid('name')} />
        </label>
        {spec.branchable && (
          <label className="field field-check">
            <input type="checkbox" name="isBranch" checked={isBranch} onChange={(e) => setIsBranch(e.target.checked)} />
            <span>Source branch (loaded by the ETL)</span>
          </label>
        )}
        {branch && (
          <label className="field">
            <span>Branch key</span>
            <input name="branchKey" value={branchKey} onChange={(e) => setBranchKey(e.target.value)} placeholder="what --branch takes, e.g. cairo" required maxLength={64} aria-invalid={invalid('branchKey')} />
          </label>
        )}
      </div>

      {kind === 'other' ? (
        <div className="form-grid">
          <label className="field">
            <span>Parameters (JSON, returned by the API)</span>
            <textarea name="params" rows={4} value={rawParams} onChange={(e) => setRawParams(e.target.value)} spellCheck={false} aria-invalid={invalid('params')} />
          </label>
          <label className="field">
            <span>Secrets (JSON of strings, write-only)</span>
            <textarea name="secrets" rows={4} value={rawSecrets} onChange={(e) => setRawSecrets(e.target.value)} spellCheck={false} aria-invalid={invalid('secrets')} />
          </label>
        </div>
      ) : (
        <>
          <h3>Settings</h3>
          <div className="form-grid">
            {spec.params.map((f) => (
              f.type === 'boolean' ? (
                <label key={f.key} className="field field-check">
                  <input type="checkbox" name={`params.${f.key}`} checked={params[f.key] === true} onChange={(e) => setParams({ ...params, [f.key]: e.target.checked })} />
                  <span>{f.label}</span>
                </label>
              ) : (
                <label key={f.key} className="field">
                  <span>{f.label}</span>
                  <input name={`params.${f.key}`} type={f.type === 'number' ? 'number' : 'text'} min={f.type === 'number' ? 1 : undefined}
                    value={(params[f.key] as string | undefined) ?? ''} placeholder={f.placeholder}
                    onChange={(e) => setParams({ ...params, [f.key]: e.target.value })} aria-invalid={invalid(`params.${f.key}`)} />
                  {f.help && <small className="muted">{f.help}</small>}
                </label>
              )
            ))}
          </div>
          <h3>Secrets <span className="muted small">— write-only: stored encrypted, never shown again</span></h3>
          <div className="form-grid">
            {spec.secrets.map((f) => (
              <label key={f.key} className="field">
                <span>{f.label}</span>
                <input name={`secrets.${f.key}`} type="password" autoComplete="new-password" value={secrets[f.key] ?? ''} placeholder={f.placeholder}
                  onChange={(e) => setSecrets({ ...secrets, [f.key]: e.target.value })} aria-invalid={invalid(`secrets.${f.key}`)} />
                {f.help && <small className="muted">{f.help}</small>}
              </label>
            ))}
          </div>
        </>
      )}
      <FormError error={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>{busy ? 'Saving…' : 'Save connection'}</button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
