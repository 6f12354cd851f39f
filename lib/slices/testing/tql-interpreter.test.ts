import { describe, expect, it } from 'vitest';
import { DEFAULT_TQL_TEMPLATE, renderTql } from '../run/tql-template';
import type { Copier } from './copier';
import { createTqlInterpreter } from './tql-interpreter';

/** A copier the test releases by hand, so the lifecycle is driven step by step (no HTTP, no database). */
function manualCopier() {
  const pending = new Map<string, { resolve(): void; reject(e: Error): void }>();
  const copier: Copier = (app, signal) => new Promise<void>((resolve, reject) => {
    pending.set(app.fullName, { resolve, reject });
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  return { copier, finish: (app: string) => pending.get(app)!.resolve(), die: (app: string, msg: string) => pending.get(app)!.reject(new Error(msg)) };
}

const tql = renderTql(DEFAULT_TQL_TEMPLATE, { query: 'SELECT s.* FROM public.src s', target: 'public.tgt', providerSrc: 'PostgreSQL', providerTgt: 'PostgreSQL' });
const ok = (r: { executionStatus: string }[]) => r.every((x) => x.executionStatus === 'Success');

describe('TQL interpreter (Striim emulator, without HTTP)', () => {
  it('drives an application through DEPLOYED → RUNNING → QUIESCED when its copy ends', async () => {
    const m = manualCopier();
    const t = createTqlInterpreter({ copier: m.copier });
    expect(ok(await t.execute(`CREATE NAMESPACE ILA_1_1; USE ILA_1_1; ${tql}`))).toBe(true);
    const app = t.apps.get('ILA_1_1.OracleInitialLoadApp')!;
    expect(app.status).toBe('CREATED');
    expect(app.source).toMatchObject({ Query: 'SELECT s.* FROM public.src s' });
    expect(ok(await t.execute('DEPLOY APPLICATION ILA_1_1.OracleInitialLoadApp IN default; START APPLICATION ILA_1_1.OracleInitialLoadApp;'))).toBe(true);
    expect(app.status).toBe('RUNNING');
    const [mon] = await t.execute('mon;');
    expect((mon.output as { striimApplications: { fullName: string; statusChange: string }[] }).striimApplications)
      .toEqual([expect.objectContaining({ fullName: 'ILA_1_1.OracleInitialLoadApp', statusChange: 'RUNNING' })]);
    m.finish(app.fullName);
    await app.task;
    expect(app.status).toBe('QUIESCED');
    // Striim's rules: a deployed app cannot be dropped; a non-empty namespace needs CASCADE
    expect((await t.execute('DROP APPLICATION ILA_1_1.OracleInitialLoadApp;'))[0].failureMessage).toMatch(/undeploy it first/);
    expect((await t.execute('DROP NAMESPACE ILA_1_1;'))[0].failureMessage).toMatch(/not empty; use CASCADE/);
    expect(ok(await t.execute('UNDEPLOY APPLICATION ILA_1_1.OracleInitialLoadApp; DROP APPLICATION ILA_1_1.OracleInitialLoadApp; DROP NAMESPACE ILA_1_1;'))).toBe(true);
    expect(t.apps.size).toBe(0);
    expect(t.stats).toMatchObject({ deploys: 1, starts: 1 });
  });

  it('injected faults: a failed deploy, an app that never quiesces, a copy that dies', async () => {
    const m = manualCopier();
    const t = createTqlInterpreter({ copier: m.copier, faults: { failDeploy: /ILA_2_1\./, neverQuiesce: /ILA_2_2\./ } });
    for (const ns of ['ILA_2_1', 'ILA_2_2', 'ILA_2_3']) await t.execute(`CREATE NAMESPACE ${ns}; USE ${ns}; ${tql}`);
    expect((await t.execute('DEPLOY APPLICATION ILA_2_1.OracleInitialLoadApp;'))[0].failureMessage).toMatch(/injected deploy failure/);
    expect(t.apps.get('ILA_2_1.OracleInitialLoadApp')!.status).toBe('CREATED');
    await t.execute('DEPLOY APPLICATION ILA_2_2.OracleInitialLoadApp; START APPLICATION ILA_2_2.OracleInitialLoadApp; DEPLOY APPLICATION ILA_2_3.OracleInitialLoadApp; START APPLICATION ILA_2_3.OracleInitialLoadApp;');
    const never = t.apps.get('ILA_2_2.OracleInitialLoadApp')!;
    m.finish(never.fullName);
    await never.task;
    expect(never.status).toBe('RUNNING'); // the copy ended, and still no quiesce
    const dies = t.apps.get('ILA_2_3.OracleInitialLoadApp')!;
    m.die(dies.fullName, 'connection reset by peer');
    await dies.task;
    expect(dies).toMatchObject({ status: 'TERMINATED', error: 'connection reset by peer' });
    expect((await t.execute('START APPLICATION ILA_2_1.OracleInitialLoadApp;'))[0].failureMessage).toMatch(/cannot start from CREATED/);
    expect((await t.execute('SELECT 1;'))[0].failureMessage).toMatch(/Unsupported command/);
    await t.stopAll();
  });

  it('resolves $property variables per namespace, admin last', async () => {
    const seen: string[] = [];
    const t = createTqlInterpreter({
      copier: async (app, _signal, ctx) => { seen.push(ctx.resolveVar('$SourceUsername', app.namespace) ?? '?'); },
      propertyVariables: { 'admin.SourceUsername': 'from-admin' },
    });
    await t.execute(`CREATE NAMESPACE A1; USE A1; ${tql} DEPLOY APPLICATION A1.OracleInitialLoadApp; START APPLICATION A1.OracleInitialLoadApp;`);
    await t.apps.get('A1.OracleInitialLoadApp')!.task;
    await t.execute('CREATE OR REPLACE PROPERTYVARIABLE A1.SourceUsername = "ns-user"; STOP APPLICATION A1.OracleInitialLoadApp; START APPLICATION A1.OracleInitialLoadApp;');
    await t.apps.get('A1.OracleInitialLoadApp')!.task;
    expect(seen).toEqual(['from-admin', 'ns-user']);
  });
});
