'use client';
import type { FieldModel } from './field-model';
import { splitNames } from './form-values';

interface Props {
  field: FieldModel;
  value: string | boolean;
  /** The problem to show beside the field: the form's own check, or the server's message. */
  problem?: string;
  /** Names a picker offers (connections, branches, tables). */
  options?: string[];
  onChange(value: string | boolean): void;
}

function hintOf(f: FieldModel): string {
  const parts: string[] = [];
  if (f.min !== undefined || f.max !== undefined) parts.push(`${f.min ?? '…'} – ${f.max ?? '…'}`);
  if (f.kind === 'list') parts.push('comma-separated; empty = all');
  if (f.default !== undefined && f.kind !== 'boolean') parts.push(`default ${Array.isArray(f.default) ? (f.default.length ? f.default.join(', ') : 'all') : String(f.default)}`);
  if (f.description) parts.push(f.description);
  return parts.join(' · ');
}

/** One generated field: a select, a checkbox, a number, a comma list with picks, or text. */
export function SchemaField({ field: f, value, problem, options, onChange }: Props) {
  const id = `param-${f.name}`;
  const errId = `${id}-error`;
  const common = { id, name: f.name, 'aria-invalid': !!problem, 'aria-describedby': problem ? errId : undefined };
  const hint = hintOf(f);
  const error = problem ? <small id={errId} className="error-text" role="alert" data-field-error={f.name}>{problem}</small> : null;

  if (f.kind === 'boolean') {
    return (
      <div className="field">
        <label className="field-check" style={{ paddingTop: 0 }}>
          <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          <span>{f.label}</span>
        </label>
        {error}
      </div>
    );
  }

  let input;
  if (f.kind === 'enum') {
    input = (
      <select {...common} value={String(value)} onChange={(e) => onChange(e.target.value)} required={f.required}>
        {!f.required || value === '' ? <option value="">{f.default !== undefined ? `(default: ${String(f.default)})` : '—'}</option> : null}
        {(f.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    );
  } else if (f.kind === 'integer' || f.kind === 'number') {
    input = <input type="number" inputMode="decimal" {...common} value={String(value)} min={f.min} max={f.max} step={f.kind === 'integer' ? 1 : 'any'}
      placeholder={f.default !== undefined ? String(f.default) : undefined} onChange={(e) => onChange(e.target.value)} />;
  } else if (f.kind === 'json') {
    input = <textarea {...common} className="mono" rows={3} value={String(value)} spellCheck={false} placeholder="JSON" onChange={(e) => onChange(e.target.value)} />;
  } else if (f.picker && f.kind === 'text') {
    // A picker that still takes any name: a connection may be a built-in one (env:source) the list does not hold.
    input = (
      <>
        <input {...common} list={`${id}-options`} value={String(value)} autoComplete="off" onChange={(e) => onChange(e.target.value)} placeholder={options?.length ? 'pick or type a name' : undefined} />
        <datalist id={`${id}-options`}>{(options ?? []).map((o) => <option key={o} value={o} />)}</datalist>
      </>
    );
  } else {
    input = <input {...common} value={String(value)} onChange={(e) => onChange(e.target.value)} required={f.required}
      placeholder={f.kind === 'list' ? 'a, b, c' : f.default !== undefined ? String(f.default) : undefined} />;
  }

  const picked = new Set(f.kind === 'list' ? splitNames(String(value)) : []);
  const toggle = (o: string) => {
    const next = picked.has(o) ? [...picked].filter((x) => x !== o) : [...picked, o];
    onChange(next.join(', '));
  };

  return (
    <div className="field">
      <label htmlFor={id}><span style={{ fontSize: 13, fontWeight: 600 }}>{f.label}{f.required ? ' *' : ''}</span></label>
      {input}
      {f.kind === 'list' && f.picker && options && options.length > 0 && (
        <div role="group" aria-label={`pick ${f.label}`}>
          {options.map((o) => (
            <button key={o} type="button" className="chip" aria-pressed={picked.has(o)} onClick={() => toggle(o)}
              style={picked.has(o) ? { background: '#dbe7ff', borderColor: '#93b4fb' } : { cursor: 'pointer' }}>{o}</button>
          ))}
        </div>
      )}
      {hint && <small className="muted">{hint}</small>}
      {error}
    </div>
  );
}
