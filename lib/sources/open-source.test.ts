import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../testing/pg';
import { captureWatermark, openSource, openSourceDialect, openSourceQuery, createPgClient, type PostgresDescriptor } from './index';

let src: { url: string; drop(): Promise<void> };
let d: PostgresDescriptor;

beforeAll(async () => {
  src = await createScratchDatabase('open');
  const c = createPgClient({ connectionString: src.url });
  await c.connect();
  await c.query('CREATE TABLE public.t (id bigint PRIMARY KEY, v text); INSERT INTO public.t SELECT g, g::text FROM generate_series(1, 1000) g; ANALYZE public.t;');
  await c.end();
  // discrete settings, as a stored connection or SOURCE_PG_* give them (no URL, no sslmode: libpq's prefer)
  const u = new URL(src.url);
  d = { kind: 'postgres', name: 'b1', host: u.hostname, port: Number(u.port), database: u.pathname.slice(1), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
});
afterAll(async () => { await src?.drop(); });

describe('openSource… from one descriptor (every engine\'s entry)', () => {
  it('openSource reads batched Arrow rows', async () => {
    const s = openSource(d, { poolSize: 2 });
    try {
      const q = { sql: 'SELECT id, v FROM public.t', binds: [] };
      const cols = await s.describe(q);
      const schema = new arrow.Schema([new arrow.Field('ID', new arrow.Int64()), new arrow.Field('V', new arrow.Utf8())]);
      const stats = { rows: 0, max: {} };
      let rows = 0;
      for await (const b of s.read(q, cols, { schema, fields: [{ name: 'ID', type: { kind: 'long' } }, { name: 'V', type: { kind: 'string' } }], constants: {}, track: [] }, { batchSize: 300, stats })) rows += b.numRows;
      expect(rows).toBe(1000);
    } finally { await s.close(); }
  });
  it('openSourceDialect plans ctid ranges; openSourceQuery captures the WAL LSN', async () => {
    const dialect = await openSourceDialect(d);
    try {
      expect(await dialect.isPartitioned('public.t')).toBe(false);
      const plan = await dialect.physicalRanges('public.t', 2);
      expect(plan.ranges.length).toBeGreaterThanOrEqual(1);
      expect(dialect.exec.log.every((e) => e.readOnly)).toBe(true);
    } finally { await dialect.exec.close(); }
    const q = await openSourceQuery(d);
    try {
      const w = await captureWatermark(q);
      expect(w.label).toBe('PostgreSQL WAL LSN');
      expect(w.value).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      expect(w.sourceDsn).toBe(`${d.host}:${d.port}/${d.database}`);
    } finally { await q.close(); }
  });
});
