import type pg from 'pg';
import { z } from 'zod';
import { AppError, toError } from '../errors';
import { assertCleanJson } from '../errors/bad-bytes';
import type { JobRegistry } from '../jobs/registry';
import type { JobCatalog } from '../jobs/types';
import { fieldPath } from './field-path';

/**
 * Check a job spec {kind, params} against the kind's own payload schema, so a
 * saved pipeline or flow node is refused exactly as enqueueing it would be.
 * Generic over every registered kind: kinds added later (models.*) just work.
 * `prefix` names where the spec sits in the input (`nodes[1]`).
 * @returns the params as given (defaults are applied again at enqueue time)
 */
export function checkJobSpec(jobs: JobRegistry, kind: string, params: unknown, prefix = '', engine = 'pipelines'): Record<string, unknown> {
  const at = (f: string) => (prefix ? `${prefix}.${f}` : f);
  const def = jobs.get(kind);
  if (!def) throw new AppError('validation', `${engine}: ${at('kind')}: unknown job kind '${kind}'`, { field: at('kind') });
  const r = def.payload.safeParse(params ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = [...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.keys.length) path.push(issue.keys[0]);
    const field = fieldPath(path, at('params'));
    throw new AppError('validation', `${engine}: ${field}: ${issue.message}`, { field, cause: z.prettifyError(r.error) });
  }
  return (params ?? {}) as Record<string, unknown>;
}

/**
 * `checkJobSpec`, then the kind's own checks against the configuration (a
 * table in tables.json, a branch among connections, a run that exists), as
 * `POST /jobs` runs them: a saved pipeline or flow node that could never run
 * is refused when it is saved, not when its schedule fires. A check's field
 * (`params.tables[0]`) is named under `prefix` (`nodes[1].params.tables[0]`).
 */
export async function checkJobSpecWithConfig(db: Pick<pg.Pool, 'query'>, catalog: JobCatalog, kind: string, params: unknown, prefix = '', engine = 'pipelines'): Promise<Record<string, unknown>> {
  const raw = checkJobSpec(catalog.jobs, kind, params, prefix, engine);
  const def = catalog.jobs.get(kind)!;
  if (!def.check) return raw;
  try {
    await def.check({ pool: db as pg.Pool, env: catalog.env }, def.payload.parse(raw) as never);
  } catch (e) {
    const err = toError(e);
    if (!(err instanceof AppError) || err.status !== 400) throw e;
    const own = err.field ?? 'params';
    const field = prefix ? `${prefix}.${own}` : own;
    // A check's message starts with its own field name (`params.tables[0]: unknown table …`): said once, under the prefix.
    const why = err.message.startsWith(`${own}: `) ? err.message.slice(own.length + 2) : err.message;
    throw new AppError('validation', `${engine}: ${field}: ${why}`, { field, cause: err });
  }
  return raw;
}

/** Parse input with a zod schema, throwing AppError('validation') naming the field as `a[1].b`. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, engine: string): z.infer<S> {
  // Saved as text and jsonb, which hold no NUL: refused for every caller (API, CLI files), naming the field.
  assertCleanJson(input);
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = [...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys.length) path.push(issue.keys[0]);
  const field = fieldPath(path) || 'body';
  throw new AppError('validation', `${engine}: ${field}: ${issue.message}`, { field });
}
