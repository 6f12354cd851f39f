import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';
import { toArrowType } from './arrow-types';
import { createPostgresSource } from './postgres-source';
import type { BranchSource, ReadTarget, RenderedQuery } from './types';

/**
 * PostgreSQL arrays, enums and domains as the COPY reader sees them: an array
 * is a list of its element type (NULL elements kept, a multi-dimensional
 * array flattened), an enum (or an enum's array) is text, a domain its base type.
 */
describe('postgres source: arrays, enums, domains', () => {
  let db: TestDatabase;
  let src: BranchSource;

  beforeAll(async () => {
    db = await createTestDatabase({ template: false });
    await db.pool.query(`CREATE SCHEMA s; CREATE TYPE s.rating AS ENUM ('G', 'PG-13'); CREATE DOMAIN s.year AS integer CHECK (VALUE >= 1901);
      CREATE TABLE s.t (id int PRIMARY KEY, tags text[], nums int[], big int8[], ratings s.rating[], r s.rating, y s.year, grid int[][], vc varchar(5)[], amounts numeric(6,2)[]);
      INSERT INTO s.t VALUES
        (1, ARRAY['Trailers', NULL, 'a{b}c', '', 'é "q"'], ARRAY[1, NULL, -3], ARRAY[9007199254740993], ARRAY['G', 'PG-13']::s.rating[], 'PG-13', 2006, ARRAY[[1,2],[3,4]], ARRAY['x', NULL], ARRAY[1.5, NULL]),
        (2, NULL, '{}', NULL, NULL, NULL, NULL, NULL, '{}', NULL),
        (3, ARRAY[NULL]::text[], ARRAY[NULL]::int[], '{}', '{}', 'G', 1999, '{}', NULL, '{}')`);
    src = createPostgresSource({ branch: 'b0', connectionString: db.url, poolSize: 1 });
  });
  afterAll(async () => { await src?.close(); await db?.drop(); });

  it('describes arrays as lists of their element type, enums as text, a domain as its base type', async () => {
    const cols = await src.describe({ sql: 'SELECT * FROM s.t', binds: [] });
    const t = Object.fromEntries(cols.map((c) => [c.name, c.type]));
    expect(t.TAGS).toEqual({ kind: 'list', element: { kind: 'string' } });
    expect(t.NUMS).toEqual({ kind: 'list', element: { kind: 'int' } });
    expect(t.BIG).toEqual({ kind: 'list', element: { kind: 'long' } });
    expect(t.RATINGS).toEqual({ kind: 'list', element: { kind: 'string' } });
    expect(t.R).toEqual({ kind: 'string' });
    expect(t.Y).toEqual({ kind: 'int' });
    expect(t.VC).toEqual({ kind: 'list', element: { kind: 'string' } });
    expect(t.AMOUNTS).toEqual({ kind: 'list', element: { kind: 'decimal', precision: 6, scale: 2 } });
  });

  it('reads lists element by element, NULL elements and empty lists kept', async () => {
    const q: RenderedQuery = { sql: 'SELECT * FROM s.t ORDER BY id', binds: [] };
    const cols = await src.describe(q);
    const fields = cols.map((c) => ({ name: c.name, type: c.type }));
    const target: ReadTarget = { schema: new arrow.Schema(fields.map((f) => new arrow.Field(f.name, toArrowType(f.type), true))), fields, constants: {}, track: [] };
    const rows: Record<string, unknown>[] = [];
    for await (const b of src.read(q, cols, target, { batchSize: 2, stats: { rows: 0, max: {} } })) {
      for (let i = 0; i < b.numRows; i++) {
        const r: Record<string, unknown> = {};
        for (const f of b.schema.fields) {
          const v = b.getChild(f.name)!.get(i);
          r[f.name] = v && typeof v === 'object' && 'toArray' in v && f.type.typeId === arrow.Type.List ? [...(v as arrow.Vector)] : v;
        }
        rows.push(r);
      }
    }
    expect(rows.map((r) => r.TAGS)).toEqual([['Trailers', null, 'a{b}c', '', 'é "q"'], null, [null]]);
    expect(rows.map((r) => r.NUMS)).toEqual([[1, null, -3], [], [null]]);
    expect(rows.map((r) => r.BIG)).toEqual([[9007199254740993n], null, []]);
    expect(rows.map((r) => r.RATINGS)).toEqual([['G', 'PG-13'], null, []]);
    expect(rows.map((r) => r.R)).toEqual(['PG-13', null, 'G']);
    expect(rows.map((r) => r.Y)).toEqual([2006, null, 1999]);
    expect(rows.map((r) => r.GRID)).toEqual([[1, 2, 3, 4], null, []]);
    expect(rows.map((r) => r.VC)).toEqual([['x', null], [], null]);
    expect(rows[0].AMOUNTS).toHaveLength(2);
    expect((rows[0].AMOUNTS as unknown[])[1]).toBeNull();
  });
});
