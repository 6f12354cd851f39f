import { BRANCH_ID, DELETED_AT, INJECTED } from '../config/lake-columns';
import { AppError, toError } from '../errors';
import type { Logger } from '../log';
import { HELPER_CDC, HELPER_DATE, fromArrowType, lakeKeys, namedColumn, renderDescribe, typeToString, type SourceColumn } from '../sources';
import { renderUnit } from './render-unit';
import type { BranchHandle, RunContext, TableState, Unit } from './run-types';
import { describedUnitProblem } from './plan-checks';
import { runPool } from '../concurrency';
import { inferNumeric, unionSchemas, type UnionColumn } from '../sources';
import type { TableDef } from '../config/tables-json';
import { DEFAULT_NAMING } from '../config/naming';

/**
 * The schema step: what each branch projects, and the lake table that holds
 * the union of it. Runs up front for a whole phase (so each table's schema is
 * known before staging) and again for a unit whose describe failed and is retried.
 */

type SchemaContext = Pick<RunContext, 'settings' | 'target' | 'log' | 'signal' | 'plan' | 'summary'>;

/** Describe the unit's query on its branch; unconstrained numerics get a precision/scale profiled from the rows. */
export async function describeUnit(ctx: Pick<RunContext, 'settings' | 'signal'>, u: Unit): Promise<SourceColumn[]> {
  const src = u.branch.source;
  const d = renderDescribe(u.def.spec, src.dialect === 'oracle' ? 'oracle' : 'postgres');
  let cols = await src.describe({ ...d, table: u.def.source }, ctx.signal);
  // compared without regard to case, as the lake's union and case-insensitive engines (Spark, Trino) compare names
  const reserved = (n: string) => [BRANCH_ID, ...INJECTED].some((x) => x.toLowerCase() === n.toLowerCase());
  for (const c of cols) {
    if (reserved(c.name) || reserved(namedColumn(u.def, c))) {
      throw new AppError('validation', `etl: ${u.def.source} on branch ${u.branch.key} projects the reserved column ${c.name} (alias it)`);
    }
  }
  const inferred = cols.filter((c) => c.inferred).map((c) => c.name);
  if (inferred.length) {
    const q = renderUnit({ ...u, columns: cols }, ctx.settings.mode);
    const prof = await src.profileNumeric({ ...q, table: u.def.source }, inferred, ctx.signal);
    // the digits go along to the union: an inferred type alone would be taken for a declared one (schema-union.ts unionProfiled)
    cols = cols.map((c) => {
      if (!c.inferred) return c;
      const need = { intDigits: Number(prof[c.name]?.intDigits) || 0, scale: Number(prof[c.name]?.scale) || 0 };
      return { ...c, type: inferNumeric(need), inferred: false, need };
    });
  }
  return cols;
}

/**
 * The described columns that go to the lake, named by the table's convention (the helper's
 * CDC / date projections are for the watermark only).
 */
export function dataColumns(cols: SourceColumn[], def: Pick<TableDef, 'naming'> = { naming: DEFAULT_NAMING }): UnionColumn[] {
  return cols.filter((c) => c.name !== HELPER_CDC && c.name !== HELPER_DATE).map((c) => ({ name: namedColumn(def, c), type: c.type, ...(c.need ? { need: c.need } : {}) }));
}

/** Union the described branches (and the lake's columns) and create/evolve the lake table. Serialised per table. */
export async function widenTable(ctx: SchemaContext, st: TableState, described: Unit[]): Promise<void> {
  const prev = st.lock;
  let release!: () => void;
  st.lock = new Promise((r) => { release = r; });
  await prev;
  try {
    const base = st.schema ? st.schema.fields.filter((f) => !INJECTED.includes(f.name)).map((f) => ({ name: f.name, type: fromArrowType(f.type) })) : st.lakeColumns ?? undefined;
    const u = unionSchemas(Object.fromEntries(described.map((x) => [x.branch.key, dataColumns(x.columns!, st.def)])), base);
    if (!st.schema) st.drift = u.drift;
    else for (const d of u.drift) if (!st.drift.some((x) => x.column === d.column && x.kind === d.kind)) st.drift.push(d);
    if (st.drift.length) { ctx.summary.drift[st.def.lakeName] = st.drift; ctx.log.warn('schema drift', { table: st.def.lakeName, drift: st.drift }); }
    if (ctx.plan) return;
    const soft = st.def.deletes.soft;
    const fits = st.schema && u.columns.every((c) => st.schema!.fields.some((f) => f.name === c.name && typeToString(fromArrowType(f.type)) === typeToString(c.type)))
      && (!soft || st.schema.fields.some((f) => f.name === DELETED_AT));
    if (!fits) st.schema = await ctx.target.prepare(st.def.lakeName, u.columns, { keys: lakeKeys(st.def, u.columns.map((c) => c.name)), softDelete: soft });
  } finally { release(); }
}

/**
 * A phase's schema step: describe every live unit (branches in parallel,
 * `maxTableWorkers` per branch), then union and create/evolve each table.
 * A describe error stays on its unit (its extraction retries it); a table
 * whose union or lake change fails fails its open units as fatal.
 * Returns true when some table failed so.
 */
export async function prepareSchemas(ctx: SchemaContext, plog: Logger, branches: BranchHandle[], states: Map<string, TableState>, live: Unit[]): Promise<boolean> {
  await runPool(branches, branches.length, async (b) => {
    await runPool(live.filter((u) => u.branch === b), ctx.settings.maxTableWorkers, async (u) => {
      const t = Date.now();
      try { u.columns = await describeUnit(ctx, u); } catch (e) { u.describeError = toError(e); }
      ctx.log.debug('described', { table: u.def.lakeName, branch: u.branch.key, ms: Date.now() - t, error: u.describeError?.message });
      const why = u.columns ? describedUnitProblem(u.def, u.columns) : null;
      if (why) { u.status = 'REFUSED'; u.error = why; u.attempts = 1; u.finishedAt = new Date(); plog.warn('unit refused', { table: u.def.lakeName, branch: u.branch.key, error: why }); }
    });
  });
  let failed = false;
  // every table's lake columns at once (a catalog read and a metadata load each): a phase of many
  // small tables paid them one after another; the widening below stays per table
  const known = new Map<TableState, Promise<UnionColumn[] | null>>();
  if (!ctx.plan) {
    for (const st of states.values()) {
      const p = ctx.target.columns(st.def.lakeName);
      p.catch(() => {}); // awaited (and its error kept) in the loop below
      known.set(st, p);
    }
  }
  for (const st of states.values()) {
    try {
      st.lakeColumns = ctx.plan ? null : await known.get(st)!;
      // a refused unit's columns never reach the lake: a table all of whose units are refused is not created
      const described = st.units.filter((u) => u.columns && !u.status);
      if (!described.length && !st.lakeColumns) continue; // nothing known yet: the units' own retries decide
      await widenTable(ctx, st, described);
    } catch (e) {
      st.error = toError(e).message;
      for (const u of st.units) if (!u.status) { u.status = 'FAILED'; u.fatal = true; u.error = st.error; u.attempts = 1; }
      failed = true;
      plog.error('table schema failed', { table: st.def.lakeName, error: st.error });
    }
  }
  return failed;
}
