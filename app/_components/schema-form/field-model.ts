/**
 * A job kind's payload JSON Schema (from `GET /api/v1/job-kinds`, generated
 * from the zod schema `POST /jobs` validates with) → the fields of its form.
 * Pure, so the mapping is tested without React.
 */
export type JsonSchema = Record<string, unknown>;

/** What a field picks from, when its name says so. */
export type Picker = 'connection' | 'branch' | 'table';

export interface FieldModel {
  name: string;
  /** `maxTableWorkers` → `max table workers`. */
  label: string;
  kind: 'enum' | 'boolean' | 'integer' | 'number' | 'list' | 'text' | 'json';
  required: boolean;
  /** The schema's default, shown in the form. */
  default?: unknown;
  description?: string;
  options?: string[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  picker?: Picker;
}

// Fields whose values are names of things the panel can list.
const PICKERS: Record<string, Picker> = {
  connection: 'connection', targetConnection: 'connection', striimConnection: 'connection', branch: 'branch', tables: 'table',
};

const types = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type as string[] : typeof s.type === 'string' ? [s.type] : []);
const alternatives = (s: JsonSchema): JsonSchema[] => [s, ...((s.anyOf ?? s.oneOf ?? []) as JsonSchema[])];
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

export function labelOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

function kindOf(s: JsonSchema): FieldModel['kind'] {
  const alts = alternatives(s);
  const all = alts.flatMap(types);
  if (alts.some((a) => Array.isArray(a.enum))) return 'enum';
  if (all.includes('array')) return 'list';
  if (all.includes('boolean') && all.length === 1) return 'boolean';
  if (all.includes('integer') || (all.includes('number') && s.multipleOf === 1)) return 'integer';
  if (all.includes('number')) return 'number';
  if (all.includes('string')) return 'text';
  return 'json';
}

/** The form fields of an object schema, in the schema's order. */
export function fieldsOf(schema: JsonSchema): FieldModel[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => {
    const kind = kindOf(s);
    const f: FieldModel = { name, label: labelOf(name), kind, required: required.has(name) };
    if (s.default !== undefined) f.default = s.default;
    if (typeof s.description === 'string') f.description = s.description;
    const en = alternatives(s).find((a) => Array.isArray(a.enum));
    if (en) f.options = (en.enum as unknown[]).map(String);
    const min = num(s.minimum) ?? num(s.exclusiveMinimum); const max = num(s.maximum) ?? num(s.exclusiveMaximum);
    if (min !== undefined) f.min = min;
    if (max !== undefined) f.max = max;
    if (num(s.minLength) !== undefined) f.minLength = s.minLength as number;
    if (num(s.maxLength) !== undefined) f.maxLength = s.maxLength as number;
    if (typeof s.pattern === 'string') f.pattern = s.pattern;
    if (PICKERS[name] && (kind === 'text' || kind === 'list')) f.picker = PICKERS[name];
    return f;
  });
}
