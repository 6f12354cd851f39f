import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Logger } from '../../log';
import { silentLogger } from '../../log';
import { parseComponent, prop, splitTql } from '../run/tql-parse';

/**
 * An emulator of the parts of Striim's REST API the orchestrator uses, for tests
 * and demos: `/security/authenticate` (form → `{token}`), `/api/v2/tungsten`
 * (TQL text → JSON array of `{command, executionStatus, failureMessage,
 * output}`), namespaces and applications with Striim's status lifecycle, and
 * `mon;`. A started DatabaseReader → DatabaseWriter application REALLY copies:
 * it runs the source `Query` against the Postgres named by the source
 * connection property variables and inserts into the target table in the
 * writer's BatchPolicy EventCount, ignoring primary-key conflicts when
 * IgnorableExceptionCode holds DUPLICATE_ROW_EXISTS. Faults can be injected.
 */
export interface EmulatorFaults {
  /** DEPLOY of an app whose full name matches fails. (Default: none) */
  failDeploy?: RegExp | null;
  /** STOP/UNDEPLOY/DROP APPLICATION of a matching app fails (cleanup failure). (Default: none) */
  failUndeploy?: RegExp | null;
  /** The next N HTTP requests (any endpoint) answer 503. (Default: 0) */
  http503?: number;
  /** Matching apps copy everything but never quiesce (stay RUNNING). (Default: none) */
  neverQuiesce?: RegExp | null;
  /** Matching apps die (TERMINATED) after copying half their rows… */
  dieHalfway?: RegExp | null;
  /** …this many times in all (counts down), then copy normally. (Default: 1) */
  dieHalfwayTimes?: number;
  /** Pause after each written batch, in ms, to make copies last. (Default: 0) */
  batchDelayMs?: number;
}

export interface StriimEmulatorOptions {
  /** Port to listen on; 0 picks a free one. (Default: 0) */
  port?: number;
  /** (Default: 127.0.0.1) */
  host?: string;
  /** Accepted users. (Default: { admin: 'admin' }) */
  users?: Record<string, string>;
  /** Token lifetime in ms; 0 = never expire. (Default: 0) */
  tokenTtlMs?: number;
  /** Pre-set property variables, by full name (`admin.SourceConnectionString` …). */
  propertyVariables?: Record<string, string>;
  /** Convenience: set the admin.Source… and admin.Target… property variables from Postgres URLs. */
  sourceUrl?: string;
  targetUrl?: string;
  /** Status an app reaches when its read is exhausted with QuiesceOnILCompletion. (Default: QUIESCED) */
  completionStatus?: 'QUIESCED' | 'COMPLETED';
  faults?: EmulatorFaults;
  logger?: Logger;
}

export interface EmulatorApp {
  namespace: string;
  name: string;
  fullName: string;
  status: string;
  source: Record<string, string> | null;
  target: Record<string, string> | null;
  rowsRead: number;
  rowsWritten: number;
  startedAt: number | null;
  lastActivity: number | null;
  copyMs: number;
  error: string | null;
  abort: AbortController | null;
  task: Promise<void> | null;
}

export interface EmulatorStats {
  requests: number;
  http503Served: number;
  tokensIssued: number;
  tokenRejections: number;
  deploys: number;
  starts: number;
  batches: number;
  rowsWritten: number;
  /** Sum of every app's copy time (ms): what a copy costs, to subtract from orchestration time. */
  copyMs: number;
  commands: string[];
}

export interface StriimEmulator {
  url: string;
  port: number;
  faults: EmulatorFaults;
  stats: EmulatorStats;
  apps: Map<string, EmulatorApp>;
  namespaces: Set<string>;
  /** Invalidate every issued token (the next call gets a `tkn` rejection). */
  expireTokens(): void;
  /** Run TQL as if posted (no HTTP, no auth). */
  execute(tql: string, session?: { ns: string }): Promise<CommandResult[]>;
  close(): Promise<void>;
}

export interface CommandResult { command: string; executionStatus: 'Success' | 'Failure'; failureMessage: string | null; output: unknown }

const ok = (command: string, output: unknown = null): CommandResult => ({ command, executionStatus: 'Success', failureMessage: null, output });
const fail = (command: string, msg: string): CommandResult => ({ command, executionStatus: 'Failure', failureMessage: msg, output: null });

/** `jdbc:postgresql://h:p/db?x` + user + password → a node-postgres URL. */
export function jdbcToPgUrl(jdbc: string, user?: string, password?: string): string {
  const m = /^jdbc:postgresql:\/\/([^/?]+)\/([^?;]+)/i.exec(jdbc.trim());
  if (!m) throw new Error(`unsupported ConnectionURL '${jdbc}' (the emulator reads and writes PostgreSQL only)`);
  const auth = user ? `${encodeURIComponent(user)}${password ? ':' + encodeURIComponent(password) : ''}@` : '';
  return `postgres://${auth}${m[1]}/${m[2]}`;
}

/** A Postgres URL → the three property-variable values Striim would hold. */
export function pgUrlToPropertyVariables(url: string, prefix: 'Source' | 'Target'): Record<string, string> {
  const u = new URL(url);
  return {
    [`admin.${prefix}ConnectionString`]: `jdbc:postgresql://${u.host}${u.pathname}`,
    [`admin.${prefix}Username`]: decodeURIComponent(u.username),
    [`admin.${prefix}Password`]: decodeURIComponent(u.password),
  };
}

// Values arrive as text and go back as text: the target casts them to its own column types.
const textTypes = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;
const DEPLOYED = new Set(['DEPLOYED', 'RUNNING', 'QUIESCING', 'QUIESCED', 'COMPLETED', 'STOPPED', 'HALTED', 'TERMINATED']);

export async function startStriimEmulator(opts: StriimEmulatorOptions = {}): Promise<StriimEmulator> {
  const log = opts.logger ?? silentLogger;
  const users = opts.users ?? { admin: 'admin' };
  const faults: EmulatorFaults = opts.faults ?? {};
  const stats: EmulatorStats = { requests: 0, http503Served: 0, tokensIssued: 0, tokenRejections: 0, deploys: 0, starts: 0, batches: 0, rowsWritten: 0, copyMs: 0, commands: [] };
  const tokens = new Map<string, { expiresAt: number; ns: string }>();
  const namespaces = new Set<string>(['admin', 'Global']);
  const apps = new Map<string, EmulatorApp>();
  const propVars = new Map<string, string>(Object.entries({
    ...(opts.sourceUrl ? pgUrlToPropertyVariables(opts.sourceUrl, 'Source') : {}),
    ...(opts.targetUrl ? pgUrlToPropertyVariables(opts.targetUrl, 'Target') : {}),
    ...(opts.propertyVariables ?? {}),
  }));

  const resolveVar = (v: string | undefined, ns: string): string | undefined => {
    if (!v || !v.startsWith('$')) return v;
    const name = v.slice(1);
    return propVars.get(name) ?? propVars.get(`${ns}.${name}`) ?? propVars.get(`admin.${name}`);
  };

  const findApp = (ref: string, ns: string): EmulatorApp | undefined => apps.get(ref.includes('.') ? ref : `${ns}.${ref}`);

  function stopCopy(app: EmulatorApp) {
    app.abort?.abort();
    app.abort = null;
  }

  async function copy(app: EmulatorApp, signal: AbortSignal): Promise<void> {
    const t0 = Date.now();
    const src = app.source!;
    const tgt = app.target!;
    const ns = app.namespace;
    const srcUrl = jdbcToPgUrl(resolveVar(prop(src, 'ConnectionURL'), ns) ?? '', resolveVar(prop(src, 'Username'), ns), resolveVar(prop(src, 'Password'), ns));
    const tgtUrl = jdbcToPgUrl(resolveVar(prop(tgt, 'ConnectionURL'), ns) ?? '', resolveVar(prop(tgt, 'Username'), ns), resolveVar(prop(tgt, 'Password'), ns));
    const query = prop(src, 'Query');
    if (!query) throw new Error('DatabaseReader: Query is empty');
    const tables = (prop(tgt, 'Tables') ?? '').split(',').map((s) => s.trim());
    const table = tables[0]?.toUpperCase() === 'QUERY' ? tables[1] : tables[0];
    if (!table || !/^[\w$#]+(\.[\w$#]+){0,2}$/.test(table)) throw new Error(`DatabaseWriter: bad Tables '${prop(tgt, 'Tables')}'`);
    const m = /EventCount\s*:\s*(\d+)/i.exec(prop(tgt, 'BatchPolicy') ?? '');
    const batch = Math.max(1, m ? Number(m[1]) : 100);
    const fetchSize = Math.max(batch, Number(prop(src, 'FetchSize') ?? 100) || 100, 1000);
    const ignoreDup = /DUPLICATE_ROW_EXISTS/i.test(prop(tgt, 'IgnorableExceptionCode') ?? '');
    const quiesce = /^true$/i.test(prop(src, 'QuiesceOnILCompletion') ?? 'false');
    // dieHalfwayTimes counts down like http503 (unset = 1).
    const dies = !!faults.dieHalfway?.test(app.fullName) && (faults.dieHalfwayTimes ?? 1) > 0;
    if (dies) faults.dieHalfwayTimes = (faults.dieHalfwayTimes ?? 1) - 1;

    const s = new pg.Client({ connectionString: srcUrl, types: textTypes, application_name: `striim-emulator ${app.fullName}` });
    const t = new pg.Client({ connectionString: tgtUrl, application_name: `striim-emulator ${app.fullName}` });
    await s.connect();
    try {
      await t.connect();
      try {
        let total = Infinity;
        if (dies) total = Number((await s.query(`select count(*)::bigint as n from (${query}) q`)).rows[0].n);
        await s.query('begin isolation level repeatable read read only');
        await s.query(`declare emu_c no scroll cursor for ${query}`);
        let cols: string[] | null = null;
        for (;;) {
          if (signal.aborted) return;
          const r = await s.query(`fetch ${fetchSize} from emu_c`);
          if (!cols) cols = r.fields.map((f) => f.name);
          if (r.rows.length === 0) break;
          app.rowsRead += r.rows.length;
          for (let off = 0; off < r.rows.length; off += batch) {
            if (signal.aborted) return;
            const rows = r.rows.slice(off, off + batch);
            const params: unknown[] = [];
            const values = rows.map((row) => `(${cols!.map((c) => { params.push(row[c]); return `$${params.length}`; }).join(',')})`);
            const colList = cols.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
            try {
              await t.query(`insert into ${table} (${colList}) values ${values.join(',')}${ignoreDup ? ' on conflict do nothing' : ''}`, params);
            } catch (e) {
              const code = (e as { code?: string }).code;
              throw new Error(code === '23505' ? `DUPLICATE_ROW_EXISTS: ${(e as Error).message}` : `DatabaseWriter: ${(e as Error).message}`);
            }
            stats.batches++;
            stats.rowsWritten += rows.length;
            app.rowsWritten += rows.length;
            app.lastActivity = Date.now();
            if (dies && app.rowsWritten >= total / 2) throw new Error('DatabaseReader: connection reset by peer (injected fault: died half-way)');
            if (faults.batchDelayMs) await new Promise((res) => setTimeout(res, faults.batchDelayMs));
          }
        }
        await s.query('commit');
      } finally { await t.end().catch(() => {}); }
    } finally {
      await s.end().catch(() => {});
      stats.copyMs += Date.now() - t0;
      app.copyMs += Date.now() - t0;
    }
    if (signal.aborted) return;
    if (!quiesce || faults.neverQuiesce?.test(app.fullName)) return; // stays RUNNING, as Striim does without QuiesceOnILCompletion
    app.status = 'QUIESCING';
    await new Promise((res) => setTimeout(res, 5));
    if (!signal.aborted && app.status === 'QUIESCING') app.status = opts.completionStatus ?? 'QUIESCED';
  }

  function startApp(app: EmulatorApp) {
    const ac = new AbortController();
    app.abort = ac;
    app.status = 'RUNNING';
    app.startedAt = Date.now();
    app.lastActivity = Date.now();
    app.rowsRead = 0;
    app.rowsWritten = 0;
    app.error = null;
    stats.starts++;
    app.task = copy(app, ac.signal).catch((e) => {
      if (ac.signal.aborted) return;
      app.status = 'TERMINATED';
      app.error = (e as Error).message;
      log.warn('striim-emulator: app terminated', { app: app.fullName, error: app.error });
    });
  }

  function monEntry(a: EmulatorApp) {
    const secs = a.startedAt ? Math.max(0.001, ((a.lastActivity ?? Date.now()) - a.startedAt) / 1000) : 0;
    const rate = a.status === 'RUNNING' && secs > 0 ? Math.round(a.rowsWritten / secs) : 0;
    return {
      entityType: 'APPLICATION', fullName: a.fullName, statusChange: a.status,
      rate, sourceRate: a.status === 'RUNNING' && secs > 0 ? Math.round(a.rowsRead / secs) : 0,
      cpuRate: 0, numServers: DEPLOYED.has(a.status) ? 1 : 0,
      latestActivity: a.lastActivity ? new Date(a.lastActivity).toISOString() : null,
    };
  }

  let building: EmulatorApp | null = null;

  async function command(stmt: string, session: { ns: string }): Promise<CommandResult> {
    const cmd = stmt.replace(/\s+/g, ' ').trim();
    const short = cmd.length > 120 ? cmd.slice(0, 117) + '...' : cmd;
    stats.commands.push(short);
    if (stats.commands.length > 500) stats.commands.shift();
    let m: RegExpExecArray | null;
    if ((m = /^use (\w+)$/i.exec(cmd))) {
      if (!namespaces.has(m[1])) return fail(short, `Namespace ${m[1]} does not exist`);
      session.ns = m[1];
      return ok(short);
    }
    if ((m = /^create namespace (\w+)$/i.exec(cmd))) {
      if (namespaces.has(m[1])) return fail(short, `Namespace ${m[1]} already exists`);
      namespaces.add(m[1]);
      return ok(short);
    }
    if ((m = /^drop namespace (\w+)( cascade)?$/i.exec(cmd))) {
      const ns = m[1];
      if (!namespaces.has(ns)) return fail(short, `No objects found: namespace ${ns} does not exist`);
      const inNs = [...apps.values()].filter((a) => a.namespace === ns);
      if (inNs.length && !m[2]) return fail(short, `Namespace ${ns} is not empty; use CASCADE`);
      const stuck = inNs.find((a) => faults.failUndeploy?.test(a.fullName));
      if (stuck) return fail(short, `DROP NAMESPACE ${ns} failed: ${stuck.fullName} could not be removed (injected cleanup failure)`);
      for (const a of inNs) { stopCopy(a); apps.delete(a.fullName); }
      namespaces.delete(ns);
      if (session.ns === ns) session.ns = 'admin';
      return ok(short);
    }
    if ((m = /^create (?:or replace )?propertyvariable ([\w.]+) ?= ?(.*)$/i.exec(cmd))) {
      const name = m[1].includes('.') ? m[1] : `${session.ns}.${m[1]}`;
      propVars.set(name, m[2].trim().replace(/^["']|["']$/g, ''));
      return ok(short);
    }
    if ((m = /^create (or replace )?application (\w+)(?: .*)?$/i.exec(cmd))) {
      const full = `${session.ns}.${m[2]}`;
      const existing = apps.get(full);
      if (existing && !m[1]) return fail(short, `Application ${full} already exists`);
      if (existing && existing.status !== 'CREATED') return fail(short, `Application ${full} is ${existing.status}; undeploy it before replacing`);
      const app: EmulatorApp = { namespace: session.ns, name: m[2], fullName: full, status: 'CREATED', source: null, target: null, rowsRead: 0, rowsWritten: 0, startedAt: null, lastActivity: null, copyMs: 0, error: null, abort: null, task: null };
      apps.set(full, app);
      building = app;
      return ok(short);
    }
    if (/^create (or replace )?(source|target) /i.test(cmd)) {
      if (!building) return fail(short, 'No application is being defined (CREATE APPLICATION first)');
      let c;
      try { c = parseComponent(stmt); } catch (e) { return fail(short, (e as Error).message); }
      if (!c) return fail(short, 'Syntax error in component definition');
      if (c.kind === 'SOURCE') {
        if (c.adapter !== 'DatabaseReader') return fail(short, `Adapter ${c.adapter} is not supported by the emulator`);
        building.source = c.props;
      } else {
        if (c.adapter !== 'DatabaseWriter') return fail(short, `Adapter ${c.adapter} is not supported by the emulator`);
        building.target = c.props;
      }
      return ok(short);
    }
    if ((m = /^end application (\w+)$/i.exec(cmd))) {
      if (!building || building.name !== m[1]) return fail(short, `No application ${m[1]} is being defined`);
      building = null;
      return ok(short);
    }
    if ((m = /^deploy application ([\w.]+)(?: (?:in|on) .*)?$/i.exec(cmd))) {
      const a = findApp(m[1], session.ns);
      if (!a) return fail(short, `Application ${m[1]} not found`);
      if (a.status !== 'CREATED') return fail(short, `Application ${a.fullName} is already ${a.status}`);
      if (faults.failDeploy?.test(a.fullName)) return fail(short, `Deployment of ${a.fullName} failed: com.webaction.exception.FatalException: injected deploy failure`);
      if (!a.source || !a.target) return fail(short, `Application ${a.fullName} has no source or target`);
      stats.deploys++;
      a.status = 'DEPLOYED';
      return ok(short);
    }
    if ((m = /^start application ([\w.]+)$/i.exec(cmd))) {
      const a = findApp(m[1], session.ns);
      if (!a) return fail(short, `Application ${m[1]} not found`);
      if (a.status !== 'DEPLOYED' && a.status !== 'STOPPED') return fail(short, `Application ${a.fullName} cannot start from ${a.status}`);
      startApp(a);
      return ok(short);
    }
    if ((m = /^(stop|undeploy) application ([\w.]+)$/i.exec(cmd))) {
      const a = findApp(m[2], session.ns);
      if (!a) return fail(short, `Application ${m[2]} not found`);
      if (faults.failUndeploy?.test(a.fullName)) return fail(short, `${m[1].toUpperCase()} of ${a.fullName} failed: injected cleanup failure`);
      stopCopy(a);
      if (m[1].toLowerCase() === 'stop') {
        if (!DEPLOYED.has(a.status)) return fail(short, `Application ${a.fullName} is not running (${a.status})`);
        a.status = 'STOPPED';
      } else {
        if (!DEPLOYED.has(a.status)) return fail(short, `Application ${a.fullName} is not deployed (${a.status})`);
        a.status = 'CREATED';
      }
      return ok(short);
    }
    if ((m = /^drop application ([\w.]+)( cascade)?$/i.exec(cmd))) {
      const a = findApp(m[1], session.ns);
      if (!a) return fail(short, `No objects found: application ${m[1]}`);
      if (faults.failUndeploy?.test(a.fullName)) return fail(short, `DROP of ${a.fullName} failed: injected cleanup failure`);
      if (a.status !== 'CREATED' && a.status !== 'STOPPED' && a.status !== 'TERMINATED' && a.status !== 'HALTED') return fail(short, `Application ${a.fullName} is ${a.status}; undeploy it first`);
      stopCopy(a);
      apps.delete(a.fullName);
      return ok(short);
    }
    if ((m = /^mon(?: ([\w.]+))?$/i.exec(cmd))) {
      if (m[1]) {
        const a = findApp(m[1], session.ns);
        if (!a) return fail(short, `No objects found: ${m[1]}`);
        return ok(short, { striimApplications: [{ ...monEntry(a), rowsRead: a.rowsRead, rowsWritten: a.rowsWritten, exception: a.error }] });
      }
      return ok(short, {
        striimApplications: [...apps.values()].map(monEntry),
        striimClusterNodes: [{ entityType: 'SERVER', name: 'emulator-node-1', version: 'emulator', freeMemory: 0, cpuRate: 0, uptime: 0 }],
      });
    }
    return fail(short, `Unsupported command in the Striim emulator: ${short}`);
  }

  async function execute(tql: string, session: { ns: string } = { ns: 'admin' }): Promise<CommandResult[]> {
    const out: CommandResult[] = [];
    for (const stmt of splitTql(tql)) out.push(await command(stmt, session));
    building = null;
    return out;
  }

  const readBody = (req: http.IncomingMessage) => new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  // Commands of different requests must not interleave (an app definition spans statements).
  let chain: Promise<unknown> = Promise.resolve();
  const server = http.createServer((req, res) => {
    void (async () => {
      stats.requests++;
      const body = await readBody(req);
      if ((faults.http503 ?? 0) > 0) {
        faults.http503 = (faults.http503 ?? 0) - 1;
        stats.http503Served++;
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><body>503 Service Unavailable</body></html>');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && url.pathname === '/security/authenticate') {
        const form = new URLSearchParams(body);
        const u = form.get('username') ?? '';
        if (!(u in users) || users[u] !== (form.get('password') ?? '')) return send(res, 401, { error: 'Invalid username or password' });
        const token = crypto.randomBytes(12).toString('base64url');
        tokens.set(token, { expiresAt: opts.tokenTtlMs ? Date.now() + opts.tokenTtlMs : Infinity, ns: 'admin' });
        stats.tokensIssued++;
        return send(res, 200, { token });
      }
      if (req.method === 'POST' && url.pathname === '/api/v2/tungsten') {
        const h = String(req.headers.authorization ?? '');
        const tok = /^STRIIM-TOKEN\s+(\S+)$/i.exec(h)?.[1] ?? url.searchParams.get('token') ?? '';
        const sess = tokens.get(tok);
        if (!sess || sess.expiresAt < Date.now()) {
          tokens.delete(tok);
          stats.tokenRejections++;
          return send(res, 401, { reason: 'Invalid or expired tkn' });
        }
        const run = chain.then(() => execute(body, sess));
        chain = run.catch(() => {});
        try { return send(res, 200, await run); } catch (e) { return send(res, 500, { error: (e as Error).message }); }
      }
      if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { status: 'ok', applications: apps.size });
      send(res, 404, { error: `no route ${req.method} ${url.pathname}` });
    })().catch((e) => { try { send(res, 500, { error: (e as Error).message }); } catch { /* closed */ } });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`, port, faults, stats, apps, namespaces,
    expireTokens: () => tokens.clear(),
    execute,
    close: async () => {
      for (const a of apps.values()) stopCopy(a);
      await Promise.all([...apps.values()].map((a) => a.task?.catch(() => {})));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
