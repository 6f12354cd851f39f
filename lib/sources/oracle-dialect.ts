import crypto from 'node:crypto';
import type { Logger } from '../log';
import type { SourceExecutor } from './source-executor';
import { equiDepthBounds } from './column-range';
import { AppError } from '../errors';
import * as q from './oracle-dialect-sql';
import type { ColumnCandidate, ColumnKind, ExplainResult, PartitionSlice, PhysicalPlan, PhysicalRange, SourceDialect } from './dialect';

/** Which ROWID chunking method to use. (Default: auto — the first the account may use) */
export type RowidMethod = 'auto' | 'dbms_parallel_execute' | 'dba_extents' | 'ntile';

interface PlanRow { id: number; parent_id: number | null; depth: number; operation: string; options: string | null; object_owner: string | null; object_name: string | null; object_alias: string | null; cardinality: number | null }

export class OracleDialect implements SourceDialect {
  readonly engine = 'oracle' as const;
  readonly physicalLabel = 'ROWID';
  constructor(readonly exec: SourceExecutor, private readonly opts: { rowidMethod?: RowidMethod; splitTimeoutMs?: number; logger?: Logger } = {}) {}

  private async one<T>(sql: string): Promise<T | undefined> {
    return (await this.exec.query<T>(sql, [], { purpose: 'catalog' }))[0];
  }

  async assertTable(table: string): Promise<void> {
    const r = await this.one<{ n: number }>(q.tableExistsSql(table));
    if (!r || Number(r.n) === 0) throw new AppError('validation', `✗ table ${table} not found on the source (or not visible in ALL_TABLES)`, { field: 'table' });
  }

  async isPartitioned(table: string): Promise<boolean> {
    return (await this.one<{ partitioned: string }>(q.partitionedSql(table)))?.partitioned === 'YES';
  }

  async partitions(table: string, o: { subpartitions: boolean; templateRef: string }): Promise<PartitionSlice[]> {
    const rows = await this.exec.query<{ name: string }>(o.subpartitions ? q.subpartitionsSql(table) : q.partitionsSql(table), [], { purpose: 'catalog' });
    return rows.map((r) => ({ name: r.name, tableRef: q.partitionRef(o.templateRef, r.name, o.subpartitions) }));
  }

  /**
   * ROWID ranges, by the best method the account may use: DBMS_PARALLEL_EXECUTE
   * (EXECUTE privilege), then DBA_EXTENTS (SELECT on it), then NTILE (any
   * reader). A method the account lacks fails with ORA-00942 / PLS-00201 /
   * ORA-01031 and the next is tried.
   */
  async physicalRanges(table: string, chunks: number, po: { bounded?: boolean; sampleRows?: number } = {}): Promise<PhysicalPlan> {
    const want = this.opts.rowidMethod ?? 'auto';
    const timeoutMs = this.opts.splitTimeoutMs;
    const tried: string[] = [];
    if (chunks <= 1) return { ranges: [{ lo: '', hi: '' }], method: 'single' };
    if (want === 'auto' || want === 'dbms_parallel_execute') {
      const task = `TRIBUTARY_SPLIT_${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
      try {
        const bytes = await this.tableBytes(table);
        const chunkBlocks = Math.max(1, Math.ceil(bytes / 8192 / chunks));
        // The task lives in the data dictionary: not a read-only statement, and never user data.
        await this.exec.query(q.dpeCreateSql(task, table, chunkBlocks), [], { purpose: 'split', readOnly: false, timeoutMs });
        try {
          const rows = await this.exec.query<PhysicalRange>(q.dpeChunksSql(task), [], { purpose: 'split', timeoutMs });
          if (rows.length > 0) return { ranges: q.mergeRanges(rows, chunks), method: 'dbms_parallel_execute' };
        } finally {
          await this.exec.query(q.dpeDropSql(task), [], { purpose: 'split', readOnly: false }).catch(() => {}); // cleanup of the probe's scratch rows: the result was already read
        }
      } catch (e) {
        tried.push(`dbms_parallel_execute: ${(e as Error).message.split('\n')[0]}`);
        if (want !== 'auto') throw e;
      }
    }
    if (want === 'auto' || want === 'dba_extents') {
      try {
        const rows = await this.exec.query<PhysicalRange>(q.extentsRowidSql(table, chunks), [], { purpose: 'split', timeoutMs });
        if (rows.length > 0) return { ranges: rows.map((r) => ({ lo: r.lo, hi: r.hi })), method: 'dba_extents' };
      } catch (e) {
        tried.push(`dba_extents: ${(e as Error).message.split('\n')[0]}`);
        if (want !== 'auto') throw e;
      }
    }
    if (po.bounded) {
      // The probe never reads the whole table: ROWID bounds from a block sample.
      const want = po.sampleRows ?? 100_000;
      const n = await this.estimatedRows(table);
      const pct = n > 0 ? Math.max(0.000001, (100 * want) / n) : 100;
      const sample = await this.exec.query<{ v: string }>(q.sampledRowidSql(table, pct, want * 3), [], { purpose: 'sample' });
      const bounds = equiDepthBounds(sample.map((r) => r.v), chunks);
      const edges = ['', ...bounds];
      // Closed ranges need an upper ROWID: the next range's lower bound is its hi (BETWEEN overlaps by one ROWID at most, so the probe uses it for timing only).
      return { ranges: edges.map((lo, i) => ({ lo, hi: edges[i + 1] ?? '' })), method: 'sampled_rowid' };
    }
    if (tried.length) this.opts.logger?.info('slices: ROWID chunking falls back to NTILE', { tried });
    const rows = await this.exec.query<PhysicalRange>(q.ntileRowidSql(table, chunks), [], { purpose: 'split', timeoutMs });
    return { ranges: rows.length ? rows.map((r) => ({ lo: r.lo, hi: r.hi })) : [{ lo: '', hi: '' }], method: 'ntile' };
  }

  async estimatedRows(table: string): Promise<number> {
    return Number((await this.one<{ n: number }>(q.numRowsSql(table)))?.n ?? 0);
  }

  physicalPredicate(alias: string, r: PhysicalRange, pos: { first: boolean; last: boolean }): string {
    return q.rowidPredicate(alias, r, pos);
  }

  async columnKind(table: string, column: string): Promise<ColumnKind> {
    const r = await this.one<{ data_type: string }>(q.columnTypeSql(table, column));
    if (!r) throw new AppError('validation', `✗ column ${column} not found in ${table}`, { field: 'column' });
    const kind = q.oraKind(r.data_type);
    if (!kind) throw new AppError('validation', `✗ column ${column} must be numeric, date or timestamp for --strategy column (it is ${r.data_type})`, { field: 'column' });
    return kind;
  }

  async sampleColumn(table: string, column: string, kind: ColumnKind, sampleRows: number): Promise<string[]> {
    const n = await this.estimatedRows(table);
    let pct = n > 0 ? Math.max(0.000001, (100 * sampleRows) / n) : 100;
    for (;;) {
      const rows = await this.exec.query<{ v: string }>(q.sampleSql(table, column, kind, pct, sampleRows * 3), [], { purpose: 'sample' });
      if (rows.length > 0 || pct >= 100) return rows.map((r) => r.v);
      pct = Math.min(100, pct * 10);
    }
  }

  literal(value: string, kind: ColumnKind): string {
    return q.oraLiteral(value, kind);
  }

  async columnCandidates(table: string, limit: number): Promise<ColumnCandidate[]> {
    const rows = await this.exec.query<{ column: string; type: string; ndv: number | null }>(q.candidatesSql(table, limit), [], { purpose: 'catalog' });
    return rows.flatMap((r) => {
      const kind = q.oraKind(r.type);
      return kind ? [{ column: r.column, kind, indexed: true, ndv: r.ndv === null ? null : Number(r.ndv) }] : [];
    });
  }

  /** dba_segments, falling back to all_tables.blocks × 8K without that privilege. */
  async tableBytes(table: string): Promise<number> {
    try {
      return Number((await this.one<{ bytes: number }>(q.segmentBytesSql(table)))?.bytes ?? 0);
    } catch {
      return Number((await this.one<{ bytes: number }>(q.tableBlocksBytesSql(table)))?.bytes ?? 0);
    }
  }

  rowCap(sql: string, n: number): string {
    return q.oraRowCap(sql, n);
  }

  async explain(sql: string, driving: { table: string; alias: string }): Promise<ExplainResult> {
    const id = `TRIB_${crypto.randomBytes(6).toString('hex').toUpperCase()}`;
    // EXPLAIN PLAN writes the session's PLAN_TABLE rows (a temporary table): not read-only.
    await this.exec.query(q.explainPlanSql(id, sql), [], { purpose: 'explain', readOnly: false });
    let rows: PlanRow[];
    try {
      rows = await this.exec.query<PlanRow>(q.planRowsSql(id), [], { purpose: 'explain' });
    } finally {
      await this.exec.query(q.planDeleteSql(id), [], { purpose: 'explain', readOnly: false }).catch(() => {}); // cleanup of the probe's scratch rows: the result was already read
    }
    return summarizeOraclePlan(rows, driving);
  }

  asOf(ref: string, scn: string): string {
    return q.asOfScn(ref, scn);
  }

  /** v$database.current_scn, falling back to DBMS_FLASHBACK. */
  async currentScn(): Promise<string> {
    try {
      return String((await this.exec.query<{ scn: unknown }>(q.CURRENT_SCN_SQL, [], { purpose: 'watermark' }))[0].scn);
    } catch {
      return String((await this.exec.query<{ scn: unknown }>(q.FLASHBACK_SCN_SQL, [], { purpose: 'watermark' }))[0].scn);
    }
  }
}

/** Driving access path and inner full scans from PLAN_TABLE rows. Pure. */
export function summarizeOraclePlan(rows: PlanRow[], driving: { table: string; alias: string }): ExplainResult {
  const { table } = q.oraName(driving.table);
  const alias = driving.alias.toUpperCase();
  const op = (r: PlanRow) => `${r.operation}${r.options ? ' ' + r.options : ''}`;
  const lines = rows.map((r) => `${'  '.repeat(r.depth ?? 0)}${op(r)}${r.object_name ? ' ' + (r.object_owner ? r.object_owner + '.' : '') + r.object_name : ''} (rows=${r.cardinality ?? '?'})`);
  const isDriving = (r: PlanRow) => (r.object_alias ?? '').split('@')[0].replace(/"/g, '').toUpperCase() === alias || (r.object_name === table && !r.object_alias);
  const tableOps = rows.filter((r) => r.operation === 'TABLE ACCESS');
  const d = tableOps.find(isDriving) ?? tableOps[0];
  const fullScans = tableOps.filter((r) => r !== d && !isDriving(r) && r.options === 'FULL')
    .map((r) => ({ table: `${r.object_owner}.${r.object_name}`, rows: r.cardinality }));
  return { accessPath: d ? op(d) : rows[1] ? op(rows[1]) : 'unknown', fullScans, lines };
}
