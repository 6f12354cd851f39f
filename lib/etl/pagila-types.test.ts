import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import { silentLogger } from '../log';
import { type Lake, type LakeTable } from '../lake';
import { lakeTarget } from './lake-target';
import { runEtl, type BranchHandle } from './runner';
import { DEFAULT_SETTINGS, type EtlSettings } from './settings';
import { parseTablesConfig } from '../config/tables-json';
import { PAGILA_TABLES, seedPagila } from '../testing/pagila-fixtures';
import { chdbRows, icebirdRows } from './test-lake-readers';
import { runDq } from '../dq/run';
import { openPostgresDqSource } from '../dq/source';
import { plainRow } from '../lake/format';
import { parquetMetadataAsync } from 'hyparquet';
import { useEtlLake } from '../testing/etl-lake-fixture';

// Pagila's kinds of types over two PostgreSQL branches, loaded INITIAL by the real ETL and read
// back by ClickHouse (chdb) and icebird, value by value against the sources: arrays as lists
// (NULL elements kept), enums as text, a domain as its base int, tsvector as text, bytea bytes,
// uuid as text, a VIRTUAL generated column's computed values, timestamptz instants written from
// a São Paulo session, microseconds kept; key columns required and listed as the schema's
// identifier-field-ids.
const N = 2;
let db: TestDatabase;
let lake: Lake;
let staging: string;
let branches: BranchHandle[];
const tables = parseTablesConfig(PAGILA_TABLES);
const settings = (o: Partial<EtlSettings>): EtlSettings => ({ ...DEFAULT_SETTINGS, retries: 0, retryDelayMs: 10, fetchBatchSize: 7, stagingRowsPerFile: 20, ...o });

type Kind = 'int' | 'text' | 'decimal' | 'bytes' | 'ts' | 'tstz' | 'list';
/** What each lake column holds, by source column (lower case, as PostgreSQL names it). */
const COLUMNS: Record<string, Record<string, Kind>> = {
  film: { film_id: 'int', title: 'text', release_year: 'int', rating: 'text', special_features: 'list', scores: 'list', fulltext: 'text', poster: 'bytes', rental_rate: 'decimal', last_update: 'tstz', length: 'int', length_hours: 'decimal' },
  payment: { payment_id: 'int', customer_id: 'int', amount: 'decimal', payment_date: 'tstz', uuid: 'text' },
  rental: { rental_id: 'int', rental_date: 'ts', return_date: 'ts', last_update: 'ts', returnnote: 'text' },
};

/** Source rows of a table as [branch, ...values] in canonical form (µs timestamps in UTC, hex bytes, arrays as arrays). */
async function sourceRows(table: string): Promise<string[]> {
  const cols = COLUMNS[table];
  const out: string[] = [];
  for (let i = 0; i < N; i++) {
    const c = new pg.Client({ connectionString: scratch[i].url });
    await c.connect();
    try {
      const exprs = Object.entries(cols).map(([n, k]) => {
        if (k === 'ts') return `to_char(t.${n}, 'YYYY-MM-DD HH24:MI:SS.US')`;
        if (k === 'tstz') return `to_char(t.${n} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;
        if (k === 'bytes') return `encode(t.${n}, 'hex')`;
        if (k === 'list') return `to_jsonb(t.${n})::text`;
        return n === 'returnnote' ? 't."ReturnNote"' : `t.${n}::text`;
      });
      const rows = (await c.query({ text: `SELECT ${exprs.join(', ')} FROM pagila.${table} t`, rowMode: 'array' })).rows as (string | null)[][];
      for (const r of rows) out.push(JSON.stringify([`b${i}`, ...r.map((v, j) => (Object.values(cols)[j] === 'list' && v !== null ? JSON.parse(v) : v))]));
    } finally { await c.end(); }
  }
  return out.sort();
}

function lakeColumn(t: LakeTable, source: string): string {
  const f = t.arrowSchema().fields.find((x) => x.name.toLowerCase() === source);
  if (!f) throw new Error(`no lake column for ${source}`);
  return f.name;
}

/** The lake through ClickHouse, rendered like `sourceRows`. */
function chdbCanonical(t: LakeTable, table: string): string[] {
  const cols = Object.entries(COLUMNS[table]);
  const sel = cols.map(([n, k], j) => {
    const c = lakeColumn(t, n);
    if (k === 'ts' || k === 'tstz') return `formatDateTime(${c}, '%Y-%m-%d %H:%i:%S.%f', 'UTC') AS c${j}`;
    if (k === 'bytes') return `lower(hex(${c})) AS c${j}`;
    if (k === 'list') return `${c} AS c${j}`;
    return `toString(${c}) AS c${j}`;
  });
  const rows = chdbRows(t, (from) => `SELECT BRANCH_ID, ${sel.join(', ')} FROM ${from}`);
  return rows.map((r) => JSON.stringify([r.BRANCH_ID, ...cols.map((_, j) => r[`c${j}`])])).sort();
}

/** ClickHouse has no NULL array (Array cannot be Nullable): it reads a NULL list as []. icebird sees the NULL. */
const nullListsAsEmpty = (rows: string[], table: string) => rows.map((s) => {
  const kinds = Object.values(COLUMNS[table]);
  return JSON.stringify((JSON.parse(s) as unknown[]).map((v, j) => (j > 0 && kinds[j - 1] === 'list' && v === null ? [] : v)));
}).sort();

/** The lake through icebird (timestamps come back as Dates: compared to the millisecond). */
async function icebirdCanonical(t: LakeTable, table: string): Promise<string[]> {
  const cols = Object.entries(COLUMNS[table]);
  return (await icebirdRows(t)).map((r) => JSON.stringify([r.BRANCH_ID, ...cols.map(([n, k]) => {
    const v = r[lakeColumn(t, n)];
    if (v === null || v === undefined) return null;
    if (k === 'ts' || k === 'tstz') return (v as Date).toISOString().replace('T', ' ').slice(0, 23);
    // icebird (hyparquet's default) decodes a plain BYTE_ARRAY as UTF-8 text: `toMillis` puts the expected bytes through the same decoding
    if (k === 'bytes') return typeof v === 'string' ? `utf8:${v}` : Buffer.from(v as Uint8Array).toString('hex');
    if (k === 'list') return (v as unknown[]).map((x) => (typeof x === 'bigint' ? Number(x) : x ?? null));
    if (k === 'decimal') return Number(v).toFixed(2);
    return String(v);
  })])).sort();
}

/** The source rows as icebird can return them: timestamps to the millisecond, bytes decoded as UTF-8. */
const toMillis = (rows: string[], table: string) => rows.map((s) => {
  const kinds = Object.values(COLUMNS[table]);
  const r = JSON.parse(s) as unknown[];
  return JSON.stringify(r.map((v, j) => {
    if (j === 0 || typeof v !== 'string') return v;
    const k = kinds[j - 1];
    if (k === 'ts' || k === 'tstz') return v.slice(0, 23);
    if (k === 'bytes') return `utf8:${Buffer.from(v, 'hex').toString('utf8')}`;
    return v;
  }));
}).sort();

const fx = useEtlLake({ name: 'pagila', count: N, seed: (url, i) => seedPagila(url, i) });
const scratch = fx.scratch;
beforeAll(() => { ({ db, lake, staging, branches } = fx); });

describe('Pagila-like types into the lake', () => {
  it('INITIAL: every lake table equals its sources, value by value, through ClickHouse and icebird', async () => {
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'pagila' }), branches, tables, settings: settings({ mode: 'INITIAL', namespace: 'pagila' }), logger: silentLogger, stagingRoot: staging });
    expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    for (const table of Object.keys(COLUMNS)) {
      const t = await lake.loadTable(`pagila.${table}`);
      const want = await sourceRows(table);
      expect(want.length, table).toBeGreaterThan(0);
      expect(chdbCanonical(t, table), `${table} via ClickHouse`).toEqual(nullListsAsEmpty(want, table));
      expect(await icebirdCanonical(t, table), `${table} via icebird`).toEqual(toMillis(want, table));
    }
    // spot checks of what a text rendering used to hide
    const film = chdbRows(await lake.loadTable('pagila.film'), (f) => `SELECT special_features AS sf, toTypeName(special_features) AS t, toTypeName(scores) AS st, toTypeName(release_year) AS yt, toTypeName(rating) AS rt FROM ${f} WHERE title = 'ACADEMY DINOSAUR' LIMIT 1`)[0];
    expect(film.sf).toEqual(['Trailers', null, 'a{b}c', 'Deleted Scenes', 'with "quote"', '']);
    expect(film.t).toBe('Array(Nullable(String))');
    expect(film.st).toBe('Array(Nullable(Int32))');
    expect(film.yt).toBe('Nullable(Int32)');
    expect(film.rt).toBe('Nullable(String)');
  });

  it('metadata: key columns and BRANCH_ID are required and the identifier fields; lists have optional elements', async () => {
    const expectKeys: Record<string, string[]> = { film: ['BRANCH_ID', 'FILM_ID'], payment: ['BRANCH_ID', 'PAYMENT_ID', 'PAYMENT_DATE'], rental: ['BRANCH_ID', 'RENTAL_ID'] };
    for (const [table, keys] of Object.entries(expectKeys)) {
      const t = await lake.loadTable(`pagila.${table}`);
      // the metadata JSON file as other engines read it
      const meta = JSON.parse(new TextDecoder().decode(await lake.storage.read(t.metadataLocation())));
      const schema = meta.schemas.find((s: { 'schema-id': number }) => s['schema-id'] === meta['current-schema-id']);
      const byId = new Map<number, { name: string; required: boolean; type: unknown }>(schema.fields.map((f: { id: number }) => [f.id, f]));
      expect(schema['identifier-field-ids'].map((id: number) => byId.get(id)!.name), table).toEqual(keys.map((k) => lakeColumnName(t, k)));
      for (const f of schema.fields) expect(f.required, `${table}.${f.name}`).toBe(keys.some((k) => k.toLowerCase() === f.name.toLowerCase()));
    }
    const film = await lake.loadTable('pagila.film');
    const meta = JSON.parse(new TextDecoder().decode(await lake.storage.read(film.metadataLocation())));
    const fields = meta.schemas.at(-1).fields as { id: number; name: string; type: { 'element-id': number } }[];
    const sf = fields.find((f) => f.name.toLowerCase() === 'special_features')!;
    expect(sf.type).toEqual({ type: 'list', 'element-id': expect.any(Number), element: 'string', 'element-required': false });
    expect(meta['last-column-id']).toBeGreaterThanOrEqual(Math.max(...fields.map((f) => Math.max(f.id, f.type['element-id'] ?? 0))));
    const ids = fields.flatMap((f) => [f.id, ...(f.type['element-id'] ? [f.type['element-id']] : [])]);
    expect(new Set(ids).size).toBe(ids.length);
    // the adopted (staged) Parquet files carry the element's field id, as the spec's readers resolve it
    for (const file of (await film.files()).filter((f) => f.content === 'data')) {
      const bytes = new Uint8Array(await lake.storage.read(file.path));
      const md = await parquetMetadataAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      const at = md.schema.findIndex((x) => x.name.toLowerCase() === 'special_features');
      expect(md.schema[at + 2]).toMatchObject({ name: 'element', field_id: sf.type['element-id'] });
    }
  });

  it('INCREMENTAL: changed arrays merge as lists', async () => {
    for (let i = 0; i < N; i++) {
      const c = new pg.Client({ connectionString: scratch[i].url });
      await c.connect();
      try {
        await c.query(`UPDATE pagila.film SET special_features = '{NULL,"x,y"}', scores = NULL, last_update = '2023-01-01 00:00:00.000007+00' WHERE title = 'ACE GOLDFINGER'`);
        await c.query(`INSERT INTO pagila.film (title, special_features, last_update) VALUES ('NEW', '{"Behind the Scenes"}', '2023-01-02')`);
      } finally { await c.end(); }
    }
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'pagila' }), branches, tables, settings: settings({ mode: 'INCREMENTAL', namespace: 'pagila' }), logger: silentLogger, stagingRoot: staging });
    expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
    const t = await lake.loadTable('pagila.film');
    expect(chdbCanonical(t, 'film')).toEqual(nullListsAsEmpty(await sourceRows('film'), 'film'));
    expect(await icebirdCanonical(t, 'film')).toEqual(toMillis(await sourceRows('film'), 'film'));
  });

  it('DQ sees lists, enums, domains and bytea equal to the source, and finds a changed array element', async () => {
    const dqBranches = () => scratch.map((s, i) => ({ key: `b${i}`, open: () => openPostgresDqSource({ branch: `b${i}`, connectionString: s.url }) }));
    const film = tables.filter((t) => t.lakeName === 'film');
    const dq = () => runDq({ pool: db.pool, lake, tables: film, branches: dqBranches(), logger: silentLogger }, { namespace: 'pagila', since: '2000-01-01' });
    const ok = await dq();
    expect(ok.results.map((x) => `${x.table}@${x.branch}: ${x.status}`)).toEqual(['film@b0: OK', 'film@b1: OK']);
    const c = new pg.Client({ connectionString: scratch[1].url });
    await c.connect();
    try { await c.query(`UPDATE pagila.film SET special_features[3] = 'a{b}C' WHERE title = 'ACADEMY DINOSAUR'`); } finally { await c.end(); }
    const bad = await dq();
    expect(bad.results.map((x) => `${x.table}@${x.branch}: ${x.status}`)).toEqual(['film@b0: OK', expect.stringMatching(/^film@b1: (?!OK)/)]);
    // the preview (plain rows) shows a list as a JSON array
    const t = await lake.loadTable('pagila.film');
    for await (const b of t.scan({ filter: [{ column: 'title', in: ['ACADEMY DINOSAUR'] }], limit: 1 })) {
      expect(plainRow(b, 0).special_features).toEqual(['Trailers', null, 'a{b}c', 'Deleted Scenes', 'with "quote"', '']);
    }
  });
});

describe('required keys', () => {
  it('a NULL in a key column fails its unit naming the table, branch and column', async () => {
    const defs = parseTablesConfig([{ table: '(SELECT t.rental_id, t.return_date FROM pagila.rental t)', name: 'returns', unique_key: 'return_date', category: 'masters' }]);
    const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'keys' }), branches, tables: defs, settings: settings({ mode: 'INITIAL', namespace: 'keys' }), logger: silentLogger, stagingRoot: staging });
    expect(r.units.map((u) => `${u.branch}: ${u.status}`).sort()).toEqual(['b0: FAILED', 'b1: FAILED']);
    expect(r.units[0].error).toMatch(/returns on branch b\d: key column return_date has 1 NULL value\(s\); a unique_key column must not be NULL/);
  });
});

describe('column naming (tables.json naming)', () => {
  const rental = PAGILA_TABLES.filter((e) => e.table === 'PAGILA.RENTAL');
  const lakeNames = async (ns: string) => (await lake.loadTable(`${ns}.rental`)).arrowSchema().fields.map((f) => f.name);

  it('each convention names the lake columns its way; BRANCH_ID and the load times keep theirs', async () => {
    const want: Record<string, string[]> = {
      upper: ['RENTAL_ID', 'RENTAL_DATE', 'RETURN_DATE', 'LAST_UPDATE', 'RETURNNOTE'],
      preserve: ['rental_id', 'rental_date', 'return_date', 'last_update', 'ReturnNote'],
      lower: ['rental_id', 'rental_date', 'return_date', 'last_update', 'returnnote'],
      snake_case: ['rental_id', 'rental_date', 'return_date', 'last_update', 'return_note'],
    };
    for (const [naming, cols] of Object.entries(want)) {
      const ns = `n_${naming}`;
      // per entry here; the file's top-level default is exercised below
      const defs = parseTablesConfig(rental.map((e) => ({ ...e, naming })));
      const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: ns }), branches, tables: defs, settings: settings({ mode: 'INITIAL', namespace: ns }), logger: silentLogger, stagingRoot: staging });
      expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`), naming).toEqual([]);
      expect(await lakeNames(ns), naming).toEqual([...cols, 'BRANCH_ID', 'insert_at', 'Recorded_updated_at']);
      const t = await lake.loadTable(`${ns}.rental`);
      const rows = chdbRows(t, (f) => `SELECT ${cols[0]} AS id, ${cols[4]} AS note FROM ${f} WHERE BRANCH_ID = 'b0' ORDER BY id`);
      expect(rows, naming).toEqual([{ id: 1, note: 'late' }, { id: 2, note: null }, { id: 3, note: 'ok' }]);
      const meta = t.metadata();
      const schema = meta.schemas.find((x) => x['schema-id'] === meta['current-schema-id'])!;
      expect(schema['identifier-field-ids']!.map((id) => schema.fields.find((f) => f.id === id)!.name), naming).toEqual(['BRANCH_ID', cols[0]]);
    }
  });

  it('a table with no naming gets the default, preserve: PostgreSQL\'s own lower-case names', async () => {
    expect(tables.map((d) => d.naming)).toEqual(tables.map(() => 'preserve'));
    expect(await lakeNames('pagila')).toEqual(['rental_id', 'rental_date', 'return_date', 'last_update', 'ReturnNote', 'BRANCH_ID', 'insert_at', 'Recorded_updated_at']);
  });

  it('a lake created under upper (the old default) goes on loading and comparing under the default: no twin columns, values equal', async () => {
    // n_upper.rental was created by the first test with naming: upper (RENTAL_ID, …, RETURNNOTE)
    // deletes: detect too, so its key-set comparison resolves RENTAL_ID from rental_id as well
    const defs = parseTablesConfig(rental.map((e) => ({ ...e, deletes: 'detect' })));
    expect(defs[0].naming).toBe('preserve');
    const upperCols = ['RENTAL_ID', 'RENTAL_DATE', 'RETURN_DATE', 'LAST_UPDATE', 'RETURNNOTE', 'BRANCH_ID', 'insert_at', 'Recorded_updated_at'];
    expect(await lakeNames('n_upper')).toEqual(upperCols);
    const incremental = async (deleted: number) => {
      const r = await runEtl({ pool: db.pool, target: lakeTarget(lake, { namespace: 'n_upper' }), branches, tables: defs, settings: settings({ mode: 'INCREMENTAL', namespace: 'n_upper' }), logger: silentLogger, stagingRoot: staging });
      expect(r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`)).toEqual([]);
      expect(r.units.map((u) => u.rowsDeleted ?? 0)).toEqual([deleted, deleted]);
    };
    const dqBranches = () => scratch.map((s, i) => ({ key: `b${i}`, open: () => openPostgresDqSource({ branch: `b${i}`, connectionString: s.url }) }));
    const dq = (tables: typeof defs) => runDq({ pool: db.pool, lake, tables, branches: dqBranches(), logger: silentLogger }, { namespace: 'n_upper', since: '2000-01-01', write: false });
    const expectDqOk = async (columns: string[], rows: number) => {
      // under the default, and under naming: upper as the table was created
      const results = [...(await dq(defs)).results, ...(await dq(parseTablesConfig({ naming: 'upper', tables: rental }))).results];
      expect(results.map((x) => `${x.branch}: ${x.status} ${x.errorDetails ?? ''}`)).toEqual(['b0: OK ', 'b1: OK ', 'b0: OK ', 'b1: OK ']);
      for (const x of results) {
        // every lake column compared with its source column (film_id ↔ FILM_ID), none left out on either side
        expect(x.hashColumns).toEqual(columns);
        expect([x.columnsOnlyInOracle, x.columnsOnlyInIceberg, x.hashTotalDelta, x.oracleRowCount, x.icebergRowCount]).toEqual([[], [], 0, rows, rows]);
      }
    };

    // a changed row and a new one at the sources, merged into the upper-case columns
    for (let i = 0; i < N; i++) {
      const c = new pg.Client({ connectionString: scratch[i].url });
      await c.connect();
      try {
        await c.query(`UPDATE pagila.rental SET "ReturnNote" = 'changed', last_update = '2030-01-01 00:00:00.25' WHERE rental_id = 2`);
        await c.query(`INSERT INTO pagila.rental VALUES (4, '2030-01-01 10:00:00.5', NULL, '2030-01-01 00:00:00.5', 'brief')`);
      } finally { await c.end(); }
    }
    await incremental(0);
    expect(await lakeNames('n_upper')).toEqual(upperCols);
    const t = await lake.loadTable('n_upper.rental');
    expect(chdbRows(t, (f) => `SELECT BRANCH_ID AS b, RENTAL_ID AS id, RETURNNOTE AS note FROM ${f} WHERE RENTAL_ID = 2 ORDER BY b`))
      .toEqual([0, 1].map((b) => ({ b: `b${b}`, id: 2, note: 'changed' })));
    expect(chdbCanonical(t, 'rental')).toEqual(await sourceRows('rental'));
    await expectDqOk(['LAST_UPDATE', 'RENTAL_DATE', 'RENTAL_ID', 'RETURNNOTE', 'RETURN_DATE'], 4);

    // a column new at the sources is named by the convention; the existing ones keep their spelling; the new row's delete reaches the lake
    for (let i = 0; i < N; i++) {
      const c = new pg.Client({ connectionString: scratch[i].url });
      await c.connect();
      try {
        await c.query(`DELETE FROM pagila.rental WHERE rental_id = 4`);
        await c.query(`ALTER TABLE pagila.rental ADD COLUMN staff_id int`);
        await c.query(`UPDATE pagila.rental SET staff_id = 7, last_update = '2030-01-02 00:00:00.5' WHERE rental_id = 2`);
      } finally { await c.end(); }
    }
    await incremental(1);
    expect(await lakeNames('n_upper')).toEqual([...upperCols, 'staff_id']);
    const rows = chdbRows(await lake.loadTable('n_upper.rental'), (f) => `SELECT BRANCH_ID AS b, RENTAL_ID AS id, RETURNNOTE AS note, staff_id FROM ${f} ORDER BY b, id`);
    expect(rows).toEqual([0, 1].flatMap((b) => [
      { b: `b${b}`, id: 1, note: 'late', staff_id: null }, { b: `b${b}`, id: 2, note: 'changed', staff_id: 7 }, { b: `b${b}`, id: 3, note: 'ok', staff_id: null },
    ]));
    await expectDqOk(['LAST_UPDATE', 'RENTAL_DATE', 'RENTAL_ID', 'RETURNNOTE', 'RETURN_DATE', 'staff_id'], 3);
  });
});

describe('DQ on a table named by another convention', () => {
  it('reconciles and repairs a preserve-named table (lake names matched to source columns)', async () => {
    const defs = parseTablesConfig({ naming: 'preserve', tables: PAGILA_TABLES.filter((e) => e.table === 'PAGILA.RENTAL') });
    const dqBranches = () => scratch.map((s, i) => ({ key: `b${i}`, open: () => openPostgresDqSource({ branch: `b${i}`, connectionString: s.url }) }));
    const dq = (repair: boolean) => runDq({ pool: db.pool, lake, tables: defs, branches: dqBranches(), logger: silentLogger }, { namespace: 'n_preserve', since: '2000-01-01', repair });
    // n_preserve.rental was loaded before row 2 changed at the sources (the union test above)
    const before = await dq(false);
    expect(before.results.map((x) => x.status)).toEqual(['MISMATCH', 'MISMATCH']);
    await dq(true);
    const after = await dq(false);
    expect(after.results.map((x) => `${x.branch}: ${x.status}`)).toEqual(['b0: OK', 'b1: OK']);
    const t = await lake.loadTable('n_preserve.rental');
    expect(chdbRows(t, (f) => `SELECT BRANCH_ID AS b, ReturnNote AS note FROM ${f} WHERE rental_id = 2 ORDER BY b`)).toEqual([{ b: 'b0', note: 'changed' }, { b: 'b1', note: 'changed' }]);
  });
});

function lakeColumnName(t: LakeTable, key: string): string {
  return t.arrowSchema().fields.find((f) => f.name.toLowerCase() === key.toLowerCase())!.name;
}
