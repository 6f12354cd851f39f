import { describe, expect, it } from 'vitest';
import { renderDescribe, renderNumericProfile, renderQuery, type QuerySpec } from './render';
import { oracleColumnType } from './oracle-types';
import { oracleConnectString, resolveOracleClientLibDir } from './oracle-config';
import { fromJulianDay, toJulianDay } from './julian';
import { checkSubquery } from '../config/subquery';

// Oracle: no server here, so every query shape is checked as rendered text and binds.
const ts = { kind: 'timestamp' } as const;
const num = { kind: 'decimal', precision: 7, scale: 0 } as const;
const plain: QuerySpec = { source: { kind: 'table', name: 'OASIS.ORDERS_MASTER' }, cdcColumn: 'AMEND_LAST_DATE', dateColumn: 'ORDER_DATE', initial: { operator: '>=', value: '2026-06-01' } };
const helper: QuerySpec = {
  source: { kind: 'table', name: 'OASIS.ORDER_LINES' }, initial: { operator: '>=', value: '2026-06-01' },
  helper: { table: 'OASIS.ORDERS_MASTER', join: [['MASTER_ORDER_NO', 'MASTER_ORDER_NO'], ['BRANCH_NO', 'BRANCH_NO']], cdcColumn: 'AMEND_LAST_DATE', dateColumn: 'ORDER_DATE' },
};
const sub: QuerySpec = {
  source: { kind: 'subquery', sql: '(SELECT v.VISIT_ID, v.AMEND_LAST_DATE, v.VISIT_DATE FROM OASIS.VISITS v)' }, cdcColumn: 'AMEND_LAST_DATE', dateColumn: 'VISIT_DATE',
  initial: { operator: '>', value: '2026-01-01' },
};
const julian: QuerySpec = { source: { kind: 'table', name: 'OASIS.APPOINTMENTS' }, cdcColumn: 'AMEND_LAST_DATE', dateColumn: 'JULIAN_DATE', initial: { operator: '>=', value: '2026-06-01' } };
const wm = { cdc: '2026-06-20 10:11:12.000000', date: '2026-06-19 00:00:00.000000' };

describe('Oracle rendering', () => {
  it('plain INITIAL and INCREMENTAL', () => {
    expect(renderQuery(plain, 'oracle', { mode: 'INITIAL', cdcType: ts, dateType: ts })).toEqual({
      sql: "SELECT t.* FROM OASIS.ORDERS_MASTER t WHERE t.ORDER_DATE >= TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6')",
      binds: [{ name: 'initial_value', value: '2026-06-01 00:00:00.000000', kind: 'timestamp' }],
    });
    expect(renderQuery(plain, 'oracle', { mode: 'INCREMENTAL', cdcType: ts, dateType: ts, watermark: wm })).toEqual({
      sql: "SELECT t.* FROM OASIS.ORDERS_MASTER t WHERE (t.AMEND_LAST_DATE > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6') OR t.ORDER_DATE >= TO_TIMESTAMP(:2, 'YYYY-MM-DD HH24:MI:SS.FF6'))",
      binds: [{ name: 'cdc_watermark', value: wm.cdc, kind: 'timestamp' }, { name: 'date_watermark', value: wm.date, kind: 'timestamp' }],
    });
  });
  it('helper-driven INITIAL and INCREMENTAL (composite join, helper columns projected)', () => {
    const head = 'SELECT t.*, h.AMEND_LAST_DATE AS ETL_HELPER_CDC, h.ORDER_DATE AS ETL_HELPER_DATE FROM OASIS.ORDER_LINES t INNER JOIN OASIS.ORDERS_MASTER h ON t.MASTER_ORDER_NO = h.MASTER_ORDER_NO AND t.BRANCH_NO = h.BRANCH_NO';
    expect(renderQuery(helper, 'oracle', { mode: 'INITIAL', cdcType: ts, dateType: ts }).sql).toBe(`${head} WHERE h.ORDER_DATE >= TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6')`);
    const inc = renderQuery(helper, 'oracle', { mode: 'INCREMENTAL', cdcType: ts, dateType: ts, watermark: wm });
    expect(inc.sql).toBe(`${head} WHERE (h.AMEND_LAST_DATE > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6') OR h.ORDER_DATE >= TO_TIMESTAMP(:2, 'YYYY-MM-DD HH24:MI:SS.FF6'))`);
    expect(inc.binds.map((b) => b.value)).toEqual([wm.cdc, wm.date]);
  });
  it('subquery as an inline view with filters on t.<col>', () => {
    expect(renderQuery(sub, 'oracle', { mode: 'INITIAL', cdcType: ts, dateType: ts }).sql)
      .toBe("SELECT t.* FROM (SELECT v.VISIT_ID, v.AMEND_LAST_DATE, v.VISIT_DATE FROM OASIS.VISITS v) t WHERE t.VISIT_DATE > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6')");
    expect(renderQuery(sub, 'oracle', { mode: 'INCREMENTAL', cdcType: ts, dateType: ts, watermark: { cdc: wm.cdc, date: null } }).sql)
      .toBe("SELECT t.* FROM (SELECT v.VISIT_ID, v.AMEND_LAST_DATE, v.VISIT_DATE FROM OASIS.VISITS v) t WHERE t.AMEND_LAST_DATE > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6')");
  });
  it('Julian date columns get the Julian-day literal as a number bind', () => {
    const q = renderQuery(julian, 'oracle', { mode: 'INITIAL', cdcType: ts, dateType: num });
    expect(q).toEqual({ sql: 'SELECT t.* FROM OASIS.APPOINTMENTS t WHERE t.JULIAN_DATE >= :1', binds: [{ name: 'initial_value', value: 2461193, kind: 'number' }] });
    const inc = renderQuery(julian, 'oracle', { mode: 'INCREMENTAL', cdcType: ts, dateType: num, watermark: { cdc: wm.cdc, date: '2461200' } });
    expect(inc.sql).toBe("SELECT t.* FROM OASIS.APPOINTMENTS t WHERE (t.AMEND_LAST_DATE > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF6') OR t.JULIAN_DATE >= :2)");
    expect(inc.binds[1]).toEqual({ name: 'date_watermark', value: 2461200, kind: 'number' });
    expect(toJulianDay('2026-06-01')).toBe(2461193);
    expect(toJulianDay('2000-01-01')).toBe(2451545);
    expect(fromJulianDay(2461193)).toBe('2026-06-01');
  });
  it('timestamptz and date binds, masters without filters, describe and profile queries', () => {
    expect(renderQuery(plain, 'oracle', { mode: 'INCREMENTAL', cdcType: { kind: 'timestamptz' }, dateType: ts, watermark: { cdc: '2026-06-20 10:11:12.000000 +00:00', date: null } }).sql)
      .toBe("SELECT t.* FROM OASIS.ORDERS_MASTER t WHERE t.AMEND_LAST_DATE > TO_TIMESTAMP_TZ(:1, 'YYYY-MM-DD HH24:MI:SS.FF6 TZH:TZM')");
    const master: QuerySpec = { source: { kind: 'table', name: 'OASIS.PATIENTS' }, cdcColumn: null, dateColumn: null };
    expect(renderQuery(master, 'oracle', { mode: 'INCREMENTAL', watermark: { cdc: null, date: null } })).toEqual({ sql: 'SELECT t.* FROM OASIS.PATIENTS t', binds: [] });
    expect(renderDescribe(helper, 'oracle').sql).toMatch(/ WHERE 1 = 0$/);
    const p = renderNumericProfile({ sql: 'SELECT t.* FROM OASIS.X t WHERE t.D >= :1', binds: [{ name: 'initial_value', value: 1, kind: 'number' }] }, 'oracle', ['ID']);
    expect(p.sql).toBe('SELECT MAX(LENGTH(TO_CHAR(TRUNC(ABS(q.ID))))) AS I0, MAX(CASE WHEN q.ID = TRUNC(q.ID) THEN 0 ELSE LENGTH(TO_CHAR(ABS(q.ID) - TRUNC(ABS(q.ID)))) - 1 END) AS S0 FROM (SELECT t.* FROM OASIS.X t WHERE t.D >= :1) q');
  });
});

describe('Postgres rendering', () => {
  it('uses $n placeholders with casts', () => {
    expect(renderQuery(plain, 'postgres', { mode: 'INCREMENTAL', cdcType: ts, dateType: { kind: 'date' }, watermark: wm }).sql)
      .toBe('SELECT t.* FROM OASIS.ORDERS_MASTER t WHERE (t.AMEND_LAST_DATE > $1::timestamp OR t.ORDER_DATE >= $2::date)');
    expect(renderQuery(julian, 'postgres', { mode: 'INITIAL', cdcType: ts, dateType: { kind: 'int' } }).sql).toBe('SELECT t.* FROM OASIS.APPOINTMENTS t WHERE t.JULIAN_DATE >= $1::numeric');
  });
});

describe('Oracle types and client settings', () => {
  it('maps types', () => {
    expect(oracleColumnType('NUMBER', 12, 2).type).toEqual({ kind: 'decimal', precision: 12, scale: 2 });
    expect(oracleColumnType('NUMBER', 0, -127)).toMatchObject({ inferred: true });
    expect(oracleColumnType('NUMBER', 126, -127).type).toEqual({ kind: 'double' });
    expect(oracleColumnType('BINARY_DOUBLE').type).toEqual({ kind: 'double' });
    expect(oracleColumnType('DATE').type).toEqual({ kind: 'timestamp' });
    expect(oracleColumnType('TIMESTAMP(6) WITH LOCAL TIME ZONE').type).toEqual({ kind: 'timestamptz' });
    expect(oracleColumnType('TIMESTAMP WITH TIME ZONE').type).toEqual({ kind: 'timestamptz' });
    expect(oracleColumnType('CLOB').type).toEqual({ kind: 'string' });
    expect(oracleColumnType('NVARCHAR2').type).toEqual({ kind: 'string' });
    expect(oracleColumnType('BLOB').type).toEqual({ kind: 'binary' });
    expect(oracleColumnType('RAW').type).toEqual({ kind: 'binary' });
  });
  it('builds DSNs and resolves the Instant Client dir', () => {
    expect(oracleConnectString({ host: 'db1', port: 1522, service_name: 'OASIS' })).toBe('db1:1522/OASIS');
    expect(oracleConnectString({ host: 'db1', sid: 'ORCL' })).toBe('(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db1)(PORT=1521))(CONNECT_DATA=(SID=ORCL)))');
    expect(oracleConnectString({ dsn: 'tns_alias', host: 'ignored' })).toBe('tns_alias');
    const exists = (p: string) => p === '/opt/ic';
    expect(resolveOracleClientLibDir({ envValue: '/opt/ic', configValue: 'C:\\oracle\\ic', exists })).toBe('/opt/ic');
    expect(resolveOracleClientLibDir({ envValue: '/missing', configValue: '/opt/ic', exists })).toBe('/opt/ic');
    expect(resolveOracleClientLibDir({ configValue: 'C:\\oracle\\instantclient_19_24', exists })).toBeUndefined();
  });
  it('checks subqueries', () => {
    expect(checkSubquery('(SELECT a.X, a.Y AS Z FROM S.T a)')).toBeNull();
    expect(checkSubquery('(SELECT a.X FROM S.T a) UNION (SELECT 1 FROM dual)')).toMatch(/one parenthesised/);
    expect(checkSubquery('(SELECT a.X -- c\n FROM S.T a)')).toMatch(/comments/);
  });
});
