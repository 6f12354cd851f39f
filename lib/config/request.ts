import { z } from 'zod';
import { AppError } from '../errors';
import { readDecimal, readInteger } from './number-text';

/**
 * One request schema per engine action, shared by the CLI (flags arrive as
 * strings) and job payloads (JSON): the field helpers below accept both, so
 * whatever a flag can say a payload can say, with the same bounds and the
 * same messages. `parseRequest` names the failing input the way its caller
 * knows it: `--max-table-workers` on the command line, `params.maxTableWorkers`
 * in a job.
 */

/** What came, as JSON, cut to 60 characters: an error quotes a value, never echoes a whole payload. */
const got = (v: unknown) => { const j = JSON.stringify(v) ?? String(v); return `got ${j.length > 60 ? `${j.slice(0, 60)}…` : j}`; };

/** The message for an input of the wrong JSON type (a number where a name belongs): what was expected and what came, or `required` when nothing came. */
export const typeError = (expected: string) => (iss: { input?: unknown }) => (iss.input === undefined ? `required (${expected})` : `expected ${expected}, ${got(iss.input)}`);

/** An integer in [min, max], from a number or a string of digits. */
export function intField(min: number, max: number) {
  return z.union([z.number(), z.string()], { error: typeError(`an integer ≥ ${min} and ≤ ${max}`) }).transform((v, ctx) => {
    const n = readInteger(v);
    if (n === null || n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `expected an integer ≥ ${min} and ≤ ${max}, ${got(v)}` });
      return z.NEVER;
    }
    return n;
  // The bounds in the JSON Schema (the API reference, the panel's generated forms); they apply to the number form.
  }).meta({ minimum: min, maximum: max, multipleOf: 1 });
}

/** A number in [min, max], from a number or a decimal string. */
export function numberField(min: number, max: number) {
  return z.union([z.number(), z.string()], { error: typeError(`a number from ${min} to ${max}`) }).transform((v, ctx) => {
    const n = readDecimal(v);
    if (n === null || n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `expected a number from ${min} to ${max}, ${got(v)}` });
      return z.NEVER;
    }
    return n;
  }).meta({ minimum: min, maximum: max });
}

/** One of `values`, compared case-insensitively, returned in the spelling of `values`. */
export function enumField<const T extends readonly [string, ...string[]]>(values: T) {
  const list = values.length === 2 ? `${values[0]} or ${values[1]}` : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
  return z.string({ error: typeError(list) }).transform((v, ctx) => {
    const hit = values.find((x) => x.toLowerCase() === v.trim().toLowerCase());
    if (!hit) { ctx.addIssue({ code: 'custom', message: `expected ${list}, ${got(v)}` }); return z.NEVER; }
    return hit as T[number];
  }).meta({ enum: [...values] });
}

/** A comma-separated string or a list of strings → trimmed, non-empty names (at most 1000, each ≤ 256 characters). */
export const listField = z.union([z.string(), z.array(z.string())], { error: typeError('a name, names separated by commas, or a list of names') }).transform((v, ctx) => {
  const items = (Array.isArray(v) ? v : v.split(',')).map((x) => x.trim()).filter(Boolean);
  if (items.length > 1000) { ctx.addIssue({ code: 'custom', message: 'at most 1000 names' }); return z.NEVER; }
  const long = items.find((x) => x.length > 256);
  if (long !== undefined) { ctx.addIssue({ code: 'custom', message: `a name longer than 256 characters: ${JSON.stringify(long.slice(0, 40))}…` }); return z.NEVER; }
  return items;
});

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A delay: seconds as a number or string, or `30s` / `5m` / `250ms` / `1h` / `3d` → milliseconds, at most `maxMs`. */
export function durationMsField(maxMs: number) {
  return z.union([z.number(), z.string()]).transform((v, ctx) => {
    let ms = NaN;
    if (typeof v === 'number') ms = v * 1000;
    else {
      const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v.trim());
      if (m) ms = Number(m[1]) * UNITS[(m[2] ?? 's') as keyof typeof UNITS];
    }
    if (!Number.isFinite(ms) || ms < 0 || ms > maxMs) {
      ctx.addIssue({ code: 'custom', message: `expected seconds (e.g. 300) or a duration like 5m, 30s, 250ms, 3d, at most ${maxMs / 1000} s, ${got(v)}` });
      return z.NEVER;
    }
    return Math.round(ms);
  });
}

/** A lake namespace: lower-case letters, digits and `_`, 1–64 characters. */
export const namespaceField = z.string().regex(/^[a-z0-9_]{1,64}$/, 'lower-case letters, digits and _ only, 1 to 64 characters');

/** How a request's fields are named to the person who wrote them. */
export type RequestStyle = 'flags' | 'params';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The name of the input at `path`: `--kebab-flag` (or `flagNames[key]`) for
 * the CLI, `params.a.b[0]` for a job payload.
 */
export function fieldName(path: readonly PropertyKey[], style: RequestStyle, flagNames: Record<string, string> = {}): string {
  if (style === 'flags') {
    const top = String(path[0] ?? '');
    return flagNames[top] ?? (top ? `--${kebab(top)}` : 'arguments');
  }
  let s = 'params';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return s;
}

/** A zod error → one AppError naming its first issue's field (`usage` for flags, `validation` for payloads). */
export function requestError(err: z.ZodError, style: RequestStyle, flagNames?: Record<string, string>): AppError {
  const issue = err.issues[0];
  let path = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...issue.path, issue.keys[0]];
    message = style === 'flags' ? 'unknown option' : 'unknown field';
  }
  const field = fieldName(path, style, flagNames);
  return new AppError(style === 'flags' ? 'usage' : 'validation', `${field}: ${message}`, { field, cause: err });
}

/** Parse a request (flags or payload) with its schema; throws requestError's AppError. */
export function parseRequest<S extends z.ZodType>(schema: S, raw: unknown, style: RequestStyle, flagNames?: Record<string, string>): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) throw requestError(r.error, style, flagNames);
  return r.data;
}

/**
 * What an action is handed by its caller beyond its request: the CLI and a
 * job differ only here (where paths may lead, how fields are named, what only
 * the operator's shell may choose).
 */
export interface ActionContext {
  pool: import('pg').Pool;
  env: import('./env').Env;
  logger: import('../log').Logger;
  signal?: AbortSignal;
  /** Where the request's paths may lead: anywhere for the CLI, the data folder for a job. */
  paths: import('./data-path').PathPolicy;
  /** How the request's fields are named in errors. (Default: params) */
  style?: RequestStyle;
  /** --oracle-client-lib-dir: CLI only — a job never picks the native library the worker loads. (Default: env ORACLE_CLIENT_LIB_DIR) */
  oracleClientLibDir?: string;
  runId?: string;
}
