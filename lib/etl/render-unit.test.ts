import { describe, expect, it } from 'vitest';
import { planPhase } from './plan-run';
import { renderUnit } from './render-unit';
import { syntheticBranch, syntheticDefs } from './test-run-context';

describe('renderUnit', () => {
  it('INITIAL filters on the initial range, INCREMENTAL binds the unit\'s watermark; the query names its source table', () => {
    const [u] = planPhase('transactions', syntheticDefs.slice(1, 2), [syntheticBranch('b0', 0)]).units;
    u.columns = [{ name: 'AMEND_DATE', type: { kind: 'timestamp' }, sourceType: 'timestamp' }, { name: 'ORDER_DATE', type: { kind: 'timestamp' }, sourceType: 'timestamp' }];
    const initial = renderUnit(u, 'INITIAL');
    expect(initial.table).toBe('SELFTEST.ORDERS');
    expect(initial.binds.map((b) => b.name)).toEqual(['initial_value']);
    u.watermark = { cdc: '2024-02-01 00:00:00', date: '2024-01-31 00:00:00' };
    const inc = renderUnit(u, 'INCREMENTAL');
    expect(inc.binds.map((b) => [b.name, b.value])).toEqual([['cdc_watermark', '2024-02-01 00:00:00.000000'], ['date_watermark', '2024-01-31 00:00:00.000000']]);
  });
});
