import readline from 'node:readline/promises';
import type pg from 'pg';
import { openSource } from './source';
import type { RunSettings } from './settings';
import { createStriimClient } from './striim-client';
import { captureWatermark } from '../../sources';

export interface SetupCheck { name: 'state' | 'striim' | 'source' | 'target'; ok: boolean; detail: string }

/**
 * `setup`: check the state tables, Striim, the source and the target with the
 * given settings; each check reports what it found. Never throws.
 */
export async function checkSetup(pool: pg.Pool, s: RunSettings, opts: { skipStriim?: boolean } = {}): Promise<SetupCheck[]> {
  const out: SetupCheck[] = [];
  try {
    const r = await pool.query<{ runs: number; rows: number }>(`select (select count(*)::int from slice_runs) as runs, (select count(*)::int from striim_orchestration) as rows`);
    out.push({ name: 'state', ok: true, detail: `striim_orchestration ready (${r.rows[0].rows} rows, ${r.rows[0].runs} runs)` });
  } catch (e) { out.push({ name: 'state', ok: false, detail: `state tables missing or unreachable: ${(e as Error).message}` }); }
  if (!opts.skipStriim && s.executor === 'striim') {
    try {
      const c = createStriimClient({ ...s.striim, retries: 1, backoffBaseMs: 200, timeoutMs: 10_000 });
      const apps = await c.mon();
      const ila = apps.filter((a) => a.namespace.startsWith(s.namespacePrefix));
      out.push({ name: 'striim', ok: true, detail: `${s.striim.baseUrl}: authenticated (${s.striim.token ? 'API token' : 'user ' + s.striim.user}); ${apps.length} applications, ${ila.length} in ${s.namespacePrefix}* namespaces` });
    } catch (e) { out.push({ name: 'striim', ok: false, detail: `${s.striim.baseUrl}: ${(e as Error).message}` }); }
  }
  try {
    const src = await openSource(s);
    if (!src) out.push({ name: 'source', ok: false, detail: `no ${s.sourceEngine} source configured (--source-url, SOURCE_PG_* or ORACLE_*); watermark capture will be skipped` });
    else {
      try {
        const w = await captureWatermark(src);
        out.push({ name: 'source', ok: true, detail: `${src.engine} ${src.dsn}: reachable; watermark [${w.label}] ${w.value}` });
      } finally { await src.close().catch(() => { /* the check's verdict is recorded; a failed close adds nothing */ }); }
    }
  } catch (e) { out.push({ name: 'source', ok: false, detail: (e as Error).message }); }
  if (s.targetUrl) {
    const pgMod = (await import('pg')).default;
    const c = new pgMod.Client({ connectionString: s.targetUrl });
    try { await c.connect(); await c.query('select 1'); out.push({ name: 'target', ok: true, detail: `postgres target reachable` }); }
    catch (e) { out.push({ name: 'target', ok: false, detail: (e as Error).message }); }
    finally { await c.end().catch(() => { /* as above */ }); }
  }
  return out;
}

/** One wizard question: re-asks until `check` accepts (returns null) or the answer is blank (keeps `current`). */
export async function ask(rl: readline.Interface, question: string, current: string, check: (v: string) => string | null): Promise<string> {
  for (;;) {
    const a = (await rl.question(`${question}${current ? ` [${current}]` : ''}: `)).trim();
    if (!a) return current;
    const err = check(a);
    if (!err) return a;
    process.stderr.write(`✗ ${err}\n`);
  }
}

/** Validators of the wizard (also used by tests). */
export const validators = {
  engine: (v: string) => (['oracle', 'postgres'].includes(v.toLowerCase()) ? null : `source engine must be oracle or postgres, got '${v}'`),
  port: (v: string) => (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535 ? null : `port must be a positive integer, got '${v}'`),
  node: (v: string) => (/^[\w.-]+:\d+$/.test(v) ? null : `STRIIM_NODE must be host:port, got '${v}'`),
  nonEmpty: (v: string) => (v.length ? null : 'a value is required'),
};

/**
 * `setup --interactive`: prompt for Striim and source settings (re-prompting
 * bad values), then return the environment assignments to export.
 */
export async function setupWizard(env: Record<string, string | undefined>, input = process.stdin, output = process.stderr): Promise<Record<string, string>> {
  const rl = readline.createInterface({ input, output });
  try {
    const out: Record<string, string> = {};
    out.STRIIM_NODE = await ask(rl, 'Striim node (host:port)', env.STRIIM_NODE ?? 'localhost:9080', validators.node);
    out.STRIIM_ADMIN_USER = await ask(rl, 'Striim admin user', env.STRIIM_ADMIN_USER ?? 'admin', validators.nonEmpty);
    out.STRIIM_ADMIN_PWD = await ask(rl, 'Striim admin password', env.STRIIM_ADMIN_PWD ?? '', () => null);
    out.SOURCE_DB_TYPE = (await ask(rl, 'Source engine (oracle|postgres)', env.SOURCE_DB_TYPE ?? 'postgres', validators.engine)).toLowerCase();
    if (out.SOURCE_DB_TYPE === 'postgres') {
      out.SOURCE_PG_HOST = await ask(rl, 'Source Postgres host', env.SOURCE_PG_HOST ?? 'localhost', validators.nonEmpty);
      out.SOURCE_PG_PORT = await ask(rl, 'Source Postgres port', env.SOURCE_PG_PORT ?? '5432', validators.port);
      out.SOURCE_PG_DATABASE = await ask(rl, 'Source database', env.SOURCE_PG_DATABASE ?? '', validators.nonEmpty);
      out.SOURCE_PG_USER = await ask(rl, 'Source user', env.SOURCE_PG_USER ?? '', validators.nonEmpty);
      out.SOURCE_PG_PASSWORD = await ask(rl, 'Source password', env.SOURCE_PG_PASSWORD ?? '', () => null);
    } else {
      out.ORACLE_HOST = await ask(rl, 'Oracle host', env.ORACLE_HOST ?? '', validators.nonEmpty);
      out.ORACLE_PORT = await ask(rl, 'Oracle port', env.ORACLE_PORT ?? '1521', validators.port);
      out.ORACLE_SERVICE = await ask(rl, 'Oracle service', env.ORACLE_SERVICE ?? '', validators.nonEmpty);
      out.ORACLE_USER = await ask(rl, 'Oracle user', env.ORACLE_USER ?? '', validators.nonEmpty);
      out.ORACLE_PASSWORD = await ask(rl, 'Oracle password', env.ORACLE_PASSWORD ?? '', () => null);
    }
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== ''));
  } finally { rl.close(); }
}
