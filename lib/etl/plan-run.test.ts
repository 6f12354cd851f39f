import { describe, expect, it } from 'vitest';
import { applyCutover, newRunId, planPhase, planRun } from './plan-run';
import { EtlUsageError } from './select-branches';
import { DEFAULT_SETTINGS } from './settings';
import { syntheticBranch, syntheticDefs } from './test-run-context';

const branches = [syntheticBranch('b0', 0), syntheticBranch('b1', 1)];
const settings = (o: Partial<typeof DEFAULT_SETTINGS> = {}) => ({ ...DEFAULT_SETTINGS, ...o });

describe('planRun', () => {
  it('selects branches and tables, orders the phases masters first, and notes whether every branch takes part', () => {
    const all = planRun({ branches, tables: syntheticDefs, settings: settings(), runId: 'r1' });
    expect(all).toMatchObject({ runId: 'r1', allBranches: true, phases: ['masters', 'transactions'] });
    expect(all.tables.map((d) => d.lakeName)).toEqual(['customers', 'orders', 'order_lines']);
    const some = planRun({ branches, tables: syntheticDefs, settings: settings({ branches: ['b1'], tables: ['orders'], category: 'transactions' }) });
    expect(some.branches.map((b) => b.key)).toEqual(['b1']);
    expect(some.tables.map((d) => d.lakeName)).toEqual(['orders']);
    expect(some).toMatchObject({ allBranches: false, phases: ['transactions'] });
    expect(some.runId).toMatch(/^etl-\d{14}-[0-9a-f]{6}$/);
  });
  it('refuses unknown branches and tables before anything runs', () => {
    expect(() => planRun({ branches, tables: syntheticDefs, settings: settings({ branches: ['b7'] }) })).toThrow(EtlUsageError);
    expect(() => planRun({ branches, tables: syntheticDefs, settings: settings({ tables: ['nope'] }) })).toThrow(expect.objectContaining({ code: 'usage', field: '--tables' }));
  });
  it('run ids sort by start time', () => {
    expect(newRunId(new Date('2026-03-04T05:06:07.890Z'))).toMatch(/^etl-20260304050607-[0-9a-f]{6}$/);
  });
});

describe('planPhase and applyCutover', () => {
  it('gives each table one fresh unit per branch, table by table', () => {
    const { states, units } = planPhase('transactions', syntheticDefs.slice(1), branches);
    expect(units.map((u) => `${u.def.lakeName}/${u.branch.key}`)).toEqual(['orders/b0', 'orders/b1', 'order_lines/b0', 'order_lines/b1']);
    expect(units.every((u) => u.phase === 'transactions' && u.attempts === 0 && !u.status && u.files.length === 0)).toBe(true);
    expect([...states.keys()]).toEqual(['orders', 'order_lines']);
    expect(states.get('orders')!.units).toEqual(units.slice(0, 2));
  });
  it('INCREMENTAL: a unit reads from its watermark, one without is REFUSED with the cutover message; INITIAL ignores watermarks', () => {
    const wm = { cdc: '2024-01-01 00:05:00', date: null };
    const { states, units } = planPhase('masters', syntheticDefs.slice(0, 1), branches);
    applyCutover(states, 'INITIAL', new Map());
    expect(units.map((u) => u.status)).toEqual([undefined, undefined]);
    applyCutover(states, 'INCREMENTAL', new Map([['customers', new Map([['b1', wm]])]]));
    expect(units.map((u) => u.status)).toEqual(['REFUSED', undefined]);
    expect(units[0].error).toMatch(/no watermark for table customers on branch b0: .*--mode INITIAL/);
    expect(units[1].watermark).toEqual(wm);
  });
});
