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

// Plain identifier: letters, digits, _ $ # (Oracle's unquoted identifier set).
const IDENT = /^[A-Za-z_][A-Za-z0-9_$#]*$/;
const QUALIFIED = /^[A-Za-z_][A-Za-z0-9_$#]*\.[A-Za-z_][A-Za-z0-9_$#]*$/;

/** `--table` / `--target`: OWNER.TABLE. */
export function validateOwnerTable(flag: 'table' | 'target', value: unknown): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (flag === 'target' && (v === '' || v.includes('|'))) {
    throw new PlanningInputError(`✗ target must be non-empty and must not contain '|'`, flag);
  }
  if (!QUALIFIED.test(v)) throw new PlanningInputError(`✗ --${flag} must be OWNER.TABLE, got '${String(value ?? '')}'`, flag);
  return v;
}

/** `--target` as written to every queryfile line. */
export function validateTarget(value: unknown): string {
  return validateOwnerTable('target', value);
}

/** `--alias`: a plain identifier. */
export function validateAlias(value: unknown): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (!IDENT.test(v)) throw new PlanningInputError('✗ invalid alias identifier', 'alias');
  return v;
}

/** `--column`: a plain identifier, or `alias.col`. */
export function validateColumn(value: unknown): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (!IDENT.test(v) && !QUALIFIED.test(v)) throw new PlanningInputError('✗ invalid column identifier', 'column');
  return v;
}

/** Counts and budgets (`--chunks`, `--sample-rows`, …): integers >= 1. */
export function parsePositiveInt(flag: string, value: unknown): number {
  const s = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\+?\d+$/.test(s) || Number(s) < 1 || !Number.isSafeInteger(Number(s))) {
    throw new PlanningInputError(`argument --${flag}: must be a positive integer (>= 1)`, flag);
  }
  return Number(s);
}

export const STRATEGIES = ['auto', 'rowid', 'column', 'partition'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const DEPTHS = ['lightweight', 'bakeoff', 'adaptive'] as const;
export type Depth = (typeof DEPTHS)[number];
export const ENGINES = ['oracle', 'postgres', 'sqlserver', 'jdbc'] as const;
export type EngineName = (typeof ENGINES)[number];

function oneOf<T extends string>(flag: string, list: readonly T[], value: unknown): T {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!(list as readonly string[]).includes(v)) {
    throw new PlanningInputError(`argument --${flag}: invalid choice: '${String(value ?? '')}' (choose from ${list.join(', ')})`, flag);
  }
  return v as T;
}

export const parseStrategy = (v: unknown): Strategy => oneOf('strategy', STRATEGIES, v);
export const parseDepth = (v: unknown): Depth => oneOf('depth', DEPTHS, v);
export const parseEngine = (v: unknown): EngineName => oneOf('source-engine', ENGINES, v);

/** Split OWNER.TABLE into its two parts. */
export function splitOwnerTable(name: string): { owner: string; table: string } {
  const [owner, table] = name.split('.');
  return { owner, table };
}
