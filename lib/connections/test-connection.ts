import type { Logger } from '../log';
import { AppError } from '../errors';
import { openSourceExecutor, renderDescribe, type SourceExecutor } from '../sources';
import type { TableDef } from '../config/tables-json';
import { resolveConnection, type ConnectionsContext } from './store';
import { sourceDescriptorOf } from './source-descriptor';
import { striimEndpoint, type ConnectionRecord } from './builtin';

/** What "Test" reports for one connection. */
export interface ConnectionTestResult {
  name: string;
  kind: string;
  reachable: boolean;
  /** The server's own version text (`SELECT version()`, Oracle's banner, ClickHouse's version()), when it told. */
  serverVersion: string | null;
  /** Round trip of one trivial request after connecting, ms. */
  latencyMs: number | null;
  /** Why it is unreachable (or what part of the test failed). */
  error: string | null;
  /** Branches only: each table of tables.json, and whether the branch has it. */
  tables?: { table: string; source: string; exists: boolean; error?: string }[];
  checkedAt: string;
}

export interface TestConnectionOptions {
  /** tables.json's definitions, checked on branch connections. (Default: none) */
  tables?: TableDef[];
  /** Per-step timeout, ms. (Default: 10000) */
  timeoutMs?: number;
  /** ORACLE_CLIENT_LIB_DIR. (Default: none) */
  oracleClientLibDir?: string;
  logger?: Logger;
  signal?: AbortSignal;
}

const since = (t0: number) => Math.round((performance.now() - t0) * 10) / 10;
const message = (e: unknown) => {
  const err = e as { message?: string; code?: string; errors?: { message?: string }[] };
  // AggregateError (every address of a host refused) carries its reasons inside.
  const inner = err.errors?.map((x) => x.message).filter(Boolean).join('; ');
  return (err.message || inner || err.code || String(e)).trim();
};

async function testSource(c: ConnectionRecord, isBranch: boolean, o: TestConnectionOptions): Promise<Omit<ConnectionTestResult, 'name' | 'kind' | 'checkedAt'>> {
  const d = sourceDescriptorOf(c);
  let exec: SourceExecutor;
  try {
    exec = await openSourceExecutor(d, { defaultTimeoutMs: o.timeoutMs ?? 10_000, oracleClientLibDir: o.oracleClientLibDir, logger: o.logger });
  } catch (e) {
    return { reachable: false, serverVersion: null, latencyMs: null, error: `cannot connect: ${message(e)}` };
  }
  try {
    const t0 = performance.now();
    try {
      await exec.query(d.kind === 'postgres' ? 'SELECT 1 AS one' : 'SELECT 1 AS one FROM dual', [], { purpose: 'catalog' });
    } catch (e) {
      return { reachable: false, serverVersion: null, latencyMs: null, error: `connected, but a first statement failed: ${message(e)}` };
    }
    const latencyMs = since(t0);
    // Oracle's v$version needs a grant some accounts lack: then the version is unknown, not the server unreachable.
    const versionSql = d.kind === 'postgres' ? 'SELECT version() AS v' : 'SELECT banner AS v FROM v$version WHERE ROWNUM = 1';
    const version = await exec.query<{ v: string }>(versionSql, [], { purpose: 'catalog' }).then((rows) => rows[0]?.v ?? null, () => null);
    let tables: ConnectionTestResult['tables'];
    if (isBranch && o.tables) {
      tables = [];
      for (const t of o.tables) {
        if (o.signal?.aborted) break;
        // The describe query ETL runs first (no rows): it fails exactly when the table (or a column it names) is missing.
        try {
          await exec.query(renderDescribe(t.spec, d.kind).sql, [], { purpose: 'catalog' });
          tables.push({ table: t.lakeName, source: t.source, exists: true });
        } catch (e) {
          tables.push({ table: t.lakeName, source: t.source, exists: false, error: message(e) });
        }
      }
    }
    return { reachable: true, serverVersion: version, latencyMs, error: null, ...(tables ? { tables } : {}) };
  } finally {
    await exec.close().catch(() => {}); // a probe's session: nothing to keep
  }
}

async function httpGet(url: string, headers: Record<string, string>, timeoutMs: number) {
  const t0 = performance.now();
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  return { res, text, ms: since(t0) };
}

function baseUrl(c: ConnectionRecord): string {
  if (c.kind === 'striim') return striimEndpoint(c).baseUrl;
  const p = c.params;
  if (p.http_url) return String(p.http_url).replace(/\/+$/, '');
  if (!p.host) throw new AppError('validation', `connections: '${c.name}' has neither http_url nor host`, { field: 'params.http_url' });
  return `http://${p.host}:${p.port ?? 8123}`;
}

async function testHttp(c: ConnectionRecord, o: TestConnectionOptions): Promise<Omit<ConnectionTestResult, 'name' | 'kind' | 'checkedAt'>> {
  const timeout = o.timeoutMs ?? 10_000;
  const base = baseUrl(c);
  try {
    if (c.kind === 'clickhouse') {
      const ping = await httpGet(`${base}/ping`, {}, timeout);
      const headers: Record<string, string> = { 'X-ClickHouse-User': String(c.params.user ?? 'default') };
      if (c.secrets.password) headers['X-ClickHouse-Key'] = c.secrets.password;
      const v = await httpGet(`${base}/?query=${encodeURIComponent('SELECT version()')}`, headers, timeout);
      if (!v.res.ok) return { reachable: true, serverVersion: null, latencyMs: ping.ms, error: `ClickHouse answered ${v.res.status}: ${v.text.trim().slice(0, 300)}` };
      return { reachable: true, serverVersion: v.text.trim() || null, latencyMs: ping.ms, error: null };
    }
    const h = await httpGet(`${base}/health`, {}, timeout);
    let version: string | null = h.res.headers.get('server');
    try { const j = JSON.parse(h.text) as { version?: unknown }; if (j.version) version = String(j.version); } catch { /* not JSON: the Server header is all there is */ }
    return { reachable: true, serverVersion: version, latencyMs: h.ms, error: h.res.ok ? null : `Striim answered ${h.res.status} on /health` };
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    return { reachable: false, serverVersion: null, latencyMs: null, error: `cannot reach ${base}: ${message(cause ?? e)}` };
  }
}

async function testSmtp(c: ConnectionRecord, o: TestConnectionOptions): Promise<Omit<ConnectionTestResult, 'name' | 'kind' | 'checkedAt'>> {
  const nodemailer = (await import('nodemailer')).default;
  const p = c.params;
  const timeout = o.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    host: String(p.host), port: Number(p.port ?? 587), secure: p.secure === true,
    auth: p.user ? { user: String(p.user), pass: c.secrets.password ?? '' } : undefined,
    connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout,
  });
  const t0 = performance.now();
  try {
    await transport.verify();
    return { reachable: true, serverVersion: null, latencyMs: since(t0), error: null };
  } catch (e) {
    const err = e as { code?: string; responseCode?: number };
    // An answer that refuses us (auth, TLS) still proves the relay is there.
    const reachable = !!err.responseCode || err.code === 'EAUTH';
    return { reachable, serverVersion: null, latencyMs: reachable ? since(t0) : null, error: message(e) };
  } finally {
    transport.close();
  }
}

/**
 * Test one connection by name: reachability, server version and latency; for a
 * branch also which tables of tables.json it has. Never throws for an
 * unreachable server — that is the answer; throws only for an unknown name.
 */
export async function testConnection(ctx: ConnectionsContext, name: string, o: TestConnectionOptions = {}): Promise<ConnectionTestResult> {
  const c = await resolveConnection(ctx, name);
  if (!c) throw new AppError('not_found', `connections: no connection named '${name}'`, { field: 'params.name' });
  const isBranch = ((await ctx.pool.query('SELECT is_branch FROM connections WHERE name = $1', [name])).rows[0]?.is_branch as boolean | undefined) ?? false;
  let r: Omit<ConnectionTestResult, 'name' | 'kind' | 'checkedAt'>;
  if (c.kind === 'postgres' || c.kind === 'oracle') r = await testSource(c, isBranch, o);
  else if (c.kind === 'clickhouse' || c.kind === 'striim') r = await testHttp(c, o);
  else if (c.kind === 'smtp') r = await testSmtp(c, o);
  else r = { reachable: false, serverVersion: null, latencyMs: null, error: `connections: a '${c.kind}' connection has nothing to test` };
  return { name: c.name, kind: c.kind, ...r, checkedAt: new Date().toISOString() };
}
