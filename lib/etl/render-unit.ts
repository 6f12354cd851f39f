import { renderQuery, trackedColumns, type RenderedQuery } from '../sources';
import type { EtlSettings } from './settings';
import type { Unit } from './run-types';
import type { TableDef } from '../config/tables-json';

/**
 * The mode a unit reads in: the run's, except for a keyless (query) entry, which has no key to
 * merge changes on and is read whole at every run, as an INITIAL reads it (its INITIAL range
 * applies), then replaces its branches' rows (load-table.ts) — dlt's `replace` disposition.
 */
export function unitMode(def: Pick<TableDef, 'uniqueKey'>, mode: EtlSettings['mode']): EtlSettings['mode'] {
  return def.uniqueKey.length ? mode : 'INITIAL';
}

/** The unit's extraction query in its branch's dialect: the mode's filter, typed by the described CDC / date columns, from its watermark. */
export function renderUnit(u: Pick<Unit, 'def' | 'branch' | 'columns' | 'watermark'>, mode: EtlSettings['mode']): RenderedQuery {
  const tr = trackedColumns(u.def.spec);
  const col = (n: string | null) => (n ? u.columns?.find((c) => c.name === n)?.type ?? null : null);
  const q = renderQuery(u.def.spec, u.branch.source.dialect === 'oracle' ? 'oracle' : 'postgres', {
    mode: unitMode(u.def, mode), cdcType: col(tr.cdc), dateType: col(tr.date), watermark: u.watermark ?? null,
  });
  return { ...q, table: u.def.source };
}
