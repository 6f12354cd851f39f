'use client';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api, ApiError, type JobKind } from '../../_components/api-client';
import { useUser } from '../../_components/user-context';
import { fieldsOf } from '../../_components/schema-form/field-model';
import { fieldOfError, formProblems, initialValues, paramsOf, type FormValues } from '../../_components/schema-form/form-values';
import { SchemaForm } from '../../_components/schema-form/schema-form';

const RANK = { viewer: 0, operator: 1, admin: 2 } as const;

/** JSON params → the form's values (arrays as comma lists), for going back from the Advanced tab. */
function valuesFromJson(base: FormValues, parsed: Record<string, unknown>): FormValues {
  const v = { ...base };
  for (const [k, x] of Object.entries(parsed)) {
    if (!(k in v)) continue;
    v[k] = typeof x === 'boolean' ? x : Array.isArray(x) ? x.join(', ') : typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x);
  }
  return v;
}

/**
 * Kind picker + a form generated from the kind's payload schema (the one
 * POST /jobs validates with); raw JSON stays under "Advanced". The server's
 * 400 is shown beside the field it names.
 */
export function StartJobForm({ onStarted, onCancel, initialKind }: { onStarted(id: string): void; onCancel(): void; initialKind?: string }) {
  const user = useUser();
  const kinds = useQuery({ queryKey: ['job-kinds'], queryFn: () => api<{ kinds: JobKind[] }>('/api/v1/job-kinds'), staleTime: 60_000 });
  const allowed = (kinds.data?.kinds ?? []).filter((k) => RANK[user.role] >= RANK[k.role]);
  const [kind, setKind] = useState(initialKind ?? '');
  const selected = allowed.find((k) => k.kind === (kind || allowed[0]?.kind));
  const schema = selected?.schema ?? { type: 'object', properties: {} };
  const fields = useMemo(() => fieldsOf(schema), [schema]);
  const [valuesByKind, setValuesByKind] = useState<Record<string, FormValues>>({});
  const values = (selected && valuesByKind[selected.kind]) ?? initialValues(fields);
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [tab, setTab] = useState<'form' | 'json'>('form');
  const [json, setJson] = useState('{}');
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const problems = formProblems(fields, values);
  // As you type: a field's own problem once it was touched; the server's message for the field it named.
  const shown: Record<string, string> = {};
  for (const [k, p] of Object.entries(problems)) if (touched.has(k)) shown[k] = p;
  const serverField = fieldOfError(error?.field);
  if (error && serverField) shown[serverField] = error.message.replace(/^params\.[^:]+:\s*/, '');

  function change(name: string, v: string | boolean) {
    if (!selected) return;
    setValuesByKind((m) => ({ ...m, [selected.kind]: { ...values, [name]: v } }));
    setTouched((t) => new Set(t).add(name));
    if (error && fieldOfError(error.field) === name) setError(null);
  }

  function switchTab(next: 'form' | 'json') {
    if (next === tab) return;
    // Before the kinds have loaded there are no values to carry over.
    if (!selected) { setTab(next); return; }
    if (next === 'json') {
      try { setJson(JSON.stringify(paramsOf(fields, values), null, 2)); } catch { setJson('{}'); }
    } else {
      try {
        const parsed = JSON.parse(json || '{}');
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) setValuesByKind((m) => ({ ...m, [selected.kind]: valuesFromJson(initialValues(fields), parsed) }));
      } catch { /* keep the form's values: the JSON did not parse */ }
    }
    setTab(next);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!selected) return;
    let params: unknown;
    if (tab === 'json') {
      try { params = json.trim() ? JSON.parse(json) : {}; } catch (err) {
        setError({ message: `Parameters are not valid JSON: ${(err as Error).message}`, field: 'params' });
        return;
      }
    } else {
      if (Object.keys(problems).length) { setTouched(new Set(fields.map((f) => f.name))); return; }
      params = paramsOf(fields, values);
    }
    setBusy(true);
    setError(null);
    try {
      const r = await api<{ id: string }>('/api/v1/jobs', { method: 'POST', body: { kind: selected.kind, params } });
      onStarted(r.id);
    } catch (err) {
      setError({ message: (err as Error).message, field: err instanceof ApiError ? err.field : undefined });
    } finally {
      setBusy(false);
    }
  }

  // An error the form cannot place beside a field (the kind, a whole-payload refusal, the JSON tab's).
  const general = error && (tab === 'json' || !serverField || !fields.some((f) => f.name === serverField)) ? error : null;

  return (
    <form className="card form start-job" onSubmit={submit} aria-label="Start a job" noValidate>
      <h2>Start a job</h2>
      <div className="form-row">
        <label className="field">
          <span>Kind</span>
          <select name="kind" value={selected?.kind ?? ''} onChange={(e) => { setKind(e.target.value); setTouched(new Set()); setError(null); }} aria-invalid={error?.field === 'kind'}>
            {allowed.map((k) => <option key={k.kind} value={k.kind}>{k.kind}</option>)}
          </select>
        </label>
        <p className="field-help">{kinds.isPending ? 'Loading job kinds…' : selected?.description ?? 'No job kind available to your role.'}</p>
      </div>
      <div role="tablist" aria-label="Parameters as" style={{ display: 'flex', gap: 6 }}>
        <button type="button" role="tab" aria-selected={tab === 'form'} className={`btn btn-small ${tab === 'form' ? '' : 'btn-ghost'}`} onClick={() => switchTab('form')}>Form</button>
        <button type="button" role="tab" aria-selected={tab === 'json'} className={`btn btn-small ${tab === 'json' ? '' : 'btn-ghost'}`} onClick={() => switchTab('json')}>Advanced (JSON)</button>
      </div>
      {tab === 'form' ? (
        selected && <SchemaForm key={selected.kind} schema={schema} values={values} problems={shown} onChange={change} />
      ) : (
        <label className="field">
          <span>Parameters (JSON)</span>
          <textarea name="params" className="mono" rows={6} value={json} onChange={(e) => setJson(e.target.value)} spellCheck={false}
            aria-invalid={error?.field?.startsWith('params') ?? false} />
        </label>
      )}
      {general && (
        <p className="form-error" role="alert">
          {general.field ? <strong>{general.field}: </strong> : null}
          {general.field && general.message.startsWith(`${general.field}: `) ? general.message.slice(general.field.length + 2) : general.message}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !selected}>{busy ? 'Starting…' : 'Start'}</button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
