'use client';
import { useMemo } from 'react';
import { fieldsOf, type FieldModel, type JsonSchema, type Picker } from './field-model';
import type { FormValues } from './form-values';
import { SchemaField } from './schema-field';
import { usePickerOptions } from './use-picker-options';

interface Props {
  schema: JsonSchema;
  values: FormValues;
  /** Problems by field name: the form's own checks as you type, and the server's 400 for the field it names. */
  problems: Record<string, string>;
  onChange(name: string, value: string | boolean): void;
}

/** Required fields first, then the rest, in the schema's order. */
export function orderedFields(schema: JsonSchema): FieldModel[] {
  const all = fieldsOf(schema);
  return [...all.filter((f) => f.required), ...all.filter((f) => !f.required)];
}

/** The fields of a JSON Schema as a form (the schema is the one POST /jobs validates with). */
export function SchemaForm({ schema, values, problems, onChange }: Props) {
  const fields = useMemo(() => orderedFields(schema), [schema]);
  const needed = useMemo(() => new Set(fields.map((f) => f.picker).filter((p): p is Picker => !!p)), [fields]);
  const options = usePickerOptions(needed);
  if (!fields.length) return <p className="muted">This job kind takes no parameters.</p>;
  return (
    <div className="form-grid" data-testid="schema-form">
      {fields.map((f) => (
        <SchemaField key={f.name} field={f} value={values[f.name] ?? ''} problem={problems[f.name]}
          options={f.picker ? options[f.picker] : undefined} onChange={(v) => onChange(f.name, v)} />
      ))}
      {needed.has('table') && options.tablesError && <small className="muted">tables.json: {options.tablesError}</small>}
    </div>
  );
}
