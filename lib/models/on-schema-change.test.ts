import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openChdbTarget } from './chdb-target';
import { buildManifest } from './artifacts';
import { executeProject } from './execute';
import { parseProject } from './project';
import type { Target } from './target';
import type { OnSchemaChange } from './types';

// dbt's on_schema_change on the embedded ClickHouse: a first run builds the
// incremental table, a second run's model has other columns. Each value is
// tried on the append path (no unique_key) and the unique_key path, as
// dbt-clickhouse's own schema-change tests do.

let target: Target; let stateDir: string;
beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-osc-'));
  target = await openChdbTarget({ stateDir, cwd: process.cwd(), database: `osc_${crypto.randomBytes(3).toString('hex')}` });
});
afterAll(async () => {
  await target?.close();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

const FIRST = 'SELECT number AS id, number + 1 AS a FROM numbers(3)';
const ADDED = 'SELECT number AS id, number + 1 AS a, number + 2 AS b FROM numbers(2, 3)';
const REMOVED = 'SELECT number AS id, number + 2 AS b FROM numbers(2, 3)';
const REORDERED = 'SELECT number + 1 AS a, number AS id FROM numbers(2, 3)';
const RETYPED = 'SELECT number AS id, toFloat32(number + 0.5) AS a FROM numbers(2, 3)';

const noLake = async (ident: string): Promise<string> => { throw new Error(`no lake in this test (${ident})`); };

/** Run model `name` once with FIRST, then with `second`; the second run's result and the table after it. */
async function twoRuns(name: string, mode: OnSchemaChange | undefined, key: boolean, second: string) {
  const cfg = [`materialized='incremental'`, ...(key ? [`unique_key='id'`] : []), ...(mode ? [`on_schema_change='${mode}'`] : [])].join(', ');
  const files = (sql: string) => ({ 'dbt_project.yml': 'name: osc\n', [`models/${name}.sql`]: `{{ config(${cfg}) }}\n${sql}\n` });
  const logs: string[] = [];
  const logger = { info: (m: string) => logs.push(m), warn: () => {}, error: () => {}, debug: () => {}, child: () => logger } as never;
  const run = (sql: string) => executeProject(parseProject('/tmp/osc', files(sql)), target, { command: 'run', resolveSource: noLake, logger });
  expect((await run(FIRST)).ok).toBe(true);
  const r = await run(second);
  const cols = (await target.query(`SELECT name, type FROM system.columns WHERE database = '${target.database}' AND table = '${name}' ORDER BY position`)).rows.map((c) => `${c.name} ${c.type}`);
  const rows = (await target.query(`SELECT * FROM \`${target.database}\`.\`${name}\` ORDER BY id`)).rows;
  const sideTables = (await target.query(`SELECT name FROM system.tables WHERE database = '${target.database}' AND name LIKE '${name}\\_\\_%'`)).rows;
  expect(sideTables).toEqual([]);
  return { result: r.results[0], cols, rows, logs };
}

describe('incremental on_schema_change', () => {
  for (const key of [false, true]) {
    const path = key ? 'unique_key' : 'append';
    // with unique_key, id 2 of the first run is replaced by the second run's id 2
    const ids = key ? [0, 1, 2, 3, 4] : [0, 1, 2, 2, 3, 4];

    test(`${path}: an added column, ignore (the default): left out, the table's columns kept`, async () => {
      const { result, cols, rows } = await twoRuns(`ign_add_${path}`, undefined, key, ADDED);
      expect(result).toMatchObject({ status: 'success', rows: 3 });
      expect(cols).toEqual(['id UInt64', 'a UInt64']);
      expect(rows.map((x) => x.id)).toEqual(ids);
      expect(rows.at(-1)).toEqual({ id: 4, a: 5 });
    });

    test(`${path}: an added column, fail: the run fails naming it, the table unchanged`, async () => {
      const { result, cols, rows } = await twoRuns(`fail_add_${path}`, 'fail', key, ADDED);
      expect(result.status).toBe('error');
      expect(result.error).toMatch(/fail_add_\w+: the incremental model's columns changed \(added b UInt64\); rerun with --full-refresh to rebuild it, or set on_schema_change to append_new_columns or sync_all_columns \(it is fail\)/);
      expect(cols).toEqual(['id UInt64', 'a UInt64']);
      expect(rows).toEqual([{ id: 0, a: 1 }, { id: 1, a: 2 }, { id: 2, a: 3 }]);
    });

    for (const mode of ['append_new_columns', 'sync_all_columns'] as const) {
      test(`${path}: an added column, ${mode}: added to the table, old rows get the type's default`, async () => {
        const { result, cols, rows, logs } = await twoRuns(`${mode.slice(0, 4)}_add_${path}`, mode, key, ADDED);
        expect(result).toMatchObject({ status: 'success', rows: 3 });
        expect(cols).toEqual(['id UInt64', 'a UInt64', 'b UInt64']);
        expect(rows.map((x) => x.id)).toEqual(ids);
        expect(rows[0]).toEqual({ id: 0, a: 1, b: 0 });
        expect(rows.at(-1)).toEqual({ id: 4, a: 5, b: 6 });
        expect(logs).toContainEqual(expect.stringContaining(`on_schema_change ${mode}: added b UInt64`));
      });
    }

    test(`${path}: a removed column, ignore: the insert fails as in dbt, the table unchanged`, async () => {
      const { result, cols, rows } = await twoRuns(`ign_rm_${path}`, 'ignore', key, REMOVED);
      expect(result.status).toBe('error');
      expect(result.error).toMatch(/the table's column a is not among the model's columns, so the insert fails \(on_schema_change is ignore/);
      expect(cols).toEqual(['id UInt64', 'a UInt64']);
      expect(rows).toHaveLength(3);
    });

    test(`${path}: a removed column, fail: the run fails`, async () => {
      const { result, rows } = await twoRuns(`fail_rm_${path}`, 'fail', key, REMOVED);
      expect(result.error).toMatch(/columns changed \(added b UInt64; removed a\); rerun with --full-refresh to rebuild it, or set on_schema_change to/);
      expect(rows).toHaveLength(3);
    });

    test(`${path}: a removed column, append_new_columns: kept, new rows get its default`, async () => {
      const { result, cols, rows } = await twoRuns(`app_rm_${path}`, 'append_new_columns', key, REMOVED);
      expect(result.status).toBe('success');
      expect(cols).toEqual(['id UInt64', 'a UInt64', 'b UInt64']);
      expect(rows[0]).toEqual({ id: 0, a: 1, b: 0 });
      expect(rows.at(-1)).toEqual({ id: 4, a: 0, b: 6 });
    });

    test(`${path}: a removed column, sync_all_columns: dropped from the table`, async () => {
      const { result, cols, rows } = await twoRuns(`sync_rm_${path}`, 'sync_all_columns', key, REMOVED);
      expect(result.status).toBe('success');
      expect(cols).toEqual(['id UInt64', 'b UInt64']);
      expect(rows.map((x) => x.id)).toEqual(ids);
      expect(rows[0]).toEqual({ id: 0, b: 0 });
      expect(rows.at(-1)).toEqual({ id: 4, b: 6 });
    });

    test(`${path}: reordered columns are no change, even under fail (inserts name their columns)`, async () => {
      const { result, cols, rows } = await twoRuns(`fail_ord_${path}`, 'fail', key, REORDERED);
      expect(result.status).toBe('success');
      expect(cols).toEqual(['id UInt64', 'a UInt64']);
      expect(rows.at(-1)).toEqual({ id: 4, a: 5 });
    });

    test(`${path}: a changed type: sync_all_columns changes it in the table (dbt-clickhouse's MODIFY COLUMN), ignore keeps it`, async () => {
      const sync = await twoRuns(`sync_ty_${path}`, 'sync_all_columns', key, RETYPED);
      expect(sync.result.status).toBe('success');
      expect(sync.cols).toEqual(['id UInt64', 'a Float32']);
      expect(sync.rows[0]).toEqual({ id: 0, a: 1 });
      expect(sync.rows.at(-1)).toEqual({ id: 4, a: 4.5 });
      expect(sync.logs).toContainEqual(expect.stringMatching(/a UInt64 → Float32 \(a changed type is changed in the table and its values converted/));
      const ign = await twoRuns(`ign_ty_${path}`, undefined, key, RETYPED);
      expect(ign.result.status).toBe('success');
      expect(ign.cols).toEqual(['id UInt64', 'a UInt64']);
      expect(ign.rows.at(-1)).toEqual({ id: 4, a: 4 });
    });
  }

  test('the key is read from config(), a yml config and a folder config; a bad value is a parse error; no "not applied" warning', () => {
    const files = {
      'dbt_project.yml': 'name: osc\nmodels:\n  osc:\n    +on_schema_change: append_new_columns\n    marts:\n      +on_schema_change: fail\n',
      'models/a.sql': "{{ config(materialized='incremental') }}\nSELECT 1 AS x\n",
      'models/marts/b.sql': "{{ config(materialized='incremental') }}\nSELECT 1 AS x\n",
      'models/marts/c.sql': "{{ config(materialized='incremental', on_schema_change='sync_all_columns') }}\nSELECT 1 AS x\n",
      'models/marts/d.sql': "{{ config(materialized='incremental') }}\nSELECT 1 AS x\n",
      'models/marts/schema.yml': 'version: 2\nmodels:\n  - name: d\n    config:\n      on_schema_change: ignore\n',
    };
    const p = parseProject('/tmp/osc', files);
    expect(p.errors).toEqual([]);
    expect(p.warnings).toEqual([]);
    expect(Object.fromEntries([...p.models].map(([n, m]) => [n, m.config.on_schema_change]))).toEqual({ a: 'append_new_columns', b: 'fail', c: 'sync_all_columns', d: 'ignore' });
    // and the manifest's config says it, as dbt's does
    const nodes = buildManifest(p, { database: 'models', invocationId: 'i', startedAt: new Date().toISOString() }).nodes as Record<string, { config: { on_schema_change: string } }>;
    expect(nodes['model.osc.c'].config.on_schema_change).toBe('sync_all_columns');
    const bad = parseProject('/tmp/osc', { ...files, 'models/a.sql': "{{ config(materialized='incremental', on_schema_change='sync') }}\nSELECT 1 AS x\n" });
    expect(bad.errors.map((e) => e.message)).toEqual([expect.stringMatching(/on_schema_change must be ignore, fail, append_new_columns, sync_all_columns, got "sync"/)]);
  });
});
