/**
 * Flag validation with the seed's one-line messages (seed 001, Troubleshooting).
 * Each function returns the cleaned value or throws a PlanningInputError whose
 * message is exactly what the operator sees.
 */

import { AppError } from '../../errors';

/**
 * A bad flag or template: an `AppError('usage')` (HTTP 400, exit 2) whose
 * message is the seed's one-liner, printed as-is. Kept as a named subclass
 * only so the planning files keep one spelling of it.
 */
export class PlanningInputError extends AppError {
  constructor(message: string, field?: string) {
    super('usage', message, { field });
    this.name = 'PlanningInputError';
  }
}

/**
 * How the caller names a field: the CLI's flags (`--query-file`) or a job's
 * payload fields (`params.queryFile`). The parsers take it and say the field
 * as the caller wrote it, so no message is rewritten afterwards.
 */
export type FieldStyle = 'flag' | 'param';

const kebab = (f: string) => f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (f: string) => f.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A field (`queryFile` or `query-file`) as the caller wrote it: `--query-file`, or `params.queryFile`. */
export function fieldOf(style: FieldStyle, field: string): string {
  return style === 'flag' ? `--${kebab(field)}` : `params.${camel(field)}`;
}

/**
 * A bad input in the caller's style: on the CLI the seed's one-liner
 * (`✗ …`, or as-is with `mark: false` for argparse-style lines), field the
 * bare flag name (`query-file`); in a job `slices: …`, field `params.queryFile`.
 */
export function planningError(style: FieldStyle, text: string, field: string, o: { mark?: boolean } = {}): PlanningInputError {
  if (style === 'param') return new PlanningInputError(`slices: ${text}`, `params.${camel(field)}`);
  return new PlanningInputError(o.mark === false ? text : `✗ ${text}`, kebab(field));
}

// Plain identifier: letters, digits, _ $ # (Oracle's unquoted identifier set).
const IDENT = /^[A-Za-z_][A-Za-z0-9_$#]*$/;
const QUALIFIED = /^[A-Za-z_][A-Za-z0-9_$#]*\.[A-Za-z_][A-Za-z0-9_$#]*$/;

/** `--table` / `--target`: OWNER.TABLE. */
export function validateOwnerTable(flag: 'table' | 'target', value: unknown, style: FieldStyle = 'flag'): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (flag === 'target' && (v === '' || v.includes('|'))) {
    throw planningError(style, `target must be non-empty and must not contain '|'`, flag);
  }
  if (!QUALIFIED.test(v)) throw planningError(style, `${fieldOf(style, flag)} must be OWNER.TABLE, got '${String(value ?? '')}'`, flag);
  return v;
}

/** `--target` as written to every queryfile line. */
export function validateTarget(value: unknown, style: FieldStyle = 'flag'): string {
  return validateOwnerTable('target', value, style);
}

/** `--alias`: a plain identifier. */
export function validateAlias(value: unknown, style: FieldStyle = 'flag'): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (!IDENT.test(v)) throw planningError(style, 'invalid alias identifier', 'alias');
  return v;
}

/** `--column`: a plain identifier, or `alias.col`. */
export function validateColumn(value: unknown, style: FieldStyle = 'flag'): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (!IDENT.test(v) && !QUALIFIED.test(v)) throw planningError(style, 'invalid column identifier', 'column');
  return v;
}

/** Counts and budgets (`--chunks`, `--sample-rows`, …): integers >= 1. */
export function parsePositiveInt(flag: string, value: unknown, style: FieldStyle = 'flag'): number {
  const s = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\+?\d+$/.test(s) || Number(s) < 1 || !Number.isSafeInteger(Number(s))) {
    throw planningError(style, `argument ${fieldOf(style, flag)}: must be a positive integer (>= 1)`, flag, { mark: false });
  }
  return Number(s);
}

export const STRATEGIES = ['auto', 'rowid', 'column', 'partition'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const DEPTHS = ['lightweight', 'bakeoff', 'adaptive'] as const;
export type Depth = (typeof DEPTHS)[number];
export const ENGINES = ['oracle', 'postgres', 'sqlserver', 'jdbc'] as const;
export type EngineName = (typeof ENGINES)[number];

function oneOf<T extends string>(flag: string, list: readonly T[], value: unknown, style: FieldStyle): T {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!(list as readonly string[]).includes(v)) {
    throw planningError(style, `argument ${fieldOf(style, flag)}: invalid choice: '${String(value ?? '')}' (choose from ${list.join(', ')})`, flag, { mark: false });
  }
  return v as T;
}

export const parseStrategy = (v: unknown, style: FieldStyle = 'flag'): Strategy => oneOf('strategy', STRATEGIES, v, style);
export const parseDepth = (v: unknown, style: FieldStyle = 'flag'): Depth => oneOf('depth', DEPTHS, v, style);
export const parseEngine = (v: unknown, style: FieldStyle = 'flag'): EngineName => oneOf('source-engine', ENGINES, v, style);

/** Split OWNER.TABLE into its two parts. */
export function splitOwnerTable(name: string): { owner: string; table: string } {
  const [owner, table] = name.split('.');
  return { owner, table };
}
