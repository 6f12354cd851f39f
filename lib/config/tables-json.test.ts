import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTablesConfig, parseTablesConfig } from './tables-json';

const ok = { table: 'OASIS.APPOINTMENTS', unique_key: 'APPT_ID', cdc_column: 'AMEND_LAST_DATE', where_date_column: 'APPT_DATE', where_operator: '>=', where_value_of_initial_run: '2026-06-01' };
const bad = (entry: Record<string, unknown>) => () => parseTablesConfig([entry]);

describe('tables.json validation', () => {
  it('accepts the repo example and derives lake names in lower snake case', async () => {
    const defs = await loadTablesConfig(path.resolve('tables.json'));
    expect(defs.map((d) => d.lakeName)).toEqual(['patients', 'doctors', 'appointments', 'orders_master', 'order_lines', 'visits_enriched']);
    expect(defs.map((d) => d.category)).toEqual(['masters', 'masters', 'transactions', 'transactions', 'transactions', 'transactions']);
    expect(parseTablesConfig([{ ...ok, table: '(SELECT a.X FROM S.T a)', name: 'VisitsEnriched' }])[0].lakeName).toBe('visits_enriched');
  });
  it('names the entry and field of every problem', () => {
    expect(bad({ ...ok, colour: 'red' })).toThrow(/entry 0 \(OASIS\.APPOINTMENTS\): unknown field "colour"/);
    expect(bad({ ...ok, name: 'x' })).toThrow(/field name: only allowed on subquery entries/);
    expect(bad({ ...ok, table: '(SELECT t.ID, t.BRANCH_ID FROM S.T t)', name: 'v' })).toThrow(/entry 0 \(v\): field table: the subquery projects BRANCH_ID/);
    expect(bad({ ...ok, table: '(SELECT t.ID, x AS branch_id FROM S.T t)', name: 'v' })).toThrow(/projects BRANCH_ID/);
    expect(bad({ ...ok, table: '(SELECT t.ID FROM S.T t)' })).toThrow(/a subquery entry needs a name/);
    expect(bad({ ...ok, cdc_column: 'AMEND-DATE' })).toThrow(/field cdc_column: must be an identifier/);
    expect(bad({ ...ok, table: 'OASIS.APPT;DROP' })).toThrow(/field table: must be OWNER\.TABLE/);
    // a quoted (mixed-case) table name: the message says how to read it (a subquery entry)
    expect(bad({ ...ok, table: 'shop."MixedCase"' })).toThrow(/field table: must be OWNER\.TABLE .*read through a subquery entry: "table": "\(SELECT \* FROM shop\.\\"MixedCase\\"\)", "name": "mixed_case"/);
    expect(bad({ ...ok, unique_key: ['ID', 'A B'] })).toThrow(/field unique_key/);
    expect(bad({ ...ok, where_operator: 'LIKE' })).toThrow(/field where_operator: must be one of/);
    expect(bad({ ...ok, cdc_column: null, where_date_column: null, helper: { table: 'OASIS.H', join: [], cdc_column: 'C' } })).toThrow(/field helper\.join: needs at least one/);
    expect(bad({ ...ok, cdc_column: null, where_date_column: null, helper: { table: 'OASIS.H', cdc_column: 'C' } })).toThrow(/field helper\.join/);
    expect(bad({ ...ok, where_value_of_initial_run: 'yesterday' })).toThrow(/where_value_of_initial_run: must be a date/);
    expect(bad({ ...ok, table: '(SELECT a FROM t); DELETE FROM x', name: 'v' })).toThrow(/field table/);
    expect(() => parseTablesConfig([ok, { ...ok, table: 'OTHER.APPOINTMENTS' }])).toThrow(/entry 1 \(OTHER\.APPOINTMENTS\): duplicate lake table name "appointments" \(also entry 0\)/);
    expect(() => parseTablesConfig({ nope: 1 })).toThrow(/expected a JSON array/);
  });
  it('naming: per entry over the file default (preserve when neither), refused naming the field', () => {
    expect(parseTablesConfig([ok])[0].naming).toBe('preserve');
    expect(parseTablesConfig({ naming: 'upper', tables: [ok] })[0].naming).toBe('upper');
    expect(parseTablesConfig({ naming: 'preserve', tables: [ok, { ...ok, table: 'S.OTHER', naming: 'snake_case' }] }).map((d) => d.naming)).toEqual(['preserve', 'snake_case']);
    expect(bad({ ...ok, naming: 'camel' })).toThrow(/entry 0 \(OASIS\.APPOINTMENTS\): field naming: must be one of preserve upper lower snake_case/);
    expect(() => parseTablesConfig({ naming: 'UPPER', tables: [ok] })).toThrow(/tables\.json: field naming: must be one of/);
  });
  it('reports unreadable files and bad JSON with the file name, quoting no text of the file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tables-json-'));
    try {
      const file = path.join(dir, 'tables.json');
      await fs.writeFile(file, '[\n  {"table": "S3CRET"\n');
      await expect(loadTablesConfig(file)).rejects.toThrow(`${file}: not valid JSON (syntax error at line 3, column 1)`);
      await expect(loadTablesConfig(file)).rejects.not.toThrow(/S3CRET/);
      await fs.writeFile(file, JSON.stringify({ tables: [ok] }));
      expect((await loadTablesConfig(file))[0].lakeName).toBe('appointments');
      await expect(loadTablesConfig(path.join(dir, 'nope.json'))).rejects.toThrow(/nope\.json: cannot read/);
    } finally { await fs.rm(dir, { recursive: true, force: true }); }
  });
});
