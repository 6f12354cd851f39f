/**
 * Every SQL text the Oracle dialect sends, built by pure functions so each is
 * tested as rendered text (no Oracle server exists in CI). Identifiers are
 * validated OWNER.TABLE / plain names (A-Z 0-9 _ $ #), upper-cased as Oracle
 * folds them, and inlined as literals: no quote can reach them.
 */
import type { ColumnKind, PhysicalRange } from './dialect';
import { AppError } from '../errors';

export const ORA_DATE_FMT = 'YYYY-MM-DD HH24:MI:SS';
export const ORA_TS_FMT = 'YYYY-MM-DD HH24:MI:SS.FF6';
export const ORA_TSTZ_FMT = 'YYYY-MM-DD HH24:MI:SS.FF6 TZH:TZM';

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

export function oraName(table: string): { owner: string; table: string } {
  const [owner, name] = table.split('.');
  return { owner: owner.toUpperCase(), table: name.toUpperCase() };
}

/** Quote an Oracle object name only when it is not a plain upper-case identifier. */
export function oraIdent(name: string): string {
  return /^[A-Z][A-Z0-9_$#]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

// ── physical: ROWID ranges ──────────────────────────────────────────────────

/** DBMS_PARALLEL_EXECUTE (preferred): create the task and its ROWID chunks (`chunkBlocks` blocks each). */
export function dpeCreateSql(task: string, table: string, chunkBlocks: number): string {
  const t = oraName(table);
  return `BEGIN DBMS_PARALLEL_EXECUTE.CREATE_TASK(task_name => ${lit(task)}); ` +
    `DBMS_PARALLEL_EXECUTE.CREATE_CHUNKS_BY_ROWID(task_name => ${lit(task)}, table_owner => ${lit(t.owner)}, table_name => ${lit(t.table)}, by_row => FALSE, chunk_size => ${Math.max(1, Math.floor(chunkBlocks))}); END;`;
}
export function dpeChunksSql(task: string): string {
  return `SELECT ROWIDTOCHAR(start_rowid) AS lo, ROWIDTOCHAR(end_rowid) AS hi FROM user_parallel_execute_chunks WHERE task_name = ${lit(task)} ORDER BY start_rowid`;
}
export function dpeDropSql(task: string): string {
  return `BEGIN DBMS_PARALLEL_EXECUTE.DROP_TASK(task_name => ${lit(task)}); END;`;
}

/** DBA_EXTENTS: extents bucketed into `chunks` groups of about equal blocks, each a ROWID range. */
export function extentsRowidSql(table: string, chunks: number): string {
  const t = oraName(table);
  const w = 'OVER (PARTITION BY grp ORDER BY relative_fno, block_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)';
  return `SELECT grp, ROWIDTOCHAR(DBMS_ROWID.ROWID_CREATE(1, o.data_object_id, lo_fno, lo_block, 0)) AS lo, ` +
    `ROWIDTOCHAR(DBMS_ROWID.ROWID_CREATE(1, o.data_object_id, hi_fno, hi_block, 32767)) AS hi ` +
    `FROM (SELECT DISTINCT grp, FIRST_VALUE(relative_fno) ${w} AS lo_fno, FIRST_VALUE(block_id) ${w} AS lo_block, ` +
    `LAST_VALUE(relative_fno) ${w} AS hi_fno, LAST_VALUE(block_id + blocks - 1) ${w} AS hi_block ` +
    `FROM (SELECT relative_fno, block_id, blocks, TRUNC((SUM(blocks) OVER (ORDER BY relative_fno, block_id) - 0.01) / (SUM(blocks) OVER () / ${chunks})) AS grp ` +
    `FROM dba_extents WHERE owner = ${lit(t.owner)} AND segment_name = ${lit(t.table)} AND segment_type LIKE 'TABLE%')), ` +
    `(SELECT data_object_id FROM all_objects WHERE owner = ${lit(t.owner)} AND object_name = ${lit(t.table)} AND object_type = 'TABLE') o ` +
    `ORDER BY grp`;
}

/** NTILE fallback: only a read account needed; reads every ROWID once (bounded by the call timeout). */
export function ntileRowidSql(table: string, chunks: number): string {
  const t = oraName(table);
  return `SELECT grp, ROWIDTOCHAR(MIN(rid)) AS lo, ROWIDTOCHAR(MAX(rid)) AS hi FROM (` +
    `SELECT ROWID AS rid, NTILE(${chunks}) OVER (ORDER BY ROWID) AS grp FROM ${t.owner}.${oraIdent(t.table)}` +
    `) GROUP BY grp ORDER BY grp`;
}

/** Probe-only fallback: ROWIDs from a block sample (never NTILE over the whole table). */
export function sampledRowidSql(table: string, pct: number, cap: number): string {
  const t = oraName(table);
  const sample = pct >= 100 ? '' : ` SAMPLE BLOCK (${Number(pct.toPrecision(6))})`;
  return `SELECT ROWIDTOCHAR(rid) AS v FROM (SELECT ROWID AS rid FROM ${t.owner}.${oraIdent(t.table)}${sample} WHERE ROWNUM <= ${cap}) ORDER BY rid`;
}

/** ROWID predicate: first open below, last open above, middle closed BETWEEN, single slice 1=1. */
export function rowidPredicate(alias: string, r: PhysicalRange, pos: { first: boolean; last: boolean }): string {
  if (pos.first && pos.last) return '1=1';
  if (pos.first) return `${alias}.ROWID <= ${lit(r.hi)}`;
  if (pos.last) return `${alias}.ROWID >= ${lit(r.lo)}`;
  return `${alias}.ROWID BETWEEN ${lit(r.lo)} AND ${lit(r.hi)}`;
}

/** Merge consecutive ranges (ROWID order) into at most `chunks` groups. */
export function mergeRanges(ranges: PhysicalRange[], chunks: number): PhysicalRange[] {
  const m = ranges.length;
  if (m <= chunks) return ranges;
  const out: PhysicalRange[] = [];
  for (let i = 0; i < chunks; i++) {
    const a = Math.floor((i * m) / chunks);
    const b = Math.floor(((i + 1) * m) / chunks) - 1;
    out.push({ lo: ranges[a].lo, hi: ranges[b].hi });
  }
  return out;
}

// ── partitions ──────────────────────────────────────────────────────────────

export function partitionedSql(table: string): string {
  const t = oraName(table);
  return `SELECT partitioned FROM all_tables WHERE owner = ${lit(t.owner)} AND table_name = ${lit(t.table)}`;
}
export function partitionsSql(table: string): string {
  const t = oraName(table);
  return `SELECT partition_name AS name FROM all_tab_partitions WHERE table_owner = ${lit(t.owner)} AND table_name = ${lit(t.table)} ORDER BY partition_position`;
}
export function subpartitionsSql(table: string): string {
  const t = oraName(table);
  return `SELECT sp.subpartition_name AS name FROM all_tab_subpartitions sp JOIN all_tab_partitions p ` +
    `ON p.table_owner = sp.table_owner AND p.table_name = sp.table_name AND p.partition_name = sp.partition_name ` +
    `WHERE sp.table_owner = ${lit(t.owner)} AND sp.table_name = ${lit(t.table)} ORDER BY p.partition_position, sp.subpartition_position`;
}
/** `OWNER.TABLE PARTITION (P)` / `SUBPARTITION (SP)`. */
export function partitionRef(ref: string, name: string, sub: boolean): string {
  return `${ref} ${sub ? 'SUBPARTITION' : 'PARTITION'} (${oraIdent(name)})`;
}

// ── snapshot ────────────────────────────────────────────────────────────────

export const asOfScn = (ref: string, scn: string) => `${ref} AS OF SCN ${scn}`;
export const CURRENT_SCN_SQL = 'SELECT current_scn AS scn FROM v$database';
export const FLASHBACK_SCN_SQL = 'SELECT DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER AS scn FROM dual';

// ── columns and sampling ────────────────────────────────────────────────────

export function tableExistsSql(table: string): string {
  const t = oraName(table);
  return `SELECT COUNT(*) AS n FROM all_tables WHERE owner = ${lit(t.owner)} AND table_name = ${lit(t.table)}`;
}
export function columnTypeSql(table: string, column: string): string {
  const t = oraName(table);
  return `SELECT data_type FROM all_tab_columns WHERE owner = ${lit(t.owner)} AND table_name = ${lit(t.table)} AND column_name = ${lit(column.split('.').at(-1)!.toUpperCase())}`;
}
export function oraKind(dataType: string): ColumnKind | undefined {
  if (['NUMBER', 'FLOAT', 'BINARY_FLOAT', 'BINARY_DOUBLE', 'INTEGER'].includes(dataType)) return 'number';
  if (dataType === 'DATE') return 'date';
  if (/^TIMESTAMP(\(\d\))? WITH (LOCAL )?TIME ZONE$/.test(dataType)) return 'timestamptz';
  if (/^TIMESTAMP/.test(dataType)) return 'timestamp';
  return undefined;
}

/** Indexed (leading column) NUMBER/FLOAT/DATE/TIMESTAMP columns with num_distinct > 1, by NDV. */
export function candidatesSql(table: string, limit: number): string {
  const t = oraName(table);
  return `SELECT * FROM (SELECT c.column_name AS "column", c.data_type AS "type", c.num_distinct AS "ndv" FROM all_tab_columns c ` +
    `WHERE c.owner = ${lit(t.owner)} AND c.table_name = ${lit(t.table)} ` +
    `AND (c.data_type IN ('NUMBER', 'FLOAT', 'BINARY_FLOAT', 'BINARY_DOUBLE', 'DATE') OR c.data_type LIKE 'TIMESTAMP%') ` +
    `AND c.num_distinct > 1 ` +
    `AND EXISTS (SELECT 1 FROM all_ind_columns i WHERE i.table_owner = c.owner AND i.table_name = c.table_name AND i.column_name = c.column_name AND i.column_position = 1) ` +
    `ORDER BY c.num_distinct DESC) WHERE ROWNUM <= ${limit}`;
}

export function numRowsSql(table: string): string {
  const t = oraName(table);
  return `SELECT NVL(num_rows, 0) AS n, NVL(blocks, 0) AS blocks FROM all_tables WHERE owner = ${lit(t.owner)} AND table_name = ${lit(t.table)}`;
}

const TO_CHAR: Record<ColumnKind, (c: string) => string> = {
  number: (c) => `TO_CHAR(${c}, 'TM9')`,
  date: (c) => `TO_CHAR(${c}, '${ORA_DATE_FMT}')`,
  timestamp: (c) => `TO_CHAR(${c}, '${ORA_TS_FMT}')`,
  timestamptz: (c) => `TO_CHAR(${c}, '${ORA_TSTZ_FMT}')`,
};

/**
 * Bounded sample of a column: SAMPLE BLOCK (pct) reads pct% of the blocks and
 * ROWNUM caps the rows before sorting. pct >= 100 (a small table) drops the
 * SAMPLE clause, which Oracle refuses at 100.
 */
export function sampleSql(table: string, column: string, kind: ColumnKind, pct: number, cap: number): string {
  const t = oraName(table);
  const col = `s.${column.split('.').at(-1)!.toUpperCase()}`;
  const sample = pct >= 100 ? '' : ` SAMPLE BLOCK (${Number(pct.toPrecision(6))})`;
  return `SELECT v FROM (SELECT ${col} AS k, ${TO_CHAR[kind](col)} AS v FROM ${t.owner}.${oraIdent(t.table)}${sample} s ` +
    `WHERE ${col} IS NOT NULL AND ROWNUM <= ${cap}) ORDER BY k`;
}

export function oraLiteral(value: string, kind: ColumnKind): string {
  switch (kind) {
    case 'number':
      if (!/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)) throw new AppError('validation', `slices: not a number: ${value}`);
      return value;
    case 'date': return `TO_DATE(${lit(value)}, '${ORA_DATE_FMT}')`;
    case 'timestamp': return `TO_TIMESTAMP(${lit(value)}, '${ORA_TS_FMT}')`;
    case 'timestamptz': return `TO_TIMESTAMP_TZ(${lit(value)}, '${ORA_TSTZ_FMT}')`;
  }
}

// ── sizing, row cap, explain ────────────────────────────────────────────────

export function segmentBytesSql(table: string): string {
  const t = oraName(table);
  return `SELECT NVL(SUM(bytes), 0) AS bytes FROM dba_segments WHERE owner = ${lit(t.owner)} AND segment_name = ${lit(t.table)}`;
}
/** Fallback without DBA_SEGMENTS: all_tables.blocks × 8K. */
export function tableBlocksBytesSql(table: string): string {
  const t = oraName(table);
  return `SELECT NVL(blocks, 0) * 8192 AS bytes FROM all_tables WHERE owner = ${lit(t.owner)} AND table_name = ${lit(t.table)}`;
}

export const oraRowCap = (sql: string, n: number) => `SELECT * FROM (${sql}) WHERE ROWNUM <= ${n}`;

export const explainPlanSql = (statementId: string, sql: string) => `EXPLAIN PLAN SET STATEMENT_ID = ${lit(statementId)} FOR ${sql}`;
export const planRowsSql = (statementId: string) =>
  `SELECT id, parent_id, depth, operation, options, object_owner, object_name, object_alias, cardinality FROM plan_table WHERE statement_id = ${lit(statementId)} ORDER BY id`;
export const planDeleteSql = (statementId: string) => `DELETE FROM plan_table WHERE statement_id = ${lit(statementId)}`;
