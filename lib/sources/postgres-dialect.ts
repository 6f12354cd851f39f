import type { SourceExecutor } from './source-executor';
import { AppError } from '../errors';
import type { ColumnCandidate, ColumnKind, ExplainResult, PartitionSlice, PhysicalPlan, PhysicalRange, SourceDialect } from './dialect';

const KIND_BY_TYPE: Record<string, ColumnKind> = {
  smallint: 'number', integer: 'number', bigint: 'number', numeric: 'number', real: 'number', 'double precision': 'number',
  date: 'date', 'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz',
};
const CAST: Record<ColumnKind, string> = { number: '', date: '::date', timestamp: '::timestamp', timestamptz: '::timestamptz' };

/** Bare column name for catalog look-ups: `s.Col` → `col` (unquoted identifiers fold to lower case). */
function bareColumn(column: string): string {
  return column.split('.').at(-1)!.toLowerCase();
}

/** `'(12,0)'::tid` for the first tuple slot of block 12. */
export const tidLiteral = (block: number) => `'(${block},0)'::tid`;

/** ctid block ranges: pure, for tests. Ranges are half-open on blocks [lo, hi). */
export function ctidRanges(blocks: number, chunks: number): PhysicalRange[] {
  const n = Math.max(1, Math.min(chunks, blocks));
  const step = Math.max(1, Math.ceil(blocks / n));
  const out: PhysicalRange[] = [];
  for (let lo = 0; lo < Math.max(blocks, 1); lo += step) out.push({ lo: String(lo), hi: String(lo + step) });
  return out;
}

/** ctid predicate: half-open block range; first open below, last open above, single slice 1=1. */
export function ctidPredicate(alias: string, r: PhysicalRange, pos: { first: boolean; last: boolean }): string {
  if (pos.first && pos.last) return '1=1';
  if (pos.first) return `${alias}.ctid < ${tidLiteral(Number(r.hi))}`;
  if (pos.last) return `${alias}.ctid >= ${tidLiteral(Number(r.lo))}`;
  return `${alias}.ctid >= ${tidLiteral(Number(r.lo))} AND ${alias}.ctid < ${tidLiteral(Number(r.hi))}`;
}

/** Percent for TABLESAMPLE SYSTEM to yield about `want` rows out of an estimated `est`. */
export function samplePercent(want: number, est: number): number {
  if (!(est > 0)) return 100;
  return Math.min(100, Math.max(0.0001, (100 * want) / est));
}

/**
 * Relations holding the table's rows: its leaf partitions, or the table itself
 * (pg_partition_tree returns nothing for a plain table). Used as `FROM ${LEAVES} t`.
 */
const LEAVES = `(SELECT p.relid FROM pg_partition_tree(to_regclass($1)) p WHERE p.isleaf
   UNION SELECT to_regclass($1) WHERE NOT EXISTS (SELECT 1 FROM pg_partition_tree(to_regclass($1)))) t`;

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; Schema?: string; Alias?: string; 'Index Name'?: string; 'Plan Rows'?: number; Plans?: PlanNode[] }

export class PostgresDialect implements SourceDialect {
  readonly engine = 'postgres' as const;
  readonly physicalLabel = 'ctid';
  constructor(readonly exec: SourceExecutor) {}

  private async one<T>(sql: string, params: unknown[], purpose: 'catalog' | 'sample' = 'catalog'): Promise<T | undefined> {
    return (await this.exec.query<T>(sql, params, { purpose }))[0];
  }

  async assertTable(table: string): Promise<void> {
    const r = await this.one<{ oid: string | null }>('SELECT to_regclass($1)::oid AS oid', [table]);
    if (!r?.oid) throw new AppError('validation', `✗ table ${table} not found on the source`, { field: 'table' });
  }

  async isPartitioned(table: string): Promise<boolean> {
    const r = await this.one<{ p: boolean }>(
      `SELECT c.relkind = 'p' OR EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = c.oid) AS p FROM pg_class c WHERE c.oid = to_regclass($1)`, [table]);
    return r?.p ?? false;
  }

  async partitions(table: string, opts: { subpartitions: boolean; templateRef: string }): Promise<PartitionSlice[]> {
    const rows = await this.exec.query<{ name: string; level: number; relkind: string; has_children: boolean; parent_relkind: string }>(
      `WITH RECURSIVE tree AS (
         SELECT i.inhrelid AS relid, 1 AS level FROM pg_inherits i WHERE i.inhparent = to_regclass($1)
         UNION ALL
         SELECT i.inhrelid, t.level + 1 FROM pg_inherits i JOIN tree t ON i.inhparent = t.relid)
       SELECT t.relid::regclass::text AS name, t.level, c.relkind::text AS relkind,
              EXISTS (SELECT 1 FROM pg_inherits x WHERE x.inhparent = t.relid) AS has_children,
              (SELECT p.relkind::text FROM pg_class p WHERE p.oid = to_regclass($1)) AS parent_relkind
       FROM tree t JOIN pg_class c ON c.oid = t.relid
       ORDER BY t.relid::regclass::text`, [table], { purpose: 'catalog' });
    if (rows.length === 0) return [];
    const out: PartitionSlice[] = [];
    // An inheritance parent (relkind r) holds rows of its own: read them with ONLY.
    if (rows[0].parent_relkind === 'r') out.push({ name: `ONLY ${opts.templateRef}`, tableRef: `ONLY ${opts.templateRef}` });
    for (const r of rows) {
      if (!opts.subpartitions) {
        if (r.level === 1) out.push({ name: r.name, tableRef: r.name });
      } else if (!r.has_children) {
        out.push({ name: r.name, tableRef: r.name });
      } else if (r.relkind === 'r') {
        out.push({ name: `ONLY ${r.name}`, tableRef: `ONLY ${r.name}` });
      }
    }
    return out;
  }

  async physicalRanges(table: string, chunks: number): Promise<PhysicalPlan> {
    // Blocks of the largest leaf: on a partitioned table every partition has
    // its own ctids, and a block range applies to each of them.
    const r = await this.one<{ blocks: string }>(
      `SELECT coalesce(max(greatest(c.relpages::bigint, pg_relation_size(t.relid) / current_setting('block_size')::bigint)), 0) AS blocks
       FROM ${LEAVES} JOIN pg_class c ON c.oid = t.relid`, [table]);
    return { ranges: ctidRanges(Number(r?.blocks ?? 0), chunks), method: 'relpages' };
  }

  async estimatedRows(table: string): Promise<number> {
    const r = await this.one<{ rows: string }>(
      `SELECT greatest(sum(CASE WHEN c.reltuples > 0 THEN c.reltuples ELSE pg_relation_size(t.relid) / 8192.0 * 50 END), 0) AS rows
       FROM ${LEAVES} JOIN pg_class c ON c.oid = t.relid`, [table]);
    return Number(r?.rows ?? 0);
  }

  physicalPredicate(alias: string, r: PhysicalRange, pos: { first: boolean; last: boolean }): string {
    return ctidPredicate(alias, r, pos);
  }

  async columnKind(table: string, column: string): Promise<ColumnKind> {
    const r = await this.one<{ type: string }>(
      `SELECT format_type(a.atttypid, NULL) AS type FROM pg_attribute a
       WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`, [table, bareColumn(column)]);
    if (!r) throw new AppError('validation', `✗ column ${column} not found in ${table}`, { field: 'column' });
    const kind = KIND_BY_TYPE[r.type];
    if (!kind) throw new AppError('validation', `✗ column ${column} must be numeric, date or timestamp for --strategy column (it is ${r.type})`, { field: 'column' });
    return kind;
  }

  async sampleColumn(table: string, column: string, _kind: ColumnKind, sampleRows: number): Promise<string[]> {
    const col = `"${bareColumn(column)}"`;
    let pct = samplePercent(sampleRows, await this.estimatedRows(table));
    for (;;) {
      // SYSTEM sampling reads pct% of the pages (sized for ~sampleRows); the
      // LIMIT is a backstop for stale statistics. It is loose (3×) because a
      // LIMIT that truncates keeps the first pages only and skews the bounds.
      const rows = await this.exec.query<{ v: string }>(
        `SELECT q.v::text AS v FROM (SELECT s.${col} AS v FROM ${table} s TABLESAMPLE SYSTEM (${pct}) WHERE s.${col} IS NOT NULL LIMIT ${sampleRows * 3}) q ORDER BY q.v`,
        [], { purpose: 'sample' });
      if (rows.length > 0 || pct >= 100) return rows.map((r) => r.v);
      pct = Math.min(100, pct * 10);
    }
  }

  literal(value: string, kind: ColumnKind): string {
    if (kind === 'number') {
      if (!/^-?[0-9.eE+-]+$/.test(value) && !/^-?(Infinity|NaN)$/.test(value)) throw new AppError('validation', `slices: not a number: ${value}`);
      return /^-?(Infinity|NaN)$/.test(value) ? `'${value}'::numeric` : value;
    }
    return `'${value.replace(/'/g, "''")}'${CAST[kind]}`;
  }

  async columnCandidates(table: string, limit: number): Promise<ColumnCandidate[]> {
    const rows = await this.exec.query<{ column: string; type: string; indexed: boolean; ndv: number | null }>(
      `SELECT a.attname AS column, format_type(a.atttypid, NULL) AS type,
              EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indkey[0] = a.attnum) AS indexed,
              (SELECT CASE WHEN s.n_distinct >= 0 THEN s.n_distinct ELSE -s.n_distinct * greatest(c.reltuples, 0) END
                 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
                 ORDER BY s.inherited DESC LIMIT 1)::float8 AS ndv
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       WHERE c.oid = to_regclass($1)
         AND format_type(a.atttypid, NULL) = ANY ($2::text[])`, [table, Object.keys(KIND_BY_TYPE)], { purpose: 'catalog' });
    return rows
      .filter((r) => r.indexed && (r.ndv === null || r.ndv > 1))
      .map((r) => ({ column: r.column, kind: KIND_BY_TYPE[r.type], indexed: r.indexed, ndv: r.ndv === null ? null : Number(r.ndv) }))
      .sort((a, b) => (b.ndv ?? -1) - (a.ndv ?? -1))
      .slice(0, limit);
  }

  async tableBytes(table: string): Promise<number> {
    const r = await this.one<{ bytes: string }>(
      `SELECT coalesce(sum(pg_relation_size(t.relid)), 0) AS bytes FROM ${LEAVES}`, [table]);
    return Number(r?.bytes ?? 0);
  }

  rowCap(sql: string, n: number): string {
    return `SELECT * FROM (${sql}) tributary_cap LIMIT ${n}`;
  }

  async explain(sql: string, driving: { table: string; alias: string }): Promise<ExplainResult> {
    const r = await this.exec.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON, VERBOSE) ${sql}`, [], { purpose: 'explain' });
    const root = r[0]['QUERY PLAN'][0].Plan;
    const scans: PlanNode[] = [];
    const lines: string[] = [];
    const walk = (n: PlanNode, depth: number) => {
      const rel = n['Relation Name'] ? ` on ${n.Schema ? n.Schema + '.' : ''}${n['Relation Name']}${n.Alias && n.Alias !== n['Relation Name'] ? ' ' + n.Alias : ''}` : '';
      lines.push(`${'  '.repeat(depth)}${n['Node Type']}${n['Index Name'] ? ' using ' + n['Index Name'] : ''}${rel} (rows=${n['Plan Rows'] ?? '?'})`);
      if (n['Relation Name']) scans.push(n);
      for (const c of n.Plans ?? []) walk(c, depth + 1);
    };
    walk(root, 0);
    const alias = driving.alias.toLowerCase();
    // Partition children appear as alias_1, alias_2…
    const isDriving = (n: PlanNode) => { const a = (n.Alias ?? '').toLowerCase(); return a === alias || a.startsWith(alias + '_'); };
    const d = scans.find(isDriving) ?? scans[0];
    const accessPath = d ? `${d['Node Type']}${d['Index Name'] ? ' ' + d['Index Name'] : ''}` : root['Node Type'];
    const fullScans: ExplainResult['fullScans'] = [];
    for (const n of scans) {
      if (isDriving(n) || n['Node Type'] !== 'Seq Scan') continue;
      const name = `${n.Schema ?? 'public'}.${n['Relation Name']}`;
      const est = await this.one<{ rows: number }>('SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = to_regclass($1)', [name]);
      // Never analysed (reltuples -1): fall back to the planner's estimate.
      fullScans.push({ table: name, rows: est && Number(est.rows) > 0 ? Number(est.rows) : n['Plan Rows'] ?? null });
    }
    return { accessPath, fullScans, lines };
  }
}
