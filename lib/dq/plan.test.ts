import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { parseTablesConfig } from '../config/tables-json';
import type { SourceColumn } from '../sources';
import { planUnit } from './plan';

// Which lake column DQ compares with which source column, under each naming convention:
// the one the ETL fills from it (lib/sources/lake-names.ts), whatever case the lake was created in.
const source: SourceColumn[] = [
  { name: 'FILM_ID', sourceName: 'film_id', type: { kind: 'int' }, sourceType: 'int4' },
  { name: 'RETURNNOTE', sourceName: 'ReturnNote', type: { kind: 'string' }, sourceType: 'text' },
  { name: 'LAST_UPDATE', sourceName: 'last_update', type: { kind: 'timestamp' }, sourceType: 'timestamp' },
];
const lake = (...names: string[]) => new arrow.Schema([
  ...names.map((n) => new arrow.Field(n, /id$/i.test(n) ? new arrow.Int32() : /update/i.test(n) ? new arrow.TimestampMicrosecond() : new arrow.Utf8(), true)),
  new arrow.Field('BRANCH_ID', new arrow.Utf8(), false),
  new arrow.Field('insert_at', new arrow.TimestampMicrosecond(), true),
  new arrow.Field('Recorded_updated_at', new arrow.TimestampMicrosecond(), true),
]);
const def = (naming?: string) => parseTablesConfig([{ table: 'PUBLIC.FILM', unique_key: 'film_id', cdc_column: 'last_update', category: 'masters', ...(naming ? { naming } : {}) }])[0];
const plan = (naming: string | undefined, schema: arrow.Schema) => planUnit(def(naming), 'postgres', source, null, schema, { since: null, watermark: null });
const matched = (p: ReturnType<typeof plan>) => ({
  columns: p.columnNames, keys: p.keyNames, sql: p.query.columns.map((c) => c.name), onlyInSource: p.columnsOnlyInSource, onlyInLake: p.columnsOnlyInLake,
});

describe('planUnit: source columns ↔ lake columns by the table naming', () => {
  it('the default (preserve): film_id with film_id, reported as the lake spells them', () => {
    expect(matched(plan(undefined, lake('film_id', 'ReturnNote', 'last_update')))).toEqual({
      columns: ['film_id', 'last_update', 'ReturnNote'], keys: ['film_id'], sql: ['film_id', 'last_update', 'ReturnNote'], onlyInSource: [], onlyInLake: [],
    });
  });

  it('a lake created under upper goes on comparing under the default: FILM_ID with film_id, no column left out', () => {
    expect(matched(plan(undefined, lake('FILM_ID', 'RETURNNOTE', 'LAST_UPDATE')))).toEqual({
      columns: ['FILM_ID', 'LAST_UPDATE', 'RETURNNOTE'], keys: ['FILM_ID'], sql: ['film_id', 'last_update', 'ReturnNote'], onlyInSource: [], onlyInLake: [],
    });
    expect(matched(plan('upper', lake('FILM_ID', 'RETURNNOTE', 'LAST_UPDATE'))).columns).toEqual(['FILM_ID', 'LAST_UPDATE', 'RETURNNOTE']);
  });

  it('snake_case: ReturnNote with return_note (not equal without regard to case)', () => {
    expect(matched(plan('snake_case', lake('film_id', 'return_note', 'last_update')))).toEqual({
      columns: ['film_id', 'last_update', 'return_note'], keys: ['film_id'], sql: ['film_id', 'last_update', 'ReturnNote'], onlyInSource: [], onlyInLake: [],
    });
  });

  it('columns on one side only are named as each side spells them', () => {
    const p = matched(plan(undefined, lake('film_id', 'last_update', 'rating')));
    expect([p.onlyInSource, p.onlyInLake]).toEqual([['ReturnNote'], ['rating']]);
  });
});

describe('planUnit: the window note', () => {
  it('a table without a date column says it is compared in full, whatever its category', () => {
    for (const category of ['masters', 'transactions']) {
      const d = parseTablesConfig([{ table: 'PUBLIC.FILM', unique_key: 'film_id', cdc_column: 'last_update', category }])[0];
      const p = planUnit(d, 'postgres', source, null, lake('film_id', 'ReturnNote', 'last_update'), { since: null, watermark: null });
      expect([category, p.window.start, p.window.end, p.window.note]).toEqual([category, null, null, 'no date column: compared in full']);
    }
  });
});
