// The rendering child process: a real `node bin/models-render.mjs` started as
// the web process starts it, answering parse and compile requests, asking its
// parent for lake locations, and stopped when it overruns its time.
import os from 'node:os';
import { describe, expect, test } from 'vitest';
import { renderInChild } from './render-child';
import type { ParsedProject } from './render-request';
import type { CompiledNode } from './compile';

const files = {
  'models/a.sql': "{{ config(materialized='table', tags=['t']) }}SELECT * FROM {{ ref('b') }}",
  'models/b.sql': "SELECT * FROM {{ source('lake', 'shop.items') }}",
  'models/bad.sql': '{{ range.constructor("return process")() }}',
};

describe('renderInChild', () => {
  test('parses a project in a child process: refs, sources, config, errors naming the file and line', async () => {
    const p = await renderInChild<ParsedProject>({ op: 'parse', root: '/p', files, vars: {} });
    expect(p.models.map((m) => [m.name, m.refs, m.sources, m.config.materialized])).toEqual([['a', ['b'], [], 'table'], ['b', [], ['shop.items'], 'view'], ['bad', [], [], 'view']]);
    expect(p.errors).toEqual([{ path: 'models/bad.sql', message: "models: models/bad.sql: line 1: 'range.constructor' is undefined, so it cannot be called" }]);
  });

  test('compiles a selection, asking the parent for each lake table it reads', async () => {
    const asked: string[] = [];
    const nodes = await renderInChild<CompiledNode[]>({
      op: 'compile', root: '/p', files: { 'models/a.sql': files['models/a.sql'], 'models/b.sql': files['models/b.sql'] }, vars: {},
      database: 'models', lake: { mode: 'relative', cwd: '/srv' },
    }, {}, async (ident) => { asked.push(ident); return '/srv/wh/shop/items'; });
    expect(asked).toEqual(['shop.items']);
    expect(nodes).toEqual([
      { name: 'b', kind: 'model', path: 'models/b.sql', sql: "SELECT * FROM icebergLocal('wh/shop/items')" },
      { name: 'a', kind: 'model', path: 'models/a.sql', sql: 'SELECT * FROM `models`.`b`' },
    ]);
  });

  test('a project with errors is refused with a 400 naming them', async () => {
    await expect(renderInChild({ op: 'compile', root: '/p', files, vars: {}, database: 'models', lake: { mode: 'relative', cwd: '/srv' } }))
      .rejects.toMatchObject({ status: 400, message: expect.stringMatching(/the project has 1 error\(s\): models: models\/bad\.sql: line 1/) });
  });

  test('a child over its time is killed and reported', async () => {
    await expect(renderInChild({ op: 'parse', root: '/p', files, vars: {} }, { timeoutMs: 1 })).rejects.toMatchObject({ status: 400, message: 'models: rendering was stopped after 0.001 s (a template that never ends?)' });
  });

  test('a child that cannot start is an internal error, not a hang', async () => {
    await expect(renderInChild({ op: 'parse', root: '/p', files, vars: {} }, { root: os.tmpdir() })).rejects.toMatchObject({ status: 500, message: expect.stringMatching(/rendering process ended .* without an answer/) });
  });
});
