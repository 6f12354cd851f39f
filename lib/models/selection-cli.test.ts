import { spawn } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { useShopModels } from '../testing/shop-models';

// What `tributary models …` says of a selection, as dbt says it: each criterion
// matching nothing is a warning (stderr, or `warnings` in --json), an empty
// selection is "Nothing to do" (`list`: "No nodes selected!"), and the command
// exits 0. Real processes over the shop lake and the embedded ClickHouse.

const fx = useShopModels();

function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const c = spawn(process.execPath, ['bin/tributary.mjs', 'models', ...args], {
    env: { ...process.env, DATABASE_URL: fx.db.url, TRIBUTARY_WAREHOUSE: fx.wh.uri, TRIBUTARY_DATA_DIR: fx.wh.dir, LOG_LEVEL: 'error' },
  });
  let out = ''; let err = '';
  c.stdout.on('data', (d) => (out += d)); c.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => c.on('close', (code) => resolve({ code, out, err })));
}

const NOTHING = 'Nothing to do. Try checking your model configs and model specification args';
const nomatch = (c: string) => `The selection criterion '${c}' does not match any enabled nodes`;

describe('selection warnings of tributary models', () => {
  test('run: a criterion matching nothing is named, the rest runs; an empty selection is nothing to do, exit 0', async () => {
    const r = await cli('run', '--project', fx.proj.root, '--select', 'nope', 'stg_customers', '--exclude', 'nada', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.results.map((x: { name: string; status: string }) => `${x.name} ${x.status}`)).toEqual(['stg_customers success']);
    expect(j.warnings.map((w: { message: string }) => w.message)).toEqual([nomatch('nope'), nomatch('nada')]);

    const e = await cli('run', '--project', fx.proj.root, '--select', 'stg_*');
    expect(e.code).toBe(0);
    expect(e.err).toBe(`warning: ${nomatch('stg_*')}\nwarning: ${NOTHING}\n`);
    expect(e.out).toMatch(/^Done: 0 nodes/m);
    // a seed-less project: seed selects nothing, with no criterion to blame
    const s = await cli('seed', '--project', fx.proj.root, '--json');
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out).warnings.map((w: { message: string }) => w.message)).toEqual([NOTHING]);
  });

  test('compile and list say so too; a method Tributary does not apply is refused by name', async () => {
    const c = await cli('compile', '--project', fx.proj.root, '--select', 'tag:nightly');
    expect(c.code).toBe(0);
    expect(c.err).toBe(`warning: ${nomatch('tag:nightly')}\nwarning: ${NOTHING}\n`);
    const l = await cli('list', '--project', fx.proj.root, '--select', 'shop.marts.nope', '--json');
    expect(l.code).toBe(0);
    expect(JSON.parse(l.out)).toMatchObject({ nodes: [], warnings: [{ message: nomatch('shop.marts.nope') }, { message: 'No nodes selected!' }] });
    const ok = await cli('list', '--project', fx.proj.root, '--select', 'shop.marts', '--exclude', 'resource_type:test');
    expect(ok.err).toBe('');
    expect(ok.out.split('\n').filter(Boolean).map((x) => x.split(/\s+/)[1])).toEqual(['customer_orders', 'orders_inc']);
    const st = await cli('run', '--project', fx.proj.root, '--select', 'state:modified+');
    expect(st.code).toBe(2);
    expect(st.err).toMatch(/models: selector method "state" \(in "state:modified\+"\) is not supported/);
  });
});
