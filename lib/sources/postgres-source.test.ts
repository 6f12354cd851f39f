import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { createPostgresSource } from './postgres-source';
import { renderQuery } from './render';
import type { BranchSource, ReadStats, ReadTarget, SourceColumn } from './types';

/**
 * The binary COPY reader's lifecycle on a real server: every row arrives once
 * and in full, and a read that is aborted, abandoned half way or failed never
 * leaves a connection mid-COPY in the branch's pool (the pool has one
 * connection, so the next read would hang or fail if it did).
 */
describe('postgres source: COPY reads', () => {
  let db: TestDatabase;
  let src: BranchSource;
  const ROWS = 120_000;
  const spec = { source: { kind: 'table' as const, name: 'src.items' }, cdcColumn: 'UPDATED_AT' };

  beforeAll(async () => {
    db = await createTestDatabase({ template: false });
    await db.pool.query(`CREATE SCHEMA src; CREATE TABLE src.items (id int8 PRIMARY KEY, name text, amount numeric(12,2), updated_at timestamp);
      INSERT INTO src.items SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE 'item ' || g END, g * 0.01, timestamp '2024-01-01' + g * interval '1 second' FROM generate_series(1, ${ROWS}) g`);
    src = createPostgresSource({ branch: 'b0', connectionString: db.url, poolSize: 1 });
  });
  afterAll(async () => { await src?.close(); await db?.drop(); });

  async function setup(): Promise<{ cols: SourceColumn[]; target: ReadTarget; q: ReturnType<typeof renderQuery> & { table: string } }> {
    const q = { ...renderQuery(spec, 'postgres', { mode: 'INITIAL' }), table: 'src.items' };
    const cols = await src.describe(q);
    const fields = cols.map((c) => ({ name: c.name, type: c.type }));
    const schema = new arrow.Schema(cols.map((c) => new arrow.Field(c.name, c.type.kind === 'long' ? new arrow.Int64() : c.type.kind === 'string' ? new arrow.Utf8() : c.type.kind === 'decimal' ? new arrow.Decimal(c.type.scale, c.type.precision, 128) : new arrow.TimestampMicrosecond(), true)));
    return { cols, q, target: { schema, fields, constants: {}, track: ['UPDATED_AT'] } };
  }

  it('reads every row once, values intact, and tracks the maximum', async () => {
    const { cols, q, target } = await setup();
    const stats: ReadStats = { rows: 0, max: {} };
    let n = 0, sumIds = 0n, nulls = 0;
    for await (const b of src.read(q, cols, target, { batchSize: 10_000, stats })) {
      const ids = b.getChild('ID')!, names = b.getChild('NAME')!;
      for (let i = 0; i < b.numRows; i++) {
        const id = ids.get(i) as bigint;
        sumIds += id;
        const name = names.get(i);
        if (name === null) { nulls++; expect(id % 10n).toBe(0n); } else expect(name).toBe(`item ${id}`);
      }
      n += b.numRows;
    }
    expect(n).toBe(ROWS);
    expect(stats.rows).toBe(ROWS);
    expect(sumIds).toBe(BigInt(ROWS) * BigInt(ROWS + 1) / 2n);
    expect(nulls).toBe(ROWS / 10);
    expect(stats.max.UPDATED_AT?.text).toBe('2024-01-02 09:20:00.000000');
  });

  it('an abort mid-read rejects with the reason, and the pool serves the next read', async () => {
    const { cols, q, target } = await setup();
    const ac = new AbortController();
    const reason = new Error('cancelled by operator');
    let seen = 0;
    await expect((async () => {
      for await (const b of src.read(q, cols, target, { batchSize: 5_000, signal: ac.signal, stats: { rows: 0, max: {} } })) {
        seen += b.numRows;
        if (seen >= 10_000) ac.abort(reason);
      }
    })()).rejects.toThrow('cancelled by operator');
    expect(seen).toBeLessThan(ROWS);
    let n = 0;
    for await (const b of src.read(q, cols, target, { batchSize: 50_000, stats: { rows: 0, max: {} } })) n += b.numRows;
    expect(n).toBe(ROWS);
  });

  it('a consumer that stops early does not leave its connection mid-COPY', async () => {
    const { cols, q, target } = await setup();
    for await (const b of src.read(q, cols, target, { batchSize: 5_000, stats: { rows: 0, max: {} } })) { expect(b.numRows).toBe(5_000); break; }
    let n = 0;
    for await (const b of src.read(q, cols, target, { batchSize: 50_000, stats: { rows: 0, max: {} } })) n += b.numRows;
    expect(n).toBe(ROWS);
  });

  it('a failing statement surfaces the server message, and the pool serves the next read', async () => {
    const { cols, target } = await setup();
    // division by zero at the 50,000th row: the error arrives mid-stream, after rows were sent
    const bad = { sql: 'SELECT t.* FROM src.items t WHERE 1 / (t.id - 50000) > -1000000', binds: [], table: 'src.items' };
    await expect((async () => { for await (const _ of src.read(bad, cols, target, { batchSize: 5_000, stats: { rows: 0, max: {} } })) { /* drain */ } })()).rejects.toThrow(/division by zero/);
    const { q } = await setup();
    let n = 0;
    for await (const b of src.read(q, cols, target, { batchSize: 50_000, stats: { rows: 0, max: {} } })) n += b.numRows;
    expect(n).toBe(ROWS);
  });
});
