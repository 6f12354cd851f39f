import { fanOut, type FanoutDeps } from '../jobs/fanout';
import type { Bind, SourceColumn } from '../sources';
import type { EtlRequest } from './request';
import type { UnitDispatch } from './runner';
import type { Unit } from './run-types';
import type { EtlUnitPayload } from './unit-payload';
import type { UnitOutcome } from './unit-run';
import { schemaToJson } from './unit-schema';

/**
 * The coordinator's side of a fanned-out ETL run: each open unit of a phase
 * becomes an `etl.unit` job that any worker may take (the coordinator too,
 * when nobody else does), bounded per branch over all workers by a database
 * semaphore of min(maxTableWorkers, poolSize) slots. Each unit's one
 * successful attempt lands on the unit as if it had been extracted here, so
 * the loads, watermarks and control tables that follow are the single-worker
 * ones. A table with no schema yet (every describe failed in the schema step)
 * is extracted here: only this process may evolve the lake mid-run.
 *
 * Units the other workers have no free slot for start here at once, a few at
 * a time (the rest stay queued for whichever worker frees a slot first); when
 * no other worker has room, up to the parallelism the run would have in one
 * process (branches × maxTableWorkers).
 */
export function fanoutDispatch(d: Omit<FanoutDeps, 'logger' | 'signal'> & { request: EtlRequest }): UnitDispatch {
  return async (ctx, units, states, onUnitDone, local) => {
    const s = ctx.settings;
    const slots = Math.max(1, Math.min(s.maxTableWorkers, d.request.poolSize ?? s.poolSize));
    const here = units.filter((u) => !states.get(u.def.lakeName)!.schema);
    const away = units.filter((u) => states.get(u.def.lakeName)!.schema);
    const byKey = new Map(away.map((u) => [`${u.phase}:${u.def.lakeName}@${u.branch.key}`, u]));
    const branchCount = new Set(units.map((u) => u.branch.key)).size;
    await Promise.all([
      local(here),
      fanOut({ ...d, logger: ctx.log, signal: ctx.signal, inlineMaxAlone: Math.max(1, branchCount * s.maxTableWorkers) }, [...byKey].map(([key, u]) => ({
        key, kind: 'etl.unit',
        params: (attempt: number): EtlUnitPayload => ({
          parentRunId: d.parentRunId, runId: ctx.runId, attempt, request: d.request, phase: u.phase, table: u.def.lakeName, branch: u.branch.key,
          columns: (u.columns ?? null) as EtlUnitPayload['columns'], watermark: u.watermark ?? null, schema: schemaToJson(states.get(u.def.lakeName)!.schema!),
          loadTime: ctx.loadTime.toString(), slots,
        }),
      })), (o) => {
        const u = byKey.get(o.key)!;
        if (o.workerId) u.workerId = o.workerId;
        if (!o.ok) {
          u.status = 'FAILED'; u.fatal = false; u.attempts = o.attempt; u.finishedAt = new Date();
          u.error = `etl: unit ${u.def.lakeName}@${u.branch.key} was lost ${o.attempt} times: ${o.error}`;
        } else {
          applyOutcome(u, o.result as UnitOutcome);
        }
        onUnitDone(u);
      }),
    ]);
  };
}

function applyOutcome(u: Unit, r: UnitOutcome): void {
  u.status = r.status; u.fatal = r.fatal; u.error = r.error; u.attempts = r.attempts; u.rows = r.rows; u.dropped = r.dropped ?? 0;
  u.files = r.files.map((f) => ({ ...f }));
  if (r.deleteKeys) u.deleteKeys = r.deleteKeys;
  u.stats = { rows: r.rows, max: Object.fromEntries(Object.entries(r.max).map(([k, v]) => [k, v === null ? null : { text: v, cmp: v }])) };
  if (r.columns) u.columns = r.columns as SourceColumn[];
  if (r.sql) u.query = { sql: r.sql, binds: (r.binds ?? []) as Bind[] };
  u.startedAt = new Date(r.startedAt); u.finishedAt = new Date(r.finishedAt);
}
