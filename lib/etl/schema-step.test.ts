import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import type { BranchSource } from '../sources';
import { planPhase } from './plan-run';
import { describeUnit, prepareSchemas } from './schema-step';
import { syntheticBranch, syntheticDefs, testContext } from './test-run-context';

const customers = syntheticDefs.slice(0, 1);
const branches = [syntheticBranch('b0', 0), syntheticBranch('b1', 1), syntheticBranch('b2', 2)];
const reserved = (s: BranchSource): BranchSource => ({
  ...s, describe: async (q, sig) => [...await s.describe(q, sig), { name: 'insert_at', type: { kind: 'timestamp' }, sourceType: 'timestamp' }],
});

describe('the schema step', () => {
  it('unions every branch (extra column, wider decimal) into one lake table and records the drift', async () => {
    const ctx = testContext();
    const { states, units } = planPhase('masters', customers, branches);
    expect(await prepareSchemas(ctx, silentLogger, branches, states, units)).toBe(false);
    expect(units.every((u) => u.columns?.length)).toBe(true);
    const lake = ctx.target.tables.get('customers')!;
    expect(lake.schema.fields.map((f) => f.name)).toEqual(['CUSTOMER_ID', 'NAME', 'BALANCE', 'UPDATED_AT', 'EMAIL', 'BRANCH_ID', 'insert_at', 'Recorded_updated_at']);
    expect(states.get('customers')!.schema).toBe(lake.schema);
    expect(ctx.summary.drift.customers.map((d) => `${d.column}:${d.kind}`).sort()).toEqual(['BALANCE:widened', 'EMAIL:missing']);
  });

  it('plan mode records drift but changes no lake table', async () => {
    const ctx = testContext({ plan: true });
    const { states, units } = planPhase('masters', customers, branches);
    await prepareSchemas(ctx, silentLogger, branches, states, units);
    expect(ctx.target.tables.size).toBe(0);
    expect(ctx.summary.drift.customers).toHaveLength(2);
  });

  it('a branch projecting a reserved column: describe fails as fatal and the error stays on that unit', async () => {
    const bad = [branches[0], syntheticBranch('b1', 1, reserved)];
    await expect(describeUnit(testContext(), planPhase('masters', customers, bad).units[1])).rejects.toMatchObject({ code: 'validation', message: expect.stringMatching(/projects the reserved column insert_at/) });
    const ctx = testContext();
    const { states, units } = planPhase('masters', customers, bad);
    expect(await prepareSchemas(ctx, silentLogger, bad, states, units)).toBe(false);
    expect(units.map((u) => u.describeError?.message ?? null)).toEqual([null, expect.stringMatching(/reserved column/)]);
    expect(units.map((u) => u.status)).toEqual([undefined, undefined]);
    expect(ctx.target.tables.get('customers')!.schema.fields.some((f) => f.name === 'EMAIL')).toBe(false);
  });

  it('a table whose lake change fails fails its open units as fatal, leaving refused ones', async () => {
    const ctx = testContext();
    ctx.target.prepare = async () => { throw new Error('lake: catalog unavailable'); };
    const { states, units } = planPhase('masters', customers, branches.slice(0, 2));
    units[0].status = 'REFUSED';
    expect(await prepareSchemas(ctx, silentLogger, branches.slice(0, 2), states, units.slice(1))).toBe(true);
    expect(units.map((u) => [u.status, u.fatal ?? false, u.attempts])).toEqual([['REFUSED', false, 0], ['FAILED', true, 1]]);
    expect(units[1].error).toBe('lake: catalog unavailable');
  });
});
