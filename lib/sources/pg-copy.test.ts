import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../testing/pg';
import { createPgClient } from '../db/pg-connect';
import { copyIn } from './pg-copy-in';
import { copyOut } from './pg-copy-out';
import type pg from 'pg';

let db: { url: string; drop(): Promise<void> };
let a: pg.Client;
let b: pg.Client;

beforeAll(async () => {
  db = await createScratchDatabase('copy');
  a = createPgClient({ connectionString: db.url });
  b = createPgClient({ connectionString: db.url });
  await a.connect();
  await b.connect();
  await a.query(`CREATE TABLE src (id int PRIMARY KEY, note text); CREATE TABLE dst (id int PRIMARY KEY, note text);
    INSERT INTO src SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE E'line\\nbreak \\t ' || g END FROM generate_series(1, 30000) g`);
});
afterAll(async () => { await a?.end(); await b?.end(); await db?.drop(); });

describe('copyOut / copyIn (the one COPY reader and writer)', () => {
  it('streams a table out in row-aligned chunks and into another one, intact', async () => {
    const sink = copyIn(b, 'COPY dst FROM STDIN');
    let chunks = 0;
    for await (const chunk of copyOut(a, 'COPY src TO STDOUT', { chunkBytes: 4096 })) {
      chunks++;
      expect(chunk.at(-1)).toBe(10); // whole text rows only
      await sink.write(chunk);
    }
    expect(chunks).toBeGreaterThan(10);
    expect(await sink.end()).toBe(30000);
    const same = await a.query(`SELECT count(*)::int AS n FROM src FULL JOIN dst USING (id) WHERE src.note IS DISTINCT FROM dst.note`);
    expect(same.rows[0].n).toBe(0);
  });
  it('a row the server rejects fails the copy with its message; the session stays usable', async () => {
    const sink = copyIn(b, 'COPY dst FROM STDIN');
    await sink.write(Buffer.from('1\tduplicate key\n'));
    await expect(sink.end()).rejects.toThrow(/duplicate key value/);
    expect((await b.query('SELECT 1 AS x')).rows[0].x).toBe(1);
  });
  it('an abort stops the read with the reason', async () => {
    const ac = new AbortController();
    const c = createPgClient({ connectionString: db.url });
    c.on('error', () => {});
    await c.connect();
    const read = (async () => {
      for await (const chunk of copyOut(c, 'COPY (SELECT s.* FROM src s CROSS JOIN generate_series(1, 200)) TO STDOUT', { signal: ac.signal })) {
        void chunk;
        ac.abort(new Error('stop now'));
      }
    })();
    await expect(read).rejects.toThrow('stop now');
    await c.end().catch(() => {});
  });
});
