import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLogicalPostgres, type LogicalPostgres } from '../testing/logical-pg';
import { formatLsn, parseLsn } from './lsn';
import { decodePgOutput, type PgOutputMessage } from './pgoutput';

// Real pgoutput messages: a server with wal_level=logical decodes a slot through
// pg_logical_slot_get_binary_changes, the same bytes START_REPLICATION streams.
describe('pgoutput decoder', () => {
  let server: LogicalPostgres;
  let c: pg.Client;
  beforeAll(async () => {
    server = await startLogicalPostgres();
    c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query(`CREATE TABLE public.items (id int PRIMARY KEY, name text, price numeric(10,2), seen timestamptz, big text)`);
    await c.query(`CREATE TABLE public.nokey (a int, b text)`);
    await c.query(`ALTER TABLE public.nokey REPLICA IDENTITY FULL`);
    await c.query(`CREATE PUBLICATION p FOR TABLE public.items, public.nokey`);
    await c.query(`SELECT pg_create_logical_replication_slot('s', 'pgoutput')`);
  }, 120_000);
  afterAll(async () => { await c?.end(); await server?.stop(); }, 60_000);

  const changes = async (): Promise<PgOutputMessage[]> => {
    const r = await c.query(`SELECT data FROM pg_logical_slot_get_binary_changes('s', NULL, NULL, 'proto_version', '1', 'publication_names', 'p')`);
    return r.rows.map((x) => decodePgOutput(x.data as Buffer));
  };

  it('decodes begin, relation, insert, update, delete, truncate and commit, and skips rolled-back work', async () => {
    const big = crypto.randomBytes(9000).toString('base64'); // incompressible: stored out of line (TOAST)
    await c.query(`INSERT INTO public.items VALUES (1, 'a''b', 12.50, '2024-05-01 10:00:00+00', $1), (2, NULL, 3, NULL, NULL)`, [big]);
    await c.query('BEGIN');
    await c.query(`INSERT INTO public.items VALUES (99, 'never', 1, NULL, NULL)`);
    await c.query('ROLLBACK');
    await c.query(`UPDATE public.items SET name = 'renamed' WHERE id = 1`);
    await c.query(`UPDATE public.items SET id = 3 WHERE id = 2`);
    await c.query(`DELETE FROM public.items WHERE id = 3`);
    await c.query(`INSERT INTO public.nokey VALUES (7, 'q')`);
    await c.query(`DELETE FROM public.nokey WHERE a = 7`);
    await c.query(`TRUNCATE public.nokey`);
    const m = await changes();
    expect(m.map((x) => x.tag)).toEqual([
      'begin', 'relation', 'insert', 'insert', 'commit',
      'begin', 'update', 'commit',
      'begin', 'update', 'commit',
      'begin', 'delete', 'commit',
      'begin', 'relation', 'insert', 'commit',
      'begin', 'delete', 'commit',
      'begin', 'relation', 'truncate', 'commit', // a truncate sends its relations again
    ]);
    const rel = m[1] as Extract<PgOutputMessage, { tag: 'relation' }>;
    expect(rel).toMatchObject({ schema: 'public', name: 'items', replicaIdentity: 'd' });
    expect(rel.columns.map((x) => [x.name, x.isKey, x.typeOid])).toEqual([['id', true, 23], ['name', false, 25], ['price', false, 1700], ['seen', false, 1184], ['big', false, 25]]);
    expect(rel.columns[2].typeMod).toBe(((10 << 16) | 2) + 4);
    expect((m[2] as { row: unknown[] }).row).toEqual(['1', "a'b", '12.50', '2024-05-01 10:00:00+00', big]);
    expect((m[3] as { row: unknown[] }).row).toEqual(['2', null, '3.00', null, null]);
    // an update leaving a TOASTed value untouched sends it as unchanged (undefined), not its value
    const upd = m[6] as Extract<PgOutputMessage, { tag: 'update' }>;
    expect(upd.key).toBeNull();
    expect(upd.row).toEqual(['1', 'renamed', '12.50', '2024-05-01 10:00:00+00', undefined]);
    // a key change carries the old key
    const moved = m[9] as Extract<PgOutputMessage, { tag: 'update' }>;
    expect(moved.key).toEqual(['2', null, null, null, null]);
    expect(moved.row[0]).toBe('3');
    expect((m[12] as Extract<PgOutputMessage, { tag: 'delete' }>).key).toEqual(['3', null, null, null, null]);
    // REPLICA IDENTITY FULL: the whole old row
    expect((m[19] as Extract<PgOutputMessage, { tag: 'delete' }>).old).toEqual(['7', 'q']);
    expect((m[23] as Extract<PgOutputMessage, { tag: 'truncate' }>).relationIds).toEqual([(m[15] as { relationId: number }).relationId]);
    const begin = m[0] as Extract<PgOutputMessage, { tag: 'begin' }>;
    const commit = m[4] as Extract<PgOutputMessage, { tag: 'commit' }>;
    expect(commit.commitLsn).toBe(begin.finalLsn);
    expect(commit.endLsn > commit.commitLsn).toBe(true);
  });

  it('a new column arrives as a new relation message', async () => {
    await c.query(`ALTER TABLE public.items ADD COLUMN qty bigint`);
    await c.query(`INSERT INTO public.items (id, qty) VALUES (10, 5)`);
    const m = await changes();
    const rel = m.find((x) => x.tag === 'relation') as Extract<PgOutputMessage, { tag: 'relation' }>;
    expect(rel.columns.map((x) => x.name)).toEqual(['id', 'name', 'price', 'seen', 'big', 'qty']);
    expect((m.find((x) => x.tag === 'insert') as { row: unknown[] }).row).toEqual(['10', null, null, null, null, '5']);
  });

  it('LSNs round-trip their text form', () => {
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848');
    expect(parseLsn('0/10')).toBe(16n);
    expect(parseLsn('1/0') - parseLsn('0/FFFFFFFF')).toBe(1n);
  });
});
