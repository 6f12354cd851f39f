import { renderQuery, trackedColumns, type RenderedQuery } from '../sources';
import type { EtlSettings } from './settings';
import type { Unit } from './run-types';

/** The unit's extraction query in its branch's dialect: the mode's filter, typed by the described CDC / date columns, from its watermark. */
export function renderUnit(u: Pick<Unit, 'def' | 'branch' | 'columns' | 'watermark'>, mode: EtlSettings['mode']): RenderedQuery {
  const tr = trackedColumns(u.def.spec);
  const col = (n: string | null) => (n ? u.columns?.find((c) => c.name === n)?.type ?? null : null);
  const q = renderQuery(u.def.spec, u.branch.source.dialect === 'oracle' ? 'oracle' : 'postgres', {
    mode, cdcType: col(tr.cdc), dateType: col(tr.date), watermark: u.watermark ?? null,
  });
  return { ...q, table: u.def.source };
}
