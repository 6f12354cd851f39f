import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../testing/pg';
import { createLogger, silentLogger, type LogRecord } from '../log';
import type { Lake } from '../lake';
import { listEtlControl, listEtlRuns } from './control';
import { lakeTarget } from './lake-target';
import { runEtl, type BranchHandle, type EtlRunSummary } from './runner';
import { DEFAULT_SETTINGS, type EtlSettings } from './settings';
import { parseTablesConfig } from '../config/tables-json';
import { chdbRows, icebirdRows } from './test-lake-readers';
import { useEtlLake } from '../testing/etl-lake-fixture';
import { runDq } from '../dq/run';
import { openPostgresDqSource } from '../dq/source';
import { runSelfTest } from '../dq/self-test';

// Issue 21 (1, 2, 6) on real Postgres branches shaped like Pagila, with the lake read back by
// ClickHouse (chdb) and icebird: control state per lake table, duplicate keys caught before a
// commit (or dropped by `dedupe: latest`), keyless query sources refreshed whole at every run, no table left
// behind by a failed first write, and every "did nothing" said at warn.
let db: TestDatabase;
let lake: Lake;
let staging: string;
let branches: BranchHandle[];
const settings = (o: Partial<EtlSettings>): EtlSettings => ({ ...DEFAULT_SETTINGS, retries: 0, retryDelayMs: 10, fetchBatchSize: 100, stagingRowsPerFile: 150, ...o });

async function run(entries: unknown[], o: Partial<EtlSettings> & { plan?: boolean } = {}): Promise<EtlRunSummary & { records: LogRecord[] }> {
  const records: LogRecord[] = [];
  const { plan, ...s } = o;
  const ns = s.namespace ?? 'etl';
  const r = await runEtl({
    pool: db.pool, target: lakeTarget(lake, { namespace: ns, keepStaging: s.keepStaging }), branches, tables: parseTablesConfig(entries), settings: settings({ ...s, namespace: ns }),
    logger: createLogger((x) => records.push(x), { level: 'debug' }), stagingRoot: staging, plan,
  });
  return { ...r, records };
}

async function atBranch(i: number, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: scratch[i].url });
  await c.connect();
  try { return await c.query(sql, params); } finally { await c.end(); }
}

const wm = async (ns: string, table: string, branch: string) =>
  (await db.pool.query(`SELECT last_cdc_value FROM etl_meta.control_state WHERE namespace = $1 AND table_name = $2 AND branch_id = $3`, [ns, table, branch])).rows[0]?.last_cdc_value ?? null;

/** A lake column's name as the table spells it (the naming convention may upper- or lower-case it). */
const col = (t: { arrowSchema(): { fields: { name: string }[] } }, name: string) => t.arrowSchema().fields.find((f) => f.name.toUpperCase() === name.toUpperCase())!.name;

const failures = (r: EtlRunSummary) => r.units.filter((u) => u.status !== 'SUCCESS').map((u) => `${u.table}@${u.branch}: ${u.error}`);

const COUNTRY = { table: 'PUBLIC.COUNTRY', unique_key: 'country_id', cdc_column: 'last_update', category: 'masters' };

const fx = useEtlLake({ name: 'keys', count: 2, seed: (url, i) => atBranch(i, `
    CREATE TABLE country (country_id int PRIMARY KEY, country text NOT NULL, last_update timestamp NOT NULL);
    INSERT INTO country SELECT g, 'country ' || g, timestamp '2022-02-15 09:44:00' + g * interval '1 second' FROM generate_series(1, 20) g;
    CREATE TABLE category (category_id int PRIMARY KEY, name text NOT NULL, last_update timestamp NOT NULL);
    INSERT INTO category SELECT g, 'cat ' || g, timestamp '2022-02-15 09:46:27' FROM generate_series(1, 16) g;
    CREATE TABLE film (film_id int PRIMARY KEY, title text NOT NULL, last_update timestamp NOT NULL);
    INSERT INTO film SELECT g, 'FILM ' || g, timestamp '2022-02-15 10:00:00' FROM generate_series(1, 30) g;
    -- film_actor's key is (actor_id, film_id): actor_id alone repeats (actors 1..3 play in several films)
    CREATE TABLE film_actor (actor_id int NOT NULL, film_id int NOT NULL, last_update timestamp NOT NULL, PRIMARY KEY (actor_id, film_id));
    INSERT INTO film_actor SELECT 1 + g % 10, g, timestamp '2022-02-15 10:05:03' + g * interval '1 second' FROM generate_series(1, 30) g;
    -- a view whose "key" fid is not unique: one row per (film, actor)
    CREATE VIEW film_list AS SELECT f.film_id AS fid, f.title || ' / actor ' || a.actor_id AS title, a.last_update
      FROM film f JOIN film_actor a ON a.film_id = f.film_id
      UNION ALL SELECT f.film_id, f.title || ' / extra', timestamp '2022-02-15 10:05:00' FROM film f WHERE f.film_id % 3 = 0;
  `) });
const scratch = fx.scratch;
beforeAll(() => { ({ db, lake, staging, branches } = fx); });

describe('control state per lake table', () => {
  it('a load into --namespace probe keeps its own watermark and never moves the production one', async () => {
    const prod = await run([COUNTRY], { mode: 'INITIAL' });
    expect(failures(prod)).toEqual([]);
    const w0 = await wm('etl', 'country', 'b0');
    expect(w0).toMatch(/^2022-02-15 09:44:20/);
    await atBranch(0, `UPDATE country SET country = 'renamed', last_update = timestamp '2030-01-01' WHERE country_id = 1`);
    const probe = await run([COUNTRY], { mode: 'INITIAL', namespace: 'probe' });
    expect(failures(probe)).toEqual([]);
    expect(await wm('probe', 'country', 'b0')).toMatch(/^2030-01-01/);
    expect(await wm('etl', 'country', 'b0')).toBe(w0);
    // production's next INCREMENTAL reads from its own watermark: the changed row reaches etl.country
    const inc = await run([COUNTRY], { mode: 'INCREMENTAL' });
    expect(failures(inc)).toEqual([]);
    expect(inc.units.find((u) => u.branch === 'b0')!.rows).toBe(1);
    const t = await lake.loadTable('etl.country');
    expect(chdbRows(t, (f) => `SELECT ${col(t, 'country')} AS c FROM ${f} WHERE ${col(t, 'BRANCH_ID')} = 'b0' AND ${col(t, 'country_id')} = 1`)).toEqual([{ c: 'renamed' }]);
    const ctl = await db.pool.query(`SELECT namespace, status FROM etl_meta.etl_control WHERE table_name = 'country' AND branch_id = 'b0' ORDER BY namespace`);
    expect(ctl.rows).toEqual([{ namespace: 'etl', status: 'SUCCESS' }, { namespace: 'probe', status: 'SUCCESS' }]);
    const log = await db.pool.query(`SELECT DISTINCT namespace FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1`, [probe.runId]);
    expect(log.rows).toEqual([{ namespace: 'probe' }]);
    // GET /api/v1/etl/control and /etl/runs filter by namespace
    expect((await listEtlControl(db.pool, { namespace: 'probe', table: 'country' })).map((x) => `${x.namespace}/${x.branch_id}`)).toEqual(['probe/b0', 'probe/b1']);
    expect((await listEtlRuns(db.pool, { namespace: 'probe' })).map((x) => x.pipeline_run_id)).toEqual([probe.runId, probe.runId]);
  });

  it('a text watermark column is refused when the run is planned, naming the entry and the type; nothing is created', async () => {
    const textWm = { ...COUNTRY, cdc_column: 'COUNTRY' };
    const msg = "etl: tables.json entry 'country': watermark column COUNTRY is text; a watermark must be a date, timestamp or number";
    const planned = await run([textWm], { mode: 'INITIAL', namespace: 'probe2', plan: true });
    expect(planned.units.map((u) => [u.branch, u.status, u.error])).toEqual([['b0', 'REFUSED', msg], ['b1', 'REFUSED', msg]]);
    const before = await wm('etl', 'country', 'b0');
    // a refusal is not fatal: the transactions phase after it still runs
    const facts = { table: 'PUBLIC.FILM_ACTOR', unique_key: ['actor_id', 'film_id'], cdc_column: 'last_update', category: 'transactions' };
    const r = await run([textWm, facts], { mode: 'INITIAL', namespace: 'probe2' });
    expect(r.units.map((u) => [u.table, u.status, u.error])).toEqual([['country', 'REFUSED', msg], ['country', 'REFUSED', msg], ['film_actor', 'SUCCESS', null], ['film_actor', 'SUCCESS', null]]);
    expect(await lake.tableExists('probe2.country')).toBe(false);
    expect((await db.pool.query(`SELECT count(*)::int n FROM etl_meta.control_state WHERE namespace = 'probe2' AND table_name = 'country'`)).rows[0].n).toBe(0);
    expect(await wm('etl', 'country', 'b0')).toBe(before);
  });

  it('a unit with no rows says why at warn', async () => {
    const r = await run([COUNTRY], { mode: 'INCREMENTAL', branches: ['b1'] });
    expect(failures(r)).toEqual([]);
    const w = r.records.filter((x) => x.level === 'warn' && /no rows/.test(x.message));
    expect(w.length).toBe(1);
    expect(String(w[0].fields.reason)).toMatch(/no row changed at the source since the watermark \(cdc 2022-02-15 09:44:20/);
  });
});

describe('duplicate keys are caught before a commit', () => {
  const FA_BAD = { table: 'PUBLIC.FILM_ACTOR', unique_key: 'actor_id', cdc_column: 'last_update', category: 'masters' };
  const FA = { ...FA_BAD, unique_key: ['actor_id', 'film_id'] };

  it('INITIAL (full replace) with a key that is not unique fails each unit naming table, branch, count and keys; no table is left', async () => {
    const r = await run([FA_BAD], { mode: 'INITIAL', namespace: 'dup' });
    expect(r.units.map((u) => u.status)).toEqual(['FAILED', 'FAILED']);
    for (const u of r.units) {
      expect(u.error).toMatch(new RegExp(`^etl: film_actor on branch ${u.branch}: 10 unique_key values of \\(actor_id\\) occur more than once in the extract \\(20 extra rows\\), first: \\(2\\), \\(3\\), \\(4\\), \\(5\\), \\(6\\), …; nothing of this unit was committed`));
    }
    expect(await lake.tableExists('dup.film_actor')).toBe(false);
    const log = await db.pool.query(`SELECT branch_id, status FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 ORDER BY branch_id`, [r.runId]);
    expect(log.rows).toEqual([{ branch_id: 'b0', status: 'FAILED' }, { branch_id: 'b1', status: 'FAILED' }]);
  });

  it('an INCREMENTAL merge with duplicates in its extract fails, and the lake stays as it was', async () => {
    const first = await run([FA], { mode: 'INITIAL' });
    expect(failures(first)).toEqual([]);
    const t = await lake.loadTable('etl.film_actor');
    const snap = t.currentSnapshotId();
    const count = () => chdbRows(t, (f) => `SELECT count() AS n FROM ${f}`)[0].n;
    expect(Number(count())).toBe(60);
    await atBranch(0, `UPDATE film_actor SET last_update = timestamp '2030-01-01' WHERE actor_id = 4`);
    const r = await run([FA_BAD], { mode: 'INCREMENTAL', branches: ['b0'] });
    expect(r.units[0].status).toBe('FAILED');
    expect(r.units[0].error).toMatch(/^etl: film_actor on branch b0: 1 unique_key value of \(actor_id\) occur more than once in the extract \(2 extra rows\), first: \(4\);/);
    await t.refresh();
    expect(t.currentSnapshotId()).toBe(snap);
    expect(Number(count())).toBe(60);
    expect((await icebirdRows(t)).length).toBe(60);
    expect(await wm('etl', 'film_actor', 'b0')).toMatch(/^2022-02-15/);
  });

  it('dedupe: latest keeps the newest row of each key by the CDC column and reports how many it dropped', async () => {
    const view = { table: 'PUBLIC.FILM_LIST', unique_key: 'fid', cdc_column: 'last_update', category: 'masters', dedupe: 'latest' };
    const r = await run([view], { mode: 'INITIAL' });
    expect(failures(r)).toEqual([]);
    const src = await atBranch(0, `SELECT count(*)::int n, count(DISTINCT fid)::int d FROM film_list`);
    const { n, d } = src.rows[0];
    expect(n).toBeGreaterThan(d);
    const u0 = r.units.find((u) => u.branch === 'b0')!;
    expect(u0.droppedDuplicates).toBe(n - d);
    expect(u0.rows).toBe(d);
    const log = await db.pool.query(`SELECT branch_id, row_count::int AS rows, dropped_duplicates::int AS dropped FROM etl_meta.etl_run_log WHERE pipeline_run_id = $1 ORDER BY branch_id`, [r.runId]);
    expect(log.rows[0]).toEqual({ branch_id: 'b0', rows: d, dropped: n - d });
    expect(r.records.some((x) => x.level === 'warn' && /dedupe: latest/.test(x.message) && x.fields.dropped === n - d)).toBe(true);
    // the lake holds, per branch and key, the source's newest row
    const want = (await atBranch(0, `SELECT DISTINCT ON (fid) fid, title FROM film_list ORDER BY fid, last_update DESC`)).rows.map((x) => `${x.fid}:${x.title}`);
    const t = await lake.loadTable('etl.film_list');
    const got = chdbRows(t, (f) => `SELECT ${col(t, 'fid')} AS fid, ${col(t, 'title')} AS title FROM ${f} WHERE ${col(t, 'BRANCH_ID')} = 'b0' ORDER BY fid`).map((x) => `${x.fid}:${x.title}`);
    expect(got).toEqual(want);
    expect((await icebirdRows(t)).length).toBe(2 * d);
    // one row per staged file: the files holding only older rows are dropped whole
    const tiny = await run([view], { mode: 'INITIAL', namespace: 'tiny', stagingRowsPerFile: 1 });
    expect(failures(tiny)).toEqual([]);
    expect(tiny.units.find((u) => u.branch === 'b0')!.droppedDuplicates).toBe(n - d);
    const t2 = await lake.loadTable('tiny.film_list');
    expect(chdbRows(t2, (f) => `SELECT ${col(t2, 'fid')} AS fid, ${col(t2, 'title')} AS title FROM ${f} WHERE ${col(t2, 'BRANCH_ID')} = 'b0' ORDER BY fid`).map((x) => `${x.fid}:${x.title}`)).toEqual(want);
  });
});

describe('a query source without a key', () => {
  const keyless = { table: '(SELECT f.film_id AS fid, f.title, f.last_update FROM public.film f)', name: 'film_names', cdc_column: 'last_update', category: 'masters' };

  it('is refreshed whole at every run (INCREMENTAL too): the table over every branch, else only the branches read', async () => {
    const shelf = { table: '(SELECT s.id, s.label, s.changed FROM public.shelf s)', name: 'shelf_view', cdc_column: 'changed', category: 'masters' };
    for (const i of [0, 1]) {
      await atBranch(i, `CREATE TABLE shelf (id int, label text, changed timestamp);
        INSERT INTO shelf SELECT g, 'b${i}-' || g, timestamp '2022-01-01' + g * interval '1 hour' FROM generate_series(1, 5) g`);
    }
    const sources = async () => {
      const out: string[] = [];
      for (const i of [0, 1]) for (const r of (await atBranch(i, `SELECT id, label FROM shelf ORDER BY id`)).rows) out.push(`b${i}|${r.id}|${r.label}`);
      return out.sort();
    };
    const lakeRows = async () => {
      const t = await lake.loadTable('etl.shelf_view');
      const viaChdb = chdbRows(t, (f) => `SELECT BRANCH_ID AS b, id, label FROM ${f}`).map((x) => `${x.b}|${x.id}|${x.label}`).sort();
      const viaIcebird = (await icebirdRows(t)).map((x) => `${x.BRANCH_ID}|${x.id}|${x.label}`).sort();
      expect(viaIcebird).toEqual(viaChdb);
      return viaChdb;
    };
    // an INCREMENTAL of a never-loaded keyless entry is not refused (it reads the whole query anyway)
    const plan = await run([shelf], { mode: 'INCREMENTAL', plan: true });
    expect(plan.units.map((u) => u.status)).toEqual(['PLANNED', 'PLANNED']);
    expect(plan.units[0].sql).not.toMatch(/\$1/); // no watermark filter
    const first = await run([shelf], { mode: 'INCREMENTAL' });
    expect(failures(first)).toEqual([]);
    expect(first.units.map((u) => u.writeDisposition)).toEqual(['replace', 'replace']);
    const before = await sources();
    expect(await lakeRows()).toEqual(before);
    // b0: a label changed without its watermark column moving (a merge by watermark would miss it), a row deleted,
    // one inserted; b1 emptied. A run over b0 alone replaces b0's rows and leaves b1's as they were.
    await atBranch(0, `UPDATE shelf SET label = 'quietly changed' WHERE id = 2; DELETE FROM shelf WHERE id = 3;
      INSERT INTO shelf VALUES (9, 'b0-new', timestamp '2021-01-01')`);
    await atBranch(1, `DELETE FROM shelf`);
    const one = await run([shelf], { mode: 'INCREMENTAL', branches: ['b0'] });
    expect(failures(one)).toEqual([]);
    expect(one.units.map((u) => `${u.branch}:${u.writeDisposition}:${u.rows}`)).toEqual(['b0:replace:5']);
    const now = await sources();
    expect(await lakeRows()).toEqual([...now.filter((r) => r.startsWith('b0|')), ...before.filter((r) => r.startsWith('b1|'))].sort());
    const t = await lake.loadTable('etl.shelf_view');
    expect(t.snapshots().at(-1)!.summary.operation).toBe('overwrite');
    // over every branch: the table is the sources' (b1 has no row left)
    const all = await run([shelf], { mode: 'INCREMENTAL' });
    expect(failures(all)).toEqual([]);
    expect(await lakeRows()).toEqual(now);
    expect(now.some((r) => r.startsWith('b1|'))).toBe(false);
    const log = await db.pool.query(`SELECT DISTINCT write_disposition FROM etl_meta.etl_run_log WHERE pipeline_run_id = ANY($1)`, [[first.runId, one.runId, all.runId]]);
    expect(log.rows).toEqual([{ write_disposition: 'replace' }]);

    // DQ has no key to join its rows on: it compares the row counts, says so, and does not repair
    const dq = async (repair: boolean) => (await runDq({
      pool: db.pool, lake, tables: parseTablesConfig([shelf]), logger: silentLogger,
      branches: scratch.map((s, i) => ({ key: `b${i}`, open: () => openPostgresDqSource({ branch: `b${i}`, connectionString: s.url }) })),
    }, { write: false, repair })).results;
    const ok = await dq(false);
    expect(ok.map((x) => `${x.branch}: ${x.status} ${x.oracleRowCount}=${x.icebergRowCount}`)).toEqual(['b0: OK 5=5', 'b1: OK 0=0']);
    expect(ok[0].windowNote).toMatch(/no unique_key: row counts only/);
    expect(ok[0].hashColumns).toBeNull();
    await atBranch(1, `INSERT INTO shelf VALUES (1, 'b1-back', timestamp '2022-01-01')`);
    const off = await dq(true);
    expect(off.map((x) => `${x.branch}: ${x.status} ${x.oracleRowCount}=${x.icebergRowCount}`)).toEqual(['b0: OK 5=5', 'b1: MISMATCH 1=0']);
    expect(off[1].repair).toMatchObject({ status: 'NOT_RUN', reason: expect.stringMatching(/needs a unique_key/) });

    // dq --self-test (the kept staging against the lake) compares the row counts too
    const kept = await run([shelf], { mode: 'INCREMENTAL', keepStaging: true });
    expect(failures(kept)).toEqual([]);
    await atBranch(0, `DELETE FROM shelf WHERE id = 1`); // not loaded: the kept staging and the lake still agree
    const self = await runSelfTest({ lake, tables: parseTablesConfig([shelf]), branches: [], stagingRoot: staging, namespace: 'etl', logger: silentLogger });
    expect(self.map((x) => `${x.branch}: ${x.status} ${x.oracleRowCount}=${x.icebergRowCount}`)).toEqual(['b0: OK 5=5', 'b1: OK 1=1']);
    expect(self[0].windowNote).toMatch(/^self-test: staged Parquet of run .*; no unique_key: row counts only$/);
    expect(self[0].hashColumns).toBeNull();
  });

  it('tables.json: a plain table still needs a unique_key; dedupe: latest needs a key and a cdc_column', () => {
    expect(() => parseTablesConfig([{ table: 'PUBLIC.FILM' }])).toThrow(/field unique_key: required/);
    expect(() => parseTablesConfig([{ ...keyless, dedupe: 'latest' }])).toThrow(/field dedupe: needs a unique_key/);
    expect(() => parseTablesConfig([{ table: 'PUBLIC.FILM', unique_key: 'film_id', dedupe: 'latest' }])).toThrow(/field dedupe: latest needs a CDC column/);
    expect(() => parseTablesConfig([{ table: 'PUBLIC.FILM', unique_key: 'film_id', dedupe: 'newest' }])).toThrow(/field dedupe: must be fail or latest/);
  });
});

describe('a failed first write leaves no table behind', () => {
  it('a unique_key that is not a column is refused at planning: no table is created', async () => {
    const bad = { table: 'PUBLIC.CATEGORY', unique_key: 'cat_id', cdc_column: 'last_update', category: 'masters' };
    const r = await run([bad], { mode: 'INITIAL', namespace: 'probe', branches: ['b0'] });
    expect(r.units.map((u) => u.status)).toEqual(['REFUSED']);
    // the source's column names as the source spells them
    expect(r.units[0].error).toMatch(/^etl: tables.json entry 'category': unique_key column cat_id is not a column of the source \(it has category_id, name, last_update\)$/);
    expect(await lake.tableExists('probe.category')).toBe(false);
    expect(r.records.some((x) => x.level === 'warn' && /table not loaded: no unit of it succeeded/.test(x.message))).toBe(true);
  });

  it('a table whose first load fails (duplicate keys in every unit) is dropped, saying so at warn', async () => {
    const r = await run([{ table: 'PUBLIC.FILM_ACTOR', unique_key: 'actor_id', cdc_column: 'last_update', category: 'masters' }], { mode: 'INITIAL', namespace: 'first' });
    expect(r.units.map((u) => u.status)).toEqual(['FAILED', 'FAILED']);
    expect(await lake.tableExists('first.film_actor')).toBe(false);
    expect(r.records.some((x) => x.level === 'warn' && /dropped the table this run created: its first load wrote nothing/.test(x.message))).toBe(true);
  });
});
