import { describe, expect, it } from 'vitest';
import { OracleDialect, oracleSplitSql as q, summarizeOraclePlan, type SourceExecutor, type StatementLogEntry } from '../../sources';
import { planSplit } from './split';
import { parseTemplate } from './template';
import { runProbe } from './probe';

/**
 * No Oracle server exists here: these tests pin every statement as text, and
 * drive the dialect through a scripted executor that answers by statement
 * shape (and fails like Oracle does when a privilege is missing).
 */
function scripted(answer: (sql: string) => unknown[] | Error): SourceExecutor {
  const log: StatementLogEntry[] = [];
  const exec: SourceExecutor = {
    engine: 'oracle',
    log,
    async query<T>(sql: string, _p: unknown[], o: { purpose: StatementLogEntry['purpose']; readOnly?: boolean; timeoutMs?: number }) {
      log.push({ sql, purpose: o.purpose, readOnly: o.readOnly ?? true, timeoutMs: o.timeoutMs ?? 60_000, ms: 0 });
      const a = answer(sql);
      if (a instanceof Error) throw a;
      return a as T[];
    },
    timedFetch: async (sql: string, f: { budgetMs: number }) => {
      log.push({ sql, purpose: 'timing', readOnly: true, timeoutMs: f.budgetMs, ms: 100 });
      return { rows: 1000, bytes: 2 * 1024 * 1024, ms: 1000, timedOut: false };
    },
    fork: async () => exec,
    close: async () => {},
  };
  return exec;
}

const TEMPLATE = "SELECT s.* FROM PAY.CM_FB_SUBMISSION s WHERE s.ENTITY_TYPE='CASE' AND ~SPLIT~";
const t = () => parseTemplate(TEMPLATE, { table: 'PAY.CM_FB_SUBMISSION' });
const noPriv = (code: string) => new Error(`${code}: insufficient privileges`);

describe('Oracle rendered SQL', () => {
  it('ROWID via DBMS_PARALLEL_EXECUTE', () => {
    expect(q.dpeCreateSql('TRIB_T1', 'pay.cm_fb_submission', 128)).toBe(
      "BEGIN DBMS_PARALLEL_EXECUTE.CREATE_TASK(task_name => 'TRIB_T1'); DBMS_PARALLEL_EXECUTE.CREATE_CHUNKS_BY_ROWID(task_name => 'TRIB_T1', table_owner => 'PAY', table_name => 'CM_FB_SUBMISSION', by_row => FALSE, chunk_size => 128); END;");
    expect(q.dpeChunksSql('TRIB_T1')).toBe("SELECT ROWIDTOCHAR(start_rowid) AS lo, ROWIDTOCHAR(end_rowid) AS hi FROM user_parallel_execute_chunks WHERE task_name = 'TRIB_T1' ORDER BY start_rowid");
    expect(q.dpeDropSql('TRIB_T1')).toBe("BEGIN DBMS_PARALLEL_EXECUTE.DROP_TASK(task_name => 'TRIB_T1'); END;");
  });
  it('ROWID via DBA_EXTENTS and NTILE', () => {
    const ext = q.extentsRowidSql('PAY.T', 8);
    expect(ext).toContain("FROM dba_extents WHERE owner = 'PAY' AND segment_name = 'T' AND segment_type LIKE 'TABLE%'");
    expect(ext).toContain('TRUNC((SUM(blocks) OVER (ORDER BY relative_fno, block_id) - 0.01) / (SUM(blocks) OVER () / 8)) AS grp');
    expect(ext).toContain('DBMS_ROWID.ROWID_CREATE(1, o.data_object_id, lo_fno, lo_block, 0)');
    expect(ext).toContain('DBMS_ROWID.ROWID_CREATE(1, o.data_object_id, hi_fno, hi_block, 32767)');
    expect(ext).toContain("(SELECT data_object_id FROM all_objects WHERE owner = 'PAY' AND object_name = 'T' AND object_type = 'TABLE') o");
    expect(q.ntileRowidSql('PAY.T', 4)).toBe('SELECT grp, ROWIDTOCHAR(MIN(rid)) AS lo, ROWIDTOCHAR(MAX(rid)) AS hi FROM (SELECT ROWID AS rid, NTILE(4) OVER (ORDER BY ROWID) AS grp FROM PAY.T) GROUP BY grp ORDER BY grp');
  });
  it('ROWID predicates: open tails, closed middle, 1=1 alone', () => {
    const r = { lo: 'AAAFxpAABAAALMsAAA', hi: 'AAAFxpAABAAALMsAAH' };
    expect(q.rowidPredicate('s', r, { first: true, last: false })).toBe("s.ROWID <= 'AAAFxpAABAAALMsAAH'");
    expect(q.rowidPredicate('s', r, { first: false, last: false })).toBe("s.ROWID BETWEEN 'AAAFxpAABAAALMsAAA' AND 'AAAFxpAABAAALMsAAH'");
    expect(q.rowidPredicate('s', r, { first: false, last: true })).toBe("s.ROWID >= 'AAAFxpAABAAALMsAAA'");
    expect(q.rowidPredicate('s', r, { first: true, last: true })).toBe('1=1');
    expect(q.mergeRanges([{ lo: 'a', hi: 'b' }, { lo: 'c', hi: 'd' }, { lo: 'e', hi: 'f' }, { lo: 'g', hi: 'h' }, { lo: 'i', hi: 'j' }], 2))
      .toEqual([{ lo: 'a', hi: 'd' }, { lo: 'e', hi: 'j' }]);
  });
  it('column sampling, literals, candidates', () => {
    expect(q.sampleSql('PAY.T', 's.CREATED_DT', 'date', 2.5, 300000)).toBe(
      "SELECT v FROM (SELECT s.CREATED_DT AS k, TO_CHAR(s.CREATED_DT, 'YYYY-MM-DD HH24:MI:SS') AS v FROM PAY.T SAMPLE BLOCK (2.5) s WHERE s.CREATED_DT IS NOT NULL AND ROWNUM <= 300000) ORDER BY k");
    expect(q.sampleSql('PAY.T', 'ID', 'number', 100, 10)).toBe("SELECT v FROM (SELECT s.ID AS k, TO_CHAR(s.ID, 'TM9') AS v FROM PAY.T s WHERE s.ID IS NOT NULL AND ROWNUM <= 10) ORDER BY k");
    expect(q.oraLiteral('2024-01-31 10:00:00', 'date')).toBe("TO_DATE('2024-01-31 10:00:00', 'YYYY-MM-DD HH24:MI:SS')");
    expect(q.oraLiteral('2024-01-31 10:00:00.123456', 'timestamp')).toBe("TO_TIMESTAMP('2024-01-31 10:00:00.123456', 'YYYY-MM-DD HH24:MI:SS.FF6')");
    expect(q.oraLiteral('-12.5', 'number')).toBe('-12.5');
    expect(() => q.oraLiteral('1; drop', 'number')).toThrow();
    const c = q.candidatesSql('PAY.T', 3);
    expect(c).toContain("c.num_distinct > 1");
    expect(c).toContain('i.column_position = 1');
    expect(c).toMatch(/ORDER BY c\.num_distinct DESC\) WHERE ROWNUM <= 3$/);
    expect(q.oraKind('TIMESTAMP(6)')).toBe('timestamp');
    expect(q.oraKind('TIMESTAMP(6) WITH TIME ZONE')).toBe('timestamptz');
    expect(q.oraKind('VARCHAR2')).toBeUndefined();
  });
  it('partition, subpartition, AS OF SCN, sizing, row cap and EXPLAIN', () => {
    expect(q.partitionsSql('PAY.T')).toBe("SELECT partition_name AS name FROM all_tab_partitions WHERE table_owner = 'PAY' AND table_name = 'T' ORDER BY partition_position");
    expect(q.subpartitionsSql('PAY.T')).toContain('ORDER BY p.partition_position, sp.subpartition_position');
    expect(q.partitionRef('PAY.T', 'P2024', false)).toBe('PAY.T PARTITION (P2024)');
    expect(q.partitionRef('PAY.T', 'SP_a', true)).toBe('PAY.T SUBPARTITION ("SP_a")');
    expect(q.asOfScn('PAY.T', '123456789')).toBe('PAY.T AS OF SCN 123456789');
    expect(q.segmentBytesSql('PAY.T')).toBe("SELECT NVL(SUM(bytes), 0) AS bytes FROM dba_segments WHERE owner = 'PAY' AND segment_name = 'T'");
    expect(q.tableBlocksBytesSql('PAY.T')).toBe("SELECT NVL(blocks, 0) * 8192 AS bytes FROM all_tables WHERE owner = 'PAY' AND table_name = 'T'");
    expect(q.oraRowCap('SELECT s.* FROM PAY.T s WHERE 1=1', 100000)).toBe('SELECT * FROM (SELECT s.* FROM PAY.T s WHERE 1=1) WHERE ROWNUM <= 100000');
    expect(q.explainPlanSql('TRIB_1', 'SELECT 1 FROM dual')).toBe("EXPLAIN PLAN SET STATEMENT_ID = 'TRIB_1' FOR SELECT 1 FROM dual");
    expect(q.planRowsSql('TRIB_1')).toContain("FROM plan_table WHERE statement_id = 'TRIB_1' ORDER BY id");
    expect(q.CURRENT_SCN_SQL).toBe('SELECT current_scn AS scn FROM v$database');
  });
});

describe('Oracle dialect driven through a scripted executor', () => {
  const base = (sql: string): unknown[] | Error | undefined => {
    if (sql.startsWith('SELECT COUNT(*) AS n FROM all_tables')) return [{ n: 1 }];
    if (sql.startsWith('SELECT NVL(SUM(bytes), 0)')) return [{ bytes: 8192 * 1000 }];
    if (sql.startsWith('SELECT partitioned')) return [{ partitioned: 'NO' }];
    return undefined;
  };
  const ranges = [{ lo: 'AAAA', hi: 'AAAB' }, { lo: 'AAAC', hi: 'AAAD' }, { lo: 'AAAE', hi: 'AAAF' }];

  it('prefers DBMS_PARALLEL_EXECUTE, runs its task outside READ ONLY, drops it', async () => {
    const exec = scripted((sql) => base(sql) ?? (sql.includes('user_parallel_execute_chunks') ? ranges : []));
    const plan = await planSplit({ dialect: new OracleDialect(exec), template: t(), strategy: 'auto', chunks: 3 });
    expect(plan.method).toBe('dbms_parallel_execute');
    expect(plan.slices.map((s) => s.sql)).toEqual([
      "SELECT s.* FROM PAY.CM_FB_SUBMISSION s WHERE s.ENTITY_TYPE='CASE' AND s.ROWID <= 'AAAB'",
      "SELECT s.* FROM PAY.CM_FB_SUBMISSION s WHERE s.ENTITY_TYPE='CASE' AND s.ROWID BETWEEN 'AAAC' AND 'AAAD'",
      "SELECT s.* FROM PAY.CM_FB_SUBMISSION s WHERE s.ENTITY_TYPE='CASE' AND s.ROWID >= 'AAAE'",
    ]);
    expect(plan.slices.map((s) => [s.lo, s.hi])).toEqual([[undefined, 'AAAB'], ['AAAC', 'AAAD'], ['AAAE', undefined]]);
    const create = exec.log.find((e) => e.sql.includes('CREATE_CHUNKS_BY_ROWID'))!;
    expect(create.sql).toContain('chunk_size => 334');
    expect(create.readOnly).toBe(false);
    expect(exec.log.some((e) => e.sql.includes('DROP_TASK'))).toBe(true);
    expect(exec.log.filter((e) => !e.sql.startsWith('BEGIN')).every((e) => e.readOnly)).toBe(true);
  });

  it('falls back to DBA_EXTENTS, then NTILE, as privileges are missing', async () => {
    const e1 = scripted((sql) => base(sql) ?? (sql.includes('DBMS_PARALLEL_EXECUTE') ? noPriv('PLS-00201') : sql.includes('dba_extents') ? ranges : []));
    expect((await planSplit({ dialect: new OracleDialect(e1), template: t(), chunks: 3 })).method).toBe('dba_extents');
    const e2 = scripted((sql) => base(sql) ?? (sql.includes('DBMS_PARALLEL_EXECUTE') ? noPriv('PLS-00201') : sql.includes('dba_extents') ? noPriv('ORA-00942') : sql.includes('NTILE(3)') ? ranges : []));
    const p = await planSplit({ dialect: new OracleDialect(e2), template: t(), chunks: 3 });
    expect(p.method).toBe('ntile');
    expect(p.slices[1].predicate).toBe("s.ROWID BETWEEN 'AAAC' AND 'AAAD'");
    const one = await planSplit({ dialect: new OracleDialect(e2), template: t(), chunks: 1 });
    expect(one.slices.map((s) => s.predicate)).toEqual(['1=1']);
  });

  it('column split renders half-open TO_DATE bounds with open tails', async () => {
    const sample = Array.from({ length: 100 }, (_, i) => `2024-01-${String(1 + Math.floor(i / 4)).padStart(2, '0')} 00:00:00`);
    const exec = scripted((sql) => base(sql) ?? (sql.startsWith('SELECT data_type') ? [{ data_type: 'DATE' }] : sql.startsWith('SELECT NVL(num_rows') ? [{ n: 1_000_000, blocks: 1000 }] : sql.startsWith('SELECT v FROM') ? sample.map((v) => ({ v })) : []));
    const plan = await planSplit({ dialect: new OracleDialect(exec), template: t(), strategy: 'column', column: 'CREATED_DT', chunks: 4, sampleRows: 100 });
    expect(plan.slices.map((s) => s.predicate)).toEqual([
      "(s.CREATED_DT < TO_DATE('2024-01-07 00:00:00', 'YYYY-MM-DD HH24:MI:SS') OR s.CREATED_DT IS NULL)",
      "s.CREATED_DT >= TO_DATE('2024-01-07 00:00:00', 'YYYY-MM-DD HH24:MI:SS') AND s.CREATED_DT < TO_DATE('2024-01-13 00:00:00', 'YYYY-MM-DD HH24:MI:SS')",
      "s.CREATED_DT >= TO_DATE('2024-01-13 00:00:00', 'YYYY-MM-DD HH24:MI:SS') AND s.CREATED_DT < TO_DATE('2024-01-19 00:00:00', 'YYYY-MM-DD HH24:MI:SS')",
      "s.CREATED_DT >= TO_DATE('2024-01-19 00:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    ]);
    expect(exec.log.find((e) => e.purpose === 'sample')!.sql).toContain('SAMPLE BLOCK (0.01)');
  });

  it('partition and subpartition slices, AS OF SCN on every slice', async () => {
    const exec = scripted((sql) => {
      if (sql.startsWith('SELECT partitioned')) return [{ partitioned: 'YES' }];
      if (sql.includes('all_tab_subpartitions')) return [{ name: 'SP1' }, { name: 'SP2' }];
      if (sql.includes('all_tab_partitions')) return [{ name: 'P2023' }, { name: 'P2024' }];
      return base(sql) ?? [];
    });
    const d = new OracleDialect(exec);
    const p = await planSplit({ dialect: d, template: t(), chunks: 9, asOfScn: '987654321' });
    expect(p.strategy).toBe('partition');
    expect(p.slices.map((s) => s.sql)).toEqual([
      "SELECT s.* FROM PAY.CM_FB_SUBMISSION PARTITION (P2023) AS OF SCN 987654321 s WHERE s.ENTITY_TYPE='CASE' AND 1=1",
      "SELECT s.* FROM PAY.CM_FB_SUBMISSION PARTITION (P2024) AS OF SCN 987654321 s WHERE s.ENTITY_TYPE='CASE' AND 1=1",
    ]);
    const sp = await planSplit({ dialect: d, template: t(), strategy: 'partition', subpartitions: true });
    expect(sp.slices[1].sql).toBe("SELECT s.* FROM PAY.CM_FB_SUBMISSION SUBPARTITION (SP2) s WHERE s.ENTITY_TYPE='CASE' AND 1=1");
    const e2 = scripted((sql) => base(sql) ?? (sql.includes('NTILE') ? [{ lo: 'A', hi: 'B' }, { lo: 'C', hi: 'D' }] : sql.includes('DBMS_PARALLEL') || sql.includes('dba_extents') ? noPriv('ORA-01031') : []));
    const r = await planSplit({ dialect: new OracleDialect(e2), template: t(), strategy: 'rowid', chunks: 2, asOfScn: '42' });
    expect(r.slices[0].sql).toBe("SELECT s.* FROM PAY.CM_FB_SUBMISSION AS OF SCN 42 s WHERE s.ENTITY_TYPE='CASE' AND s.ROWID <= 'B'");
  });

  it('EXPLAIN: access path and AMPLIFYING-style inner full scans from PLAN_TABLE', async () => {
    const plan = [
      { id: 0, parent_id: null, depth: 0, operation: 'SELECT STATEMENT', options: null, object_owner: null, object_name: null, object_alias: null, cardinality: 10 },
      { id: 1, parent_id: 0, depth: 1, operation: 'HASH JOIN', options: null, object_owner: null, object_name: null, object_alias: null, cardinality: 10 },
      { id: 2, parent_id: 1, depth: 2, operation: 'TABLE ACCESS', options: 'BY ROWID RANGE', object_owner: 'PAY', object_name: 'CM_FB_SUBMISSION', object_alias: 'S@SEL$1', cardinality: 10 },
      { id: 3, parent_id: 1, depth: 2, operation: 'TABLE ACCESS', options: 'FULL', object_owner: 'PAY', object_name: 'SUBMSN_RESP', object_alias: 'R@SEL$1', cardinality: 5_000_000 },
    ];
    const exec = scripted((sql) => (sql.startsWith('SELECT id, parent_id') ? plan : []));
    const r = await new OracleDialect(exec).explain('SELECT 1 FROM dual', { table: 'PAY.CM_FB_SUBMISSION', alias: 's' });
    expect(r.accessPath).toBe('TABLE ACCESS BY ROWID RANGE');
    expect(r.fullScans).toEqual([{ table: 'PAY.SUBMSN_RESP', rows: 5_000_000 }]);
    expect(exec.log.map((e) => e.sql.split(' ').slice(0, 3).join(' '))).toEqual(['EXPLAIN PLAN SET', 'SELECT id, parent_id,', 'DELETE FROM plan_table']);
    expect(summarizeOraclePlan(plan.slice(0, 3), { table: 'PAY.X', alias: 'q' }).accessPath).toBe('TABLE ACCESS BY ROWID RANGE');
  });

  it('SCN from v$database, falling back to DBMS_FLASHBACK', async () => {
    const exec = scripted((sql) => (sql.includes('v$database') ? noPriv('ORA-00942') : [{ scn: 555 }]));
    expect(await new OracleDialect(exec).currentScn()).toBe('555');
    expect(exec.log.map((e) => e.sql)).toEqual([q.CURRENT_SCN_SQL, q.FLASHBACK_SCN_SQL]);
  });
});

describe('Oracle probe through a scripted executor', () => {
  it('caps every timing query with ROWNUM, samples ROWIDs instead of NTILE, sizes from dba_segments', async () => {
    const exec = scripted((sql) => {
      if (sql.startsWith('SELECT COUNT(*) AS n FROM all_tables')) return [{ n: 1 }];
      if (sql.startsWith('SELECT NVL(SUM(bytes), 0)')) return [{ bytes: 64 * 1024 * 1024 * 600 }];
      if (sql.startsWith('SELECT partitioned')) return [{ partitioned: 'NO' }];
      if (sql.startsWith('SELECT NVL(num_rows')) return [{ n: 10_000_000, blocks: 100000 }];
      if (sql.includes('DBMS_PARALLEL_EXECUTE') || sql.includes('dba_extents')) return noPriv('ORA-01031');
      if (sql.startsWith('SELECT ROWIDTOCHAR(rid)')) return Array.from({ length: 100 }, (_, i) => ({ v: `AAAR${String(i).padStart(3, '0')}` }));
      if (sql.startsWith('SELECT * FROM (SELECT c.column_name')) return [];
      if (sql.startsWith('SELECT id, parent_id')) return [{ id: 0, parent_id: null, depth: 0, operation: 'SELECT STATEMENT', options: null, object_owner: null, object_name: null, object_alias: null, cardinality: 1 },
        { id: 1, parent_id: 0, depth: 1, operation: 'TABLE ACCESS', options: 'BY ROWID RANGE', object_owner: 'PAY', object_name: 'CM_FB_SUBMISSION', object_alias: 'S@SEL$1', cardinality: 1 }];
      return [];
    });
    const rec = await runProbe({ dialect: new OracleDialect(exec), template: t(), depth: 'bakeoff', sampleRows: 100_000, timeBudgetSeconds: 20, targetSliceSeconds: 600 });
    expect(rec.candidates.map((c) => [c.label, c.accessPath, c.verdict])).toEqual([['ROWID', 'TABLE ACCESS BY ROWID RANGE', 'good']]);
    expect(rec.winner_MB_per_sec).toBe(2);
    expect(rec.chunk_count).toBe(32); // 37.5 GiB / (600 s × 2 MB/s)
    expect(rec.warnings[0]).toMatch(/column candidates empty/);
    expect(exec.log.some((e) => e.sql.includes('NTILE'))).toBe(false);
    const sample = exec.log.find((e) => e.sql.startsWith('SELECT ROWIDTOCHAR(rid)'))!;
    expect(sample.sql).toBe('SELECT ROWIDTOCHAR(rid) AS v FROM (SELECT ROWID AS rid FROM PAY.CM_FB_SUBMISSION SAMPLE BLOCK (0.2) WHERE ROWNUM <= 60000) ORDER BY rid');
    const timing = exec.log.filter((e) => e.purpose === 'timing');
    expect(timing).toHaveLength(1);
    expect(timing[0].sql).toMatch(/^SELECT \* FROM \(SELECT s\.\* FROM PAY\.CM_FB_SUBMISSION s WHERE s\.ENTITY_TYPE='CASE' AND s\.ROWID <= 'AAAR\d+'\) WHERE ROWNUM <= 100000$/);
    expect(timing[0].timeoutMs).toBe(20_000);
  });
});
