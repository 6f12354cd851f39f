import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../log';
import type { BranchSource } from '../sources';
import { extractUnit } from './extract-unit';
import { ParquetEncoderPool } from '../lake';
import { planPhase } from './plan-run';
import { prepareSchemas } from './schema-step';
import { stagedBatches } from './staging';
import { syntheticBranch, syntheticDefs, testContext } from './test-run-context';

let staging: string;
let encoder: ParquetEncoderPool;
beforeAll(async () => {
  staging = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-extract-'));
  encoder = new ParquetEncoderPool(1, { compression: 'snappy' });
});
afterAll(async () => {
  await encoder.close();
  await fs.rm(staging, { recursive: true, force: true });
});

/** A source whose first `n` reads fail with `err` after one batch (a connection lost mid-stream). */
function failing(n: number, err: () => Error): (s: BranchSource) => BranchSource {
  let left = n;
  return (s) => ({
    ...s,
    read: (q, cols, target, opts) => (async function* () {
      for await (const b of s.read(q, cols, target, opts)) {
        yield b;
        if (left > 0) { left--; throw err(); }
      }
    })(),
  });
}
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

async function setup(wrap?: (s: BranchSource) => BranchSource, o: { retries?: number; signal?: AbortSignal } = {}) {
  const ctx = { ...testContext({ stagingRoot: staging, settings: { retries: o.retries ?? 2, fetchBatchSize: 3, stagingRowsPerFile: 4 }, signal: o.signal }), encoder };
  const branches = [syntheticBranch('b0', 0, wrap)];
  const { states, units } = planPhase('masters', syntheticDefs.slice(0, 1), branches);
  await prepareSchemas(ctx, silentLogger, branches, states, units);
  return { ctx, u: units[0], st: states.get('customers')! };
}

describe('extractUnit', () => {
  it('stages every row of the unit as Parquet with the injected columns and the watermark maxima', async () => {
    const { ctx, u, st } = await setup();
    await extractUnit(ctx, u, st);
    expect([u.status, u.attempts, u.rows]).toEqual(['SUCCESS', 1, 10]);
    expect(u.files.length).toBe(2); // batches of 3 rows, a file cut at ≥ 4 rows: 6 + 4
    const rows = (await Promise.all(u.files.map((f) => stagedBatches(f)))).flat().flatMap((b) => b.toArray().map((r) => r.toJSON()));
    expect(rows.map((r) => Number(r.CUSTOMER_ID))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(rows.map((r) => r.BRANCH_ID))).toEqual(new Set(['b0']));
    expect(u.stats!.max.UPDATED_AT!.text).toBe('2024-01-01 00:10:00.000000');
    expect(u.files.every((f) => f.path.startsWith(path.join(staging, 'etl-test', 'customers', 'b0')))).toBe(true);
  });

  it('a transient error mid-stream is retried: the failed attempt\'s rows are dropped, the retry stages them once', async () => {
    const { ctx, u, st } = await setup(failing(1, reset));
    await extractUnit(ctx, u, st);
    expect([u.status, u.attempts, u.rows]).toEqual(['SUCCESS', 2, 10]);
    const rows = (await Promise.all(u.files.map((f) => stagedBatches(f)))).flat().reduce((a, b) => a + b.numRows, 0);
    expect(rows).toBe(10);
    expect(ctx.records.filter((r) => r.message === 'transient error, retrying').map((r) => r.fields)).toMatchObject([{ attempt: 1, of: 3, delayMs: 1, error: 'read ECONNRESET' }]);
  });

  it('transient errors past the retries fail the unit (not fatal) after retries + 1 attempts', async () => {
    const { ctx, u, st } = await setup(failing(5, reset), { retries: 2 });
    await extractUnit(ctx, u, st);
    expect([u.status, u.attempts, u.fatal, u.error]).toEqual(['FAILED', 3, false, "etl: tables.json entry 'customers' (SELFTEST.CUSTOMERS) on branch b0: read ECONNRESET"]);
  });

  it('a non-transient error fails the unit at once as fatal', async () => {
    const { ctx, u, st } = await setup(failing(5, () => Object.assign(new Error('relation "selftest.customers" does not exist'), { code: '42P01' })));
    await extractUnit(ctx, u, st);
    expect([u.status, u.attempts, u.fatal]).toEqual(['FAILED', 1, true]);
    expect(ctx.records.some((r) => r.message === 'failed (not retried)')).toBe(true);
  });

  it('an abort while waiting to retry throws the abort reason instead of recording a result', async () => {
    const ac = new AbortController();
    const { ctx, u, st } = await setup(failing(1, reset), { signal: ac.signal });
    ctx.settings.retryDelayMs = 60_000;
    // abort once the retry's wait has begun (the warning is logged just before it)
    ctx.log = createLogger((r) => { if (r.message === 'transient error, retrying') setImmediate(() => ac.abort(new Error('interrupted'))); });
    await expect(extractUnit(ctx, u, st)).rejects.toThrow('interrupted');
    expect(u.status).toBeUndefined();
  });
});
