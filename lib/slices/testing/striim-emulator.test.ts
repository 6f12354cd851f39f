import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../../testing/pg';
import { waitFor } from '../../testing/wait-for';
import { createStriimClient } from '../run/striim-client';
import { startStriimEmulator, type StriimEmulator } from './striim-emulator';
import { DEFAULT_TQL_TEMPLATE, renderTql } from '../run/tql-template';

let src: { url: string; drop(): Promise<void> };
let tgt: { url: string; drop(): Promise<void> };
let emu: StriimEmulator;
const q = async (url: string, sql: string) => { const c = new pg.Client({ connectionString: url }); await c.connect(); try { return (await c.query(sql)).rows; } finally { await c.end(); } };

beforeAll(async () => {
  src = await createScratchDatabase('src');
  tgt = await createScratchDatabase('tgt');
  await q(src.url, `create table public.src (id bigint primary key, name text, amount numeric(12,2), ts timestamptz);
    insert into public.src select g, 'n''' || g, g / 7.0, now() from generate_series(1, 5000) g`);
  await q(tgt.url, 'create table public.tgt (id bigint primary key, name text, amount numeric(12,2), ts timestamptz)');
  emu = await startStriimEmulator({ sourceUrl: src.url, targetUrl: tgt.url });
});
afterAll(async () => { await emu?.close(); await src?.drop(); await tgt?.drop(); });

const client = () => createStriimClient({ baseUrl: emu.url, user: 'admin', password: 'admin', backoffBaseMs: 5, backoffMaxMs: 20 });
/** The app's monitor entry once it reaches one of `statuses` (a deadline, not a count of looks: a loaded machine looks less often). */
const appReaches = (c: ReturnType<typeof client>, full: string, statuses: string[]) => waitFor(`${full} to reach ${statuses.join(' or ')}`, async () => {
  const a = (await c.mon()).find((x) => x.fullName === full);
  return a && statuses.includes(a.statusChange) && a;
}, 120_000, 25);

describe('Striim emulator + client', () => {
  it('authenticates, runs an app lifecycle and really copies rows (duplicates ignored)', async () => {
    const c = client();
    const tql = renderTql(DEFAULT_TQL_TEMPLATE, { query: "SELECT s.* FROM public.src s WHERE s.id <= 3000 AND s.name <> 'x'", target: 'public.tgt', providerSrc: 'PostgreSQL', providerTgt: 'PostgreSQL' });
    await q(tgt.url, `insert into public.tgt values (10, 'pre', 0, now())`); // a row a previous attempt left
    expect((await c.exec('create namespace ILA_1_1;')).ok).toBe(true);
    expect((await c.exec('create namespace ILA_1_1;')).failureMessage).toMatch(/already exists/);
    const created = await c.exec(`USE ILA_1_1; ${tql}`);
    expect(created.ok).toBe(true);
    expect(created.results.map((r) => r.executionStatus)).toEqual(Array(5).fill('Success'));
    expect((await c.exec('DEPLOY APPLICATION ILA_1_1.OracleInitialLoadApp IN default;')).ok).toBe(true);
    expect((await c.exec('START APPLICATION ILA_1_1.OracleInitialLoadApp;')).ok).toBe(true);
    const a = await appReaches(c, 'ILA_1_1.OracleInitialLoadApp', ['QUIESCED']);
    expect(a.namespace).toBe('ILA_1_1');
    expect((await q(tgt.url, 'select count(*)::int n, count(distinct id)::int d from public.tgt'))[0]).toEqual({ n: 3000, d: 3000 });
    expect((await q(tgt.url, "select name from public.tgt where id = 11"))[0].name).toBe("n'11");
    expect((await c.exec('UNDEPLOY APPLICATION ILA_1_1.OracleInitialLoadApp;')).ok).toBe(true);
    expect((await c.exec('DROP APPLICATION ILA_1_1.OracleInitialLoadApp CASCADE;')).ok).toBe(true);
    expect((await c.exec('DROP NAMESPACE ILA_1_1 CASCADE;')).ok).toBe(true);
    expect((await c.mon()).length).toBe(0);
    expect(emu.stats.batches).toBeGreaterThanOrEqual(30); // BatchPolicy EventCount:100
  });

  it('re-authenticates once on a tkn rejection and retries 503 bursts with counts', async () => {
    const c = client();
    await c.mon();
    emu.expireTokens();
    await c.mon();
    expect(c.stats.reauths).toBe(1);
    emu.faults.http503 = 3;
    await c.mon();
    expect(c.stats.http5xx).toBe(3);
    expect(c.stats.retries).toBe(3);
    emu.faults.http503 = 50;
    await expect(createStriimClient({ baseUrl: emu.url, password: 'admin', retries: 2, backoffBaseMs: 1 }).mon()).rejects.toThrow(/503 after 3 attempts/);
    emu.faults.http503 = 0;
    await expect(createStriimClient({ baseUrl: emu.url, password: 'wrong' }).mon()).rejects.toThrow(/Authentication failed/);
    await expect(createStriimClient({ baseUrl: emu.url, token: 'stale' }).mon()).rejects.toThrow(/token rejected/);
  });

  it('injects a failed deploy, a never-quiescing app and a half-way death', async () => {
    const c = client();
    const tql = renderTql(DEFAULT_TQL_TEMPLATE, { query: 'SELECT s.* FROM public.src s WHERE s.id > 3000', target: 'public.tgt', providerSrc: 'PostgreSQL', providerTgt: 'PostgreSQL' });
    emu.faults.failDeploy = /ILA_2_1\./;
    await c.exec('create namespace ILA_2_1;');
    await c.exec(`USE ILA_2_1; ${tql}`);
    expect((await c.exec('DEPLOY APPLICATION ILA_2_1.OracleInitialLoadApp IN default;')).failureMessage).toMatch(/injected deploy failure/);
    emu.faults.failDeploy = null;
    emu.faults.neverQuiesce = /ILA_2_2\./;
    emu.faults.dieHalfway = /ILA_2_3\./;
    for (const ns of ['ILA_2_2', 'ILA_2_3']) {
      await c.exec(`create namespace ${ns}; USE ${ns}; ${tql}`);
      await c.exec(`DEPLOY APPLICATION ${ns}.OracleInitialLoadApp IN default; START APPLICATION ${ns}.OracleInitialLoadApp;`);
    }
    const died = await appReaches(c, 'ILA_2_3.OracleInitialLoadApp', ['TERMINATED']);
    expect(died.statusChange).toBe('TERMINATED');
    // Wait for the never-quiescing app's copy to end (every row written), then it must still be RUNNING.
    const app = emu.apps.get('ILA_2_2.OracleInitialLoadApp')!;
    await app.task;
    expect(app.rowsWritten).toBe(2000);
    const never = (await c.mon()).find((x) => x.fullName === 'ILA_2_2.OracleInitialLoadApp')!;
    expect(never.statusChange).toBe('RUNNING');
    expect((await c.exec('DROP NAMESPACE ILA_2_1 CASCADE; DROP NAMESPACE ILA_2_2 CASCADE; DROP NAMESPACE ILA_2_3 CASCADE;')).ok).toBe(true);
  });
});
