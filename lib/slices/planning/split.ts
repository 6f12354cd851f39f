import type { Logger } from '../../log';
import { columnPredicates, equiDepthBounds, type SourceDialect } from '../../sources';
import { flattenSql, renderSlice, type QueryTemplate } from './template';
import { fieldOf, planningError, validateColumn, type FieldStyle, type Strategy } from './validate';

/** One planned slice. */
export interface PlannedSlice {
  /** 1-based position in boundary order. */
  index: number;
  /** The slice SQL on one line (what the queryfile holds). */
  sql: string;
  /** The injected predicate (`1=1` for partitions). */
  predicate: string;
  /** Lower bound as text (ROWID, ctid, column literal, partition name); absent when open. */
  lo?: string;
  /** Upper bound as text; absent when open. */
  hi?: string;
  /** Partition / child relation read by this slice. */
  partition?: string;
}

export interface SplitPlan {
  /** The strategy actually used (`auto` resolved). */
  strategy: Exclude<Strategy, 'auto'>;
  /** Physical method (`dbms_parallel_execute`, `dba_extents`, `ntile`, `relpages`), column name, or `partition`. */
  method: string;
  slices: PlannedSlice[];
}

export interface SplitOptions {
  dialect: SourceDialect;
  /** How errors name fields (CLI flags or job params). (Default: flag) */
  style?: FieldStyle;
  template: QueryTemplate;
  /** (Default: auto — partition when the table is partitioned, else physical) */
  strategy?: Strategy;
  /** Required for --strategy column. */
  column?: string;
  /** Number of slices wanted; required unless the (resolved) strategy is partition, which ignores it. */
  chunks?: number;
  /** One slice per subpartition / leaf. (Default: false) */
  subpartitions?: boolean;
  /** Render every slice `AS OF SCN <scn>` (Oracle). */
  asOfScn?: string;
  /** Values sampled for column boundaries. (Default: 100000) */
  sampleRows?: number;
  /** Probe mode: no method may read the whole table (Oracle NTILE is replaced by sampled ROWIDs). (Default: false) */
  bounded?: boolean;
  logger?: Logger;
}

/** Plan the slices of one template: disjoint and complete by construction. */
export async function planSplit(o: SplitOptions): Promise<SplitPlan> {
  const { dialect, template: t } = o;
  const style = o.style ?? 'flag';
  const nm = (f: string) => fieldOf(style, f);
  await dialect.assertTable(t.table);
  const refText = t.sql.slice(t.ref.start, t.ref.end);
  if (o.asOfScn !== undefined && !dialect.asOf) {
    throw planningError(style, `${nm('asOfScn')} is only supported for Oracle sources (this source is ${dialect.engine})`, 'asOfScn');
  }
  const asOf = (ref: string) => (o.asOfScn !== undefined && dialect.asOf ? dialect.asOf(ref, o.asOfScn) : undefined);
  let strategy = o.strategy ?? 'auto';
  if (strategy === 'auto') strategy = (await dialect.isPartitioned(t.table)) ? 'partition' : 'rowid';
  if (strategy !== 'partition' && o.chunks === undefined) {
    throw planningError(style, `${nm('chunks')} N is required for ${nm('strategy')} ${o.strategy === 'auto' || !o.strategy ? `auto on ${t.table} (not partitioned, so it splits by rowid)` : strategy} (run tributary slices probe for a recommendation)`, 'chunks');
  }
  const chunks = o.chunks ?? 1;
  const render = (predicate: string, tableRef?: string) => flattenSql(renderSlice(t, { predicate, tableRef: tableRef ?? asOf(refText) }), style);

  if (strategy === 'partition') {
    const parts = await dialect.partitions(t.table, { subpartitions: o.subpartitions ?? false, templateRef: refText });
    if (parts.length === 0) throw planningError(style, `table ${t.table} is not partitioned: use ${nm('strategy')} rowid or ${nm('strategy')} column`, 'strategy');
    const slices = parts.map((p, i) => ({
      index: i + 1, predicate: '1=1', lo: p.name, hi: p.name, partition: p.name,
      sql: render('1=1', asOf(p.tableRef) ?? p.tableRef),
    }));
    return { strategy, method: o.subpartitions ? 'subpartition' : 'partition', slices };
  }

  if (strategy === 'rowid') {
    const plan = await dialect.physicalRanges(t.table, chunks, { bounded: o.bounded, sampleRows: o.sampleRows });
    const n = plan.ranges.length;
    const slices = plan.ranges.map((r, i) => {
      const pos = { first: i === 0, last: i === n - 1 };
      const predicate = dialect.physicalPredicate(t.alias, r, pos);
      return { index: i + 1, predicate, lo: pos.first ? undefined : r.lo, hi: pos.last ? undefined : r.hi, sql: render(predicate) };
    });
    o.logger?.info('slices: physical split', { table: t.table, method: plan.method, slices: n });
    return { strategy, method: plan.method, slices };
  }

  if (!o.column) throw planningError(style, `${nm('column')} is required for ${nm('strategy')} column`, 'column');
  const column = validateColumn(o.column, style);
  const qualified = column.includes('.') ? column : `${t.alias}.${column}`;
  const kind = await dialect.columnKind(t.table, column);
  let literals: string[] = [];
  if (chunks > 1) {
    const sample = await dialect.sampleColumn(t.table, column, kind, o.sampleRows ?? 100_000);
    literals = equiDepthBounds(sample, chunks).map((v) => dialect.literal(v, kind));
  }
  const slices = columnPredicates(qualified, literals).map((p, i) => ({ index: i + 1, ...p, sql: render(p.predicate) }));
  o.logger?.info('slices: column split', { table: t.table, column, slices: slices.length });
  return { strategy, method: column, slices };
}
