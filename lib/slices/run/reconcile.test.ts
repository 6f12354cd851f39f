import { describe, expect, it } from 'vitest';
import { parseSimpleSlice, sourceCountSql, targetCountSql, withAsOfScn } from './reconcile';
import { WATERMARK_SQL } from '../../sources';

// No Oracle server exists here: the Oracle paths are checked as rendered SQL.
describe('reconcile SQL', () => {
  it('anchors Oracle counts AS OF SCN on every table reference', () => {
    const q = "SELECT s.* FROM PAY.CM_FB_SUBMISSION s JOIN PAY.RESP r ON r.T = s.T WHERE s.ENTITY_TYPE='CASE' AND s.ROWID BETWEEN 'AAA' AND 'BBB'";
    expect(sourceCountSql(q, 'oracle', '123456789')).toBe(
      "SELECT COUNT(*) AS \"N\" FROM (SELECT s.* FROM PAY.CM_FB_SUBMISSION AS OF SCN 123456789 s JOIN PAY.RESP AS OF SCN 123456789 r ON r.T = s.T WHERE s.ENTITY_TYPE='CASE' AND s.ROWID BETWEEN 'AAA' AND 'BBB') q");
    expect(withAsOfScn('SELECT * FROM (SELECT x FROM A.B) q', '7')).toBe('SELECT * FROM (SELECT x FROM A.B AS OF SCN 7) q');
    expect(() => withAsOfScn('SELECT 1 FROM dual', '1; drop')).toThrow(/digits/);
    expect(sourceCountSql('SELECT * FROM t', 'postgres', '0/16B3748')).toBe('SELECT COUNT(*) AS "N" FROM (SELECT * FROM t) q');
  });

  it('renders the watermark SQL per engine with the Oracle fallback', () => {
    expect(WATERMARK_SQL.oracle.sql).toEqual(['SELECT current_scn AS "W" FROM v$database', 'SELECT DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER AS "W" FROM dual']);
    expect(WATERMARK_SQL.postgres.sql[0]).toMatch(/pg_current_wal_lsn/);
  });

  it('derives the target-side count from the slice predicate under the same alias', () => {
    expect(parseSimpleSlice('SELECT s.* FROM public.src s WHERE s.id >= 1 AND s.id < 5')).toEqual({ table: 'public.src', alias: 's', where: 's.id >= 1 AND s.id < 5' });
    expect(targetCountSql({ query: 'SELECT s.* FROM public.src s WHERE s.id >= 1 AND s.id < 5', targettbl: 'public.tgt', slice_predicate: null }).sql)
      .toBe('SELECT COUNT(*) AS "N" FROM public.tgt s WHERE s.id >= 1 AND s.id < 5');
    expect(targetCountSql({ query: 'SELECT * FROM public.src WHERE src.id < 5', targettbl: 'public.tgt', slice_predicate: null }).sql)
      .toBe('SELECT COUNT(*) AS "N" FROM public.tgt t WHERE t.id < 5');
    expect(targetCountSql({ query: "SELECT s.* FROM T s WHERE s.ROWID BETWEEN 'a' AND 'b'", targettbl: 'X.Y', slice_predicate: null }).sql).toBeNull();
    expect(targetCountSql({ query: 'SELECT s.* FROM a s JOIN b r ON r.k = s.k WHERE s.id < 9', targettbl: 'X.Y', slice_predicate: 's.id >= 1 AND s.id < 9' }).sql)
      .toBe('SELECT COUNT(*) AS "N" FROM X.Y s WHERE s.id >= 1 AND s.id < 9');
  });
});
