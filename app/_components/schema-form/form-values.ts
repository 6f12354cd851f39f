import type { FieldModel } from './field-model';

/** What the form holds per field: text as typed, or a checkbox's state. */
export type FormValues = Record<string, string | boolean>;

/** The form's starting values: each field's default, as the input shows it. */
export function initialValues(fields: FieldModel[]): FormValues {
  const v: FormValues = {};
  for (const f of fields) {
    if (f.kind === 'boolean') v[f.name] = f.default === true;
    else if (f.default === undefined) v[f.name] = '';
    else if (Array.isArray(f.default)) v[f.name] = f.default.join(', ');
    else v[f.name] = typeof f.default === 'object' ? JSON.stringify(f.default) : String(f.default);
  }
  return v;
}

/** `a, b ,c` → ['a', 'b', 'c']. */
export function splitNames(v: string): string[] {
  return v.split(',').map((x) => x.trim()).filter(Boolean);
}

/** What is wrong with one field's value, in the server's words where it can; null when fine. */
export function fieldProblem(f: FieldModel, value: string | boolean | undefined): string | null {
  if (f.kind === 'boolean') return null;
  const v = String(value ?? '').trim();
  if (!v) return f.required ? 'required' : null;
  switch (f.kind) {
    case 'integer':
    case 'number': {
      const n = Number(v);
      const ok = f.kind === 'integer' ? /^-?\d+$/.test(v) : /^-?\d+(\.\d+)?$/.test(v);
      const range = f.min !== undefined && f.max !== undefined ? ` ≥ ${f.min} and ≤ ${f.max}` : f.min !== undefined ? ` ≥ ${f.min}` : f.max !== undefined ? ` ≤ ${f.max}` : '';
      if (!ok || (f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return `expected ${f.kind === 'integer' ? 'an integer' : 'a number'}${range}`;
      return null;
    }
    case 'enum':
      return f.options && !f.options.some((o) => o.toLowerCase() === v.toLowerCase()) ? `expected one of ${f.options.join(', ')}` : null;
    case 'json':
      try { JSON.parse(v); return null; } catch { return 'not valid JSON'; }
    case 'list':
      return splitNames(v).find((x) => x.length > 256) ? 'a name longer than 256 characters' : null;
    default:
      if (f.minLength !== undefined && v.length < f.minLength) return `at least ${f.minLength} characters`;
      if (f.maxLength !== undefined && v.length > f.maxLength) return `at most ${f.maxLength} characters`;
      if (f.pattern && !new RegExp(f.pattern, 'u').test(v)) return `does not match ${f.pattern}`;
      return null;
  }
}

/** Every field's problem (only those with one). */
export function formProblems(fields: FieldModel[], values: FormValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) { const p = fieldProblem(f, values[f.name]); if (p) out[f.name] = p; }
  return out;
}

/**
 * The job's params from the form: empty fields left out (the job takes its
 * default), checkboxes only when they differ from the default, numbers as
 * numbers, lists as arrays, JSON parsed.
 */
export function paramsOf(fields: FieldModel[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = values[f.name];
    if (f.kind === 'boolean') { if (raw !== (f.default === true)) out[f.name] = raw === true; continue; }
    const v = String(raw ?? '').trim();
    if (!v) continue;
    if (f.kind === 'integer' || f.kind === 'number') out[f.name] = Number(v);
    else if (f.kind === 'list') out[f.name] = splitNames(v);
    else if (f.kind === 'json') out[f.name] = JSON.parse(v);
    else out[f.name] = v;
  }
  return out;
}

/** The form field a server error names: `params.tables[1]` → `tables`; null for errors about the whole request. */
export function fieldOfError(field: string | undefined): string | null {
  const m = /^params\.([A-Za-z0-9_]+)/.exec(field ?? '');
  return m ? m[1] : null;
}
