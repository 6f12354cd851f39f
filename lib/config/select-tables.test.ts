import { describe, expect, it } from 'vitest';
import { selectTables } from './select-tables';
import { parseTablesConfig } from './tables-json';

const all = parseTablesConfig([
  { table: 'OASIS.CUSTOMERS', unique_key: 'ID' },
  { table: 'OASIS.ORDERS', unique_key: 'ID', cdc_column: 'C' },
  { table: '(SELECT t.ID FROM OASIS.ORDERS t)', name: 'OrdersView', unique_key: 'ID' },
]);

describe('selectTables', () => {
  it('matches OWNER.TABLE, TABLE, subquery name and lake name, case-insensitively, once each', () => {
    expect(selectTables(all, [])).toBe(all);
    expect(selectTables(all, ['oasis.orders', ' CUSTOMERS ', 'ordersview', 'orders_view', 'orders']).map((d) => d.lakeName)).toEqual(['orders', 'customers', 'orders_view']);
  });
  it('refuses an unknown name, listing the known ones', () => {
    expect(() => selectTables(all, ['nope'])).toThrow(expect.objectContaining({ code: 'usage', field: '--tables' }));
    expect(() => selectTables(all, ['nope'], 'params.tables')).toThrow('params.tables: unknown table nope');
    expect(() => selectTables(all, ['nope'])).toThrow('--tables: unknown table nope (known: customers, orders, orders_view)');
  });
});
