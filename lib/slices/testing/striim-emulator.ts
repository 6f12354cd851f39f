import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../log';
import { copyWithPostgres, pgUrlToPropertyVariables } from './copier';
import { createTqlInterpreter, type CommandResult, type EmulatorApp, type EmulatorFaults, type EmulatorStats } from './tql-interpreter';

export { jdbcToPgUrl, pgUrlToPropertyVariables } from './copier';
export type { CommandResult, EmulatorApp, EmulatorFaults, EmulatorStats } from './tql-interpreter';

/**
 * The Striim emulator's HTTP server (`tributary slices striim-emulator`): an emulator of the parts of Striim's REST API the orchestrator uses, for tests
 * and demos: `/security/authenticate` (form → `{token}`), `/api/v2/tungsten`
 * (TQL text → JSON array of `{command, executionStatus, failureMessage,
 * output}`), namespaces and applications with Striim's status lifecycle, and
 * `mon;`. A started DatabaseReader → DatabaseWriter application REALLY copies:
 * it runs the source `Query` against the Postgres named by the source
 * connection property variables and inserts into the target table in the
 * writer's BatchPolicy EventCount, ignoring primary-key conflicts when
 * IgnorableExceptionCode holds DUPLICATE_ROW_EXISTS. Faults can be injected. The TQL lives in
 * tql-interpreter.ts, the row copying in copier.ts; this file is the HTTP and auth shell.
 */
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

export async function startStriimEmulator(opts: StriimEmulatorOptions = {}): Promise<StriimEmulator> {
  const users = opts.users ?? { admin: 'admin' };
  const tokens = new Map<string, { expiresAt: number; ns: string }>();
  const interp = createTqlInterpreter({
    copier: copyWithPostgres, faults: opts.faults, completionStatus: opts.completionStatus, logger: opts.logger,
    propertyVariables: {
      ...(opts.sourceUrl ? pgUrlToPropertyVariables(opts.sourceUrl, 'Source') : {}),
      ...(opts.targetUrl ? pgUrlToPropertyVariables(opts.targetUrl, 'Target') : {}),
      ...(opts.propertyVariables ?? {}),
    },
  });
  const { faults, stats, apps, namespaces, execute } = interp;

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
        chain = run.catch(() => undefined); // the failure is answered below; the chain only orders requests
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
      await interp.stopAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
