'use client';
import { useState, type FormEvent } from 'react';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { CONNECTION_KIND_SPECS, checkConnectionFields, type ConnectionField, type ConnectionKind } from '@/lib/api/presenters/connection-kinds';
import type { ConnectionRow } from './connections-view';

const KINDS = Object.keys(CONNECTION_KIND_SPECS) as ConnectionKind[];

function parseObject(text: string, what: string): Record<string, unknown> {
  if (!text.trim()) return {};
  const v = JSON.parse(text);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} must be a JSON object`);
  return v;
}

const NAME_RE = /^[A-Za-z0-9_.:-]+$/;
const KEY_RE = /^[A-Za-z0-9_-]+$/;

/** The form's values as the form shows them (text inputs hold strings). */
function initialParams(c: ConnectionRow | undefined): Record<string, string | boolean> {
  if (!c) return {};
  return Object.fromEntries(Object.entries(c.params).map(([k, v]) => [k, typeof v === 'boolean' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)]));
}

/**
 * Why Save is disabled, in words (the first missing or malformed field), or null:
 * what the form can tell without the server.
 */
export function whySaveDisabled(f: { name: string; branch: boolean; branchKey: string }): string | null {
  if (!f.name.trim()) return 'Name is missing.';
  if (!NAME_RE.test(f.name.trim())) return 'Name may hold only letters, digits and _ . : -';
  if (f.name.trim().startsWith('env:')) return 'Names starting with env: are reserved for the built-in connections.';
  if (f.branch && !f.branchKey.trim()) return 'Branch key is missing (a source branch needs one).';
  if (f.branch && !KEY_RE.test(f.branchKey.trim())) return 'Branch key may hold only letters, digits, _ and -';
  return null;
}

/**
 * What the server will still refuse for this kind (host missing, a number that
 * is not one), with the API's own rules (`checkConnectionFields`), shown as the
 * operator types; Save stays enabled so the server's answer names the field.
 */
export function kindProblem(f: { kind: ConnectionKind; params: Record<string, unknown>; secrets: Record<string, string>; storedSecrets: string[] }): string | null {
  if (f.kind === 'other') return null;
  const secrets = { ...Object.fromEntries(f.storedSecrets.map((k) => [k, '*'])), ...f.secrets };
  const problem = checkConnectionFields({ kind: f.kind, params: f.params, secrets });
  if (!problem) return null;
  const key = problem.field.replace(/^(params|secrets)\./, '');
  const spec = CONNECTION_KIND_SPECS[f.kind];
  const label = [...spec.params, ...spec.secrets].find((x) => x.key === key)?.label ?? key;
  return `${label}: ${problem.message}.`;
}

/**
 * Admin form, to add a connection or (with `initial`) edit one: kind-specific
 * fields; secrets are write-only inputs, cleared after saving. Editing never
 * shows a stored secret: a blank secret field keeps it, a typed one replaces it.
 */
export function ConnectionForm({ onCreated, onCancel, initial }: { onCreated(name: string): void; onCancel(): void; initial?: ConnectionRow }) {
  const editing = !!initial;
  const [kind, setKind] = useState<ConnectionKind>((initial?.kind as ConnectionKind | undefined) ?? 'postgres');
  const [name, setName] = useState(initial?.name ?? '');
  const [isBranch, setIsBranch] = useState(initial ? initial.isBranch : true);
  const [branchKey, setBranchKey] = useState(initial?.branchKey ?? '');
  const [params, setParams] = useState<Record<string, string | boolean>>(() => initialParams(initial));
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [rawParams, setRawParams] = useState(initial && initial.kind === 'other' ? JSON.stringify(initial.params, null, 2) : '{}');
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

  const formParams = (): Record<string, unknown> => Object.fromEntries(spec.params.map((f) => [f.key, value(f, params[f.key])]).filter(([, v]) => v !== undefined));
  const formSecrets = () => Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== ''));
  const disabledWhy = whySaveDisabled({ name, branch, branchKey });
  const incomplete = disabledWhy ? null : kindProblem({ kind, params: formParams(), secrets: formSecrets(), storedSecrets: initial?.secretKeys ?? [] });

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
        p = formParams();
        s = formSecrets();
      }
    } catch (err) { setError(err); return; }
    setBusy(true);
    try {
      if (initial) {
        // PATCH merges: a field emptied in the form is removed (null); unnamed secrets are kept.
        const removed = Object.keys(initial.params).filter((k) => !(k in p) && (kind === 'other' || spec.params.some((f) => f.key === k)));
        await api(`/api/v1/connections/${encodeURIComponent(initial.id)}`, {
          method: 'PATCH',
          body: {
            params: { ...p, ...Object.fromEntries(removed.map((k) => [k, null])) },
            ...(Object.keys(s).length ? { secrets: s } : {}),
            ...(spec.branchable ? { isBranch: branch, branchKey: branch ? branchKey.trim() : null } : {}),
          },
        });
      } else {
        await api('/api/v1/connections', {
          method: 'POST',
          body: { name: name.trim(), kind, isBranch: branch, ...(branch ? { branchKey: branchKey.trim() } : {}), params: p, secrets: s },
        });
      }
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
    <form className="card form" onSubmit={submit} aria-label={editing ? `Edit connection ${initial.name}` : 'Add a connection'} autoComplete="off">
      <h2>{editing ? <>Edit <span className="mono">{initial.name}</span></> : 'Add a connection'}</h2>
      <div className="form-grid">
        <label className="field">
          <span>Kind</span>
          <select name="kind" value={kind} disabled={editing} onChange={(e) => pickKind(e.target.value as ConnectionKind)} aria-invalid={invalid('kind')}>
            {KINDS.map((k) => <option key={k} value={k}>{CONNECTION_KIND_SPECS[k].label}</option>)}
          </select>
        </label>
        <label className="field">
          <span>Name</span>
          <input name="name" value={name} readOnly={editing} onChange={(e) => setName(e.target.value)} placeholder="e.g. branch_cairo" required maxLength={100} aria-invalid={invalid('name')} />
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
              ) : f.type === 'select' ? (
                <label key={f.key} className="field">
                  <span>{f.label}</span>
                  <select name={`params.${f.key}`} value={(params[f.key] as string | undefined) ?? ''} onChange={(e) => setParams({ ...params, [f.key]: e.target.value })} aria-invalid={invalid(`params.${f.key}`)}>
                    <option value="">default ({f.options?.[0]})</option>
                    {f.options?.map((o) => <option key={o} value={o}>{o}</option>)}
                  </select>
                  {f.help && <small className="muted">{f.help}</small>}
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
                <span>{f.label}{initial?.secretKeys.includes(f.key) && <span className="muted small"> (stored)</span>}</span>
                <input name={`secrets.${f.key}`} type="password" autoComplete="new-password" value={secrets[f.key] ?? ''}
                  placeholder={initial?.secretKeys.includes(f.key) ? 'stored — leave blank to keep, type to replace' : f.placeholder}
                  onChange={(e) => setSecrets({ ...secrets, [f.key]: e.target.value })} aria-invalid={invalid(`secrets.${f.key}`)} />
                {f.help && <small className="muted">{f.help}</small>}
              </label>
            ))}
          </div>
        </>
      )}
      <FormError error={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !!disabledWhy} aria-describedby="save-why" title={disabledWhy ?? undefined}>
          {busy ? 'Saving…' : editing ? 'Save changes' : 'Save connection'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
        {disabledWhy && <span id="save-why" className="hint" data-testid="save-why" role="status">Save is disabled — {disabledWhy}</span>}
        {incomplete && <span className="hint" data-testid="save-incomplete">Not complete yet — {incomplete}</span>}
      </div>
    </form>
  );
}
