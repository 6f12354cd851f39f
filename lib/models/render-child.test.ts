// The rendering child process: a real `node bin/models-render.mjs` started as
// the web process starts it, answering parse and compile requests, asking its
// parent for lake locations, and stopped when it overruns its time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

  // Stand-in launchers in a temp root: what the spawner gives any child, whatever it runs.
  function fakeRoot(script: string): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-render-child-'));
    fs.mkdirSync(path.join(root, 'bin'));
    fs.writeFileSync(path.join(root, 'bin', 'models-render.mjs'), script);
    return root;
  }

  test('the child gets none of the web process\'s environment', async () => {
    const root = fakeRoot("process.stdout.write(JSON.stringify({ ok: true, result: Object.keys(process.env) }) + '\\n');");
    process.env.TRIBUTARY_RENDER_CHILD_CANARY = 'x';
    try {
      const keys = await renderInChild({ op: 'parse', root: '/p', files: {}, vars: {} }, { root }) as unknown as string[];
      expect(keys.filter((k) => k !== 'PATH' && k !== 'NODE_ENV' && !k.startsWith('TRIBUTARY_CLI'))).toEqual([]);
      expect(Object.keys(process.env).length).toBeGreaterThan(3);
    } finally { delete process.env.TRIBUTARY_RENDER_CHILD_CANARY; fs.rmSync(root, { recursive: true, force: true }); }
  });

  test('a child over its memory cap is stopped and reported', async () => {
    const root = fakeRoot('const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));');
    try {
      await expect(renderInChild({ op: 'parse', root: '/p', files: {}, vars: {} }, { root, maxOldSpaceMb: 32 })).rejects.toMatchObject({ status: 400, message: 'models: rendering ran out of its 32 MB of memory' });
    } finally { fs.rmSync(root, { recursive: true, force: true }); }
  });

  test('a child that cannot start is an internal error, not a hang', async () => {
    await expect(renderInChild({ op: 'parse', root: '/p', files, vars: {} }, { root: os.tmpdir() })).rejects.toMatchObject({ status: 500, message: expect.stringMatching(/rendering process ended .* without an answer/) });
  });
});
