import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openChdbTarget } from './chdb-target';
import { pointAtSource, renderedToSource } from './error-position';
import { executeProject } from './execute';
import { parseProject } from './project';
import type { Target } from './target';

// Errors point at the user's file: ClickHouse's positions (which count from
// the DDL wrapping the rendered SQL) mapped back to the model's own lines and
// columns, on the embedded ClickHouse; template errors name the file's line.

let target: Target; let stateDir: string;
beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-chdb-'));
  target = await openChdbTarget({ stateDir, cwd: process.cwd(), database: `m_${crypto.randomBytes(3).toString('hex')}` });
});
afterAll(async () => {
  await target?.close();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

async function errors(files: Record<string, string>): Promise<Record<string, string | undefined>> {
  const p = parseProject('/tmp/errors-project', files);
  const s = await executeProject(p, target, { command: 'run', resolveSource: async () => { throw new Error('no lake here'); }, threads: 2 });
  return Object.fromEntries(s.results.map((r) => [r.name, r.error]));
}

describe('ClickHouse errors in the model\'s own lines and columns', () => {
  test('syntax errors: a one-line file, a file opening with config(), a {% for %} loop, a line holding a ref()', async () => {
    const e = await errors({
      'models/one_line.sql': 'SELECT 1 AS x FROM numbers(3) WHERE (1\n',
      'models/after_config.sql': "{{ config(materialized='table') }}\nSELECT number AS n\nFROM numbers(3)\nWHERE number >> 1\n",
      'models/looped.sql': "{% set cols = ['a', 'b'] %}\nSELECT\n{% for c in cols %}\n  1 AS {{ c }},\n{% endfor %}\n  2 AS z\nFROM numbers(3) WHERE (1\n",
      'models/base.sql': 'SELECT number AS n FROM numbers(3)\n',
      'models/with_ref.sql': "-- a comment line\nSELECT n FROM {{ ref('base') }} WHERE n >> 1\n",
    });
    expect(e.one_line).toMatch(/^models: models\/one_line\.sql: line 1, col 37: ClickHouse: .*Syntax error: failed at '\(': \(1\. Unmatched parentheses/);
    expect(e.one_line).not.toMatch(/line 2|position/);
    expect(e.after_config).toMatch(/^models: models\/after_config\.sql: line 4, col 15: ClickHouse: .*Syntax error: failed at '>'/);
    expect(e.looped).toMatch(/^models: models\/looped\.sql: line 7, col 23: /);
    // the ref() expands to a longer name: the column is the file's, past the tag
    expect(e.with_ref).toMatch(/^models: models\/with_ref\.sql: line 2, col 42: /);
    expect("-- a comment line\nSELECT n FROM {{ ref('base') }} WHERE n >> 1".split('\n')[1].slice(41)).toBe('> 1');
  });

  test("jaffle_shop's customers.sql with a stray comma: ClickHouse's own line and column, not the last 'orders' in the file", async () => {
    const raw = [
      'with orders as (', // 1
      "    select * from {{ ref('orders_src') }}",
      '),',
      'customer_orders as (',
      '    select',
      '        customer_id,',
      '        count(order_id) as number_of_orders,,', // 7
      '    from orders', // 8
      '    group by customer_id',
      ')',
      'select * from customer_orders',
      'left join orders using (customer_id)', // 12
      '',
    ].join('\n');
    const e = await errors({ 'models/orders_src.sql': 'SELECT number AS order_id, number % 3 AS customer_id FROM numbers(5)\n', 'models/customers.sql': raw });
    expect(e.customers).toMatch(/^models: models\/customers\.sql: line 8, col 10: ClickHouse: .*Syntax error: failed at 'orders'/);
  });

  test('an unknown identifier points at its first use in the file', async () => {
    const e = await errors({ 'models/unknown.sql': "{{ config(materialized='view') }}\nSELECT number AS n\nFROM numbers(3)\nWHERE nope > 1\n" });
    expect(e.unknown).toMatch(/^models: models\/unknown\.sql: line 4, col 7: ClickHouse: .*`nope`/);
  });
});

describe('template errors name the file and line', () => {
  const parseErrors = (files: Record<string, string>) => parseProject('/tmp/p', files).errors.map((x) => x.message);
  test('an undefined variable names itself, as Jinja says it', () => {
    expect(parseErrors({ 'models/a.sql': 'SELECT 1 AS x\n-- two\nWHERE {{ foo }} = 1\n' })).toEqual(["models: models/a.sql: line 3: 'foo' is undefined"]);
    expect(parseErrors({ 'models/a.sql': 'SELECT 1\n{% if x.y %}1{% endif %}\n' })).toEqual(["models: models/a.sql: line 2: 'x' is undefined"]);
  });
  test('an unclosed block names the opening tag\'s line', () => {
    expect(parseErrors({ 'models/a.sql': 'SELECT\n{% for c in [1, 2] %}\n  {{ c }} AS c,\n{% if c %}1{% endif %}\n1 AS z\n' }))
      .toEqual(['models: models/a.sql: line 2: {% for %} is never closed (expected {% endfor %})']);
  });
});

describe('mapping rendered lines back to the template', () => {
  test('literal text locates the line; a column inside a tag\'s output points at the tag', () => {
    const raw = "{{ config(materialized='table') }}\nSELECT a,\n  {{ ref('x') }} AS r\nFROM t\n";
    const rendered = 'SELECT a,\n  `db`.`x` AS r\nFROM t';
    expect(renderedToSource(raw, rendered, 3, 6)).toEqual({ line: 4, col: 6 });
    expect(renderedToSource(raw, rendered, 2, 6)).toEqual({ line: 3, col: 3 });
    expect(renderedToSource(raw, rendered, 2, 12)).toEqual({ line: 3, col: 18 }); // the A of AS
  });
  test("ClickHouse's (line, col) is used; the quoted text decides only where it is absent or does not match there", () => {
    const sql = 'SELECT a\nFROM t\nWHERE x = 1 AND a\nFROM t';
    const raw = sql;
    const at = (msg: string) => pointAtSource(msg, raw, sql).position;
    // 'FROM t' twice: the place ClickHouse gives wins over the last occurrence
    expect(at('Code: 62. DB::Exception: Syntax error: failed at position 10 (FROM) (line 2, col 1): FROM t\nWHERE x = 1 AND a\nFROM t. Expected one of: …')).toEqual({ line: 2, col: 1 });
    expect(at('Code: 62. DB::Exception: Syntax error: failed at position 36 (FROM) (line 4, col 1): FROM t. Expected one of: …')).toEqual({ line: 4, col: 1 });
    // a position alone (1-based, in bytes: the é counts two)
    const q = "SELECT 'é' AS a FROM t FROM t";
    expect(pointAtSource('Syntax error: failed at position 18 (FROM): FROM t. Expected end of query', q, q).position).toEqual({ line: 1, col: 17 });
    // a place that does not hold the quoted text (a statement wrapping the SQL): the first occurrence at or after it
    expect(at('Syntax error: failed at position 12 (FROM) (line 2, col 3): FROM t. Expected end of query')).toEqual({ line: 4, col: 1 });
  });

  test('a message without a place is left as it was', () => {
    expect(pointAtSource('ClickHouse: Code: 241. Memory limit exceeded', 'SELECT 1', 'SELECT 1')).toEqual({ message: 'ClickHouse: Code: 241. Memory limit exceeded' });
  });
});
