import type pg from 'pg';
import { withTransaction } from '../../db/with-transaction';
import { AppError } from '../../errors';

/** One slice to register: its SQL, target table and (optionally) its bounds and injected predicate. */
export interface SliceSpec {
  query: string;
  target: string;
  lo?: string | null;
  hi?: string | null;
  predicate?: string | null;
}

/**
 * Register a run's slices as NEW (seed 001, step 9), in one transaction.
 * Creates the run row when missing; when the run already has current rows this
 * starts a new registration generation and retires the old rows
 * (iscurrentrow = false), keeping their history. Returns the number of slices
 * registered. Roworder is 1-based, in the given order.
 */
export async function registerSlices(
  pool: pg.Pool,
  input: { runId: number; slices: SliceSpec[]; executor?: 'striim' | 'native'; queryFile?: string | null },
): Promise<number> {
  const { runId, slices } = input;
  if (!Number.isInteger(runId) || runId < 1) throw new AppError('validation', `slices: run id must be a positive integer, got ${runId}`);
  if (slices.length === 0) throw new AppError('validation', 'slices: no slices to register');
  for (const [i, s] of slices.entries()) {
    if (!s.query?.trim()) throw new AppError('validation', `slices: slice ${i + 1} has an empty query`);
    if (!s.target?.trim() || s.target.includes('|')) throw new AppError('validation', `slices: slice ${i + 1}: target must be non-empty and must not contain '|'`);
  }
  return withTransaction(pool, async (client) => {
    // Serialise registrations of one run id across processes.
    await client.query('select pg_advisory_xact_lock($1, $2)', [REGISTER_LOCK_CLASS, runId]);
    // The generation counts registrations: one past the last registered one. A run row the run lock
    // created (a `slices run` before any slice was registered) has no registration yet, so the first
    // registration is generation 1 whatever the row says.
    const last = await client.query<{ g: number }>('select coalesce(max(generation), 0)::int as g from striim_orchestration where uniquerunid = $1', [runId]);
    const next = last.rows[0].g + 1;
    const run = await client.query<{ generation: number }>(
      `insert into slice_runs (run_id, generation, executor, query_file, fresh_marker)
       values ($1, $4, coalesce($2, 'striim'), $3, true)
       on conflict (run_id) do update set
         generation = $4,
         executor = coalesce($2, slice_runs.executor),
         query_file = coalesce($3, slice_runs.query_file),
         fresh_marker = true, verdict = null, started_at = null, finished_at = null,
         watermark_label = null, watermark_value = null, watermark_captured_at = null, watermark_source_dsn = null,
         updated_at = now()
       returning generation`,
      [runId, input.executor ?? null, input.queryFile ?? null, next],
    );
    const generation = run.rows[0].generation;
    await client.query(`update striim_orchestration set iscurrentrow = false, updated_at = now()
                        where uniquerunid = $1 and iscurrentrow`, [runId]);
    // One multi-row insert per 500 slices keeps statements small.
    for (let off = 0; off < slices.length; off += 500) {
      const chunk = slices.slice(off, off + 500);
      const params: unknown[] = [];
      const values = chunk.map((s, j) => {
        const b = params.length;
        params.push(off + j + 1, runId, generation, s.query.trim(), s.target.trim(), s.lo ?? null, s.hi ?? null, s.predicate ?? null, input.executor ?? null);
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, 'NEW', true, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9})`;
      });
      await client.query(
        `insert into striim_orchestration (roworder, uniquerunid, generation, query, targettbl, status, iscurrentrow, slice_lo, slice_hi, slice_predicate, executor)
         values ${values.join(', ')}`,
        params,
      );
    }
    return slices.length;
  });
}

/** Advisory-lock class for slice registration (the run lock uses RUN_LOCK_CLASS). */
export const REGISTER_LOCK_CLASS = 74_130;
