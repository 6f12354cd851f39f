import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import pg from 'pg';
import { AppError } from '../errors';

/**
 * Postgres connections whose TLS follows libpq's `sslmode`, for every engine.
 *
 * node-pg reads `sslmode` from a URL but treats `prefer` (libpq's default) like
 * `require`: against a server without TLS it fails with "The server does not
 * support SSL connections" where psql simply connects. Here the mode is taken
 * off the URL (pg never sees it) and applied at connect time:
 *
 * - `disable`: plain.
 * - `allow`: plain; if the server refuses the plain session at startup, TLS.
 * - `prefer` (the default): TLS when the server accepts the SSLRequest and the
 *   handshake succeeds, else plain.
 * - `require`: TLS, no certificate check — but, as in libpq, when a root
 *   certificate file is present (`sslrootcert`, or `~/.postgresql/root.crt`)
 *   the chain is verified as with `verify-ca`.
 * - `verify-ca`: TLS, the chain verified against the root certificate (not the host name).
 * - `verify-full`: TLS, chain and host name verified.
 *
 * `sslrootcert=system` uses the system's trusted roots (and, as in libpq 16,
 * requires `verify-full`). `sslcert` / `sslkey` give a client certificate.
 * Unix-socket hosts never use TLS (as libpq).
 */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** libpq's TLS settings; each may also come as a query parameter of `connectionString`. */
export interface PgTlsSettings {
  /** (Default: prefer, as libpq) */
  sslmode?: SslMode | string;
  /** Root certificate file for verification, or `system`. (Default: ~/.postgresql/root.crt when it exists) */
  sslrootcert?: string;
  /** Client certificate file. (Default: none) */
  sslcert?: string;
  /** Client private key file. (Default: none) */
  sslkey?: string;
}

export type PgConnectConfig = Omit<pg.ClientConfig, 'ssl'> & PgTlsSettings;
export type PgPoolConfig = Omit<pg.PoolConfig, 'ssl' | 'Client'> & PgTlsSettings;

const TLS_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'ssl', 'sslcrl', 'sslpassword', 'sslnegotiation', 'uselibpqcompat'];

/** What a configuration asks for, with the URL's TLS parameters removed (pg must not apply its own reading). */
export interface PgTlsPlan {
  mode: SslMode;
  /** TLS options used whenever the connection is encrypted. */
  tls: tls.ConnectionOptions;
  /** The config to give pg: no TLS parameters left in it. */
  config: pg.ClientConfig;
}

/**
 * Resolve sslmode / sslrootcert / sslcert / sslkey (explicit settings win over
 * the URL's) into TLS options. Reads the certificate files; throws a clear
 * error when a verifying mode has no root certificate.
 */
export function planPgTls(cfg: PgConnectConfig, o: { homeDir?: string } = {}): PgTlsPlan {
  const { sslmode, sslrootcert, sslcert, sslkey, ...rest } = cfg;
  const config: pg.ClientConfig = { ...rest };
  const fromUrl: Record<string, string> = {};
  if (cfg.connectionString) {
    const u = new URL(cfg.connectionString);
    for (const k of TLS_PARAMS) {
      const v = u.searchParams.get(k);
      if (v !== null) fromUrl[k] = v;
      u.searchParams.delete(k);
    }
    config.connectionString = u.toString();
  }
  // node-pg's own `ssl=true` spelling: the nearest libpq mode is require
  const legacy = fromUrl.ssl && /^(true|1|no-verify)$/i.test(fromUrl.ssl) ? 'require' : undefined;
  const raw = (sslmode ?? fromUrl.sslmode ?? legacy ?? 'prefer').toString().trim().toLowerCase();
  if (!(SSL_MODES as readonly string[]).includes(raw)) {
    throw new AppError('validation', `sources: postgres: invalid sslmode "${raw}" (expected one of ${SSL_MODES.join(', ')})`);
  }
  const mode = raw as SslMode;
  const home = o.homeDir ?? os.homedir();
  const explicitRoot = sslrootcert ?? fromUrl.sslrootcert;
  const defaultRoot = path.join(home, '.postgresql', 'root.crt');
  const rootFile = explicitRoot ?? (fs.existsSync(defaultRoot) ? defaultRoot : undefined);
  const out: tls.ConnectionOptions = {};
  const certFile = sslcert ?? fromUrl.sslcert;
  const keyFile = sslkey ?? fromUrl.sslkey;
  if (mode !== 'disable') {
    if (certFile) out.cert = readCert(certFile, 'sslcert');
    if (keyFile) out.key = readCert(keyFile, 'sslkey');
  }
  if (mode === 'disable') return { mode, tls: out, config };
  if (rootFile === 'system') {
    if (mode !== 'verify-full') throw new AppError('validation', `sources: postgres: sslrootcert=system requires sslmode=verify-full (got ${mode}), as in libpq`);
    out.rejectUnauthorized = true;
    return { mode, tls: out, config };
  }
  if (mode === 'verify-ca' || mode === 'verify-full') {
    if (!rootFile || !fs.existsSync(/*turbopackIgnore: true*/ rootFile)) {
      throw new AppError('validation', `sources: postgres: sslmode=${mode}: root certificate file "${rootFile ?? defaultRoot}" does not exist — give sslrootcert, use sslrootcert=system, or choose a mode that does not verify the server (require)`);
    }
  }
  if (rootFile) {
    out.ca = readCert(rootFile, 'sslrootcert');
    out.rejectUnauthorized = true;
    // verify-ca (and require/prefer/allow with a root file): chain only, any host name
    if (mode !== 'verify-full') out.checkServerIdentity = () => undefined;
  } else {
    out.rejectUnauthorized = false;
  }
  return { mode, tls: out, config };
}

function readCert(file: string, what: string): string {
  try { return fs.readFileSync(file, 'utf8'); } catch (e) {
    throw new AppError('fatal', `sources: postgres: cannot read ${what} "${file}": ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Whether the server at host:port speaks TLS: sends the SSLRequest and, on
 * 'S', completes a handshake with `opts` (so a certificate the client would
 * reject counts as "no TLS" for prefer, as libpq falls back then too).
 */
export function probeTls(host: string, port: number, opts: tls.ConnectionOptions, timeoutMs = 10_000): Promise<{ tls: boolean; reason?: string }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const sock = net.connect({ host, port });
    const finish = (r: { tls: boolean; reason?: string } | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      if (r instanceof Error) reject(r); else resolve(r);
    };
    const timer = setTimeout(() => finish(Object.assign(new Error(`sources: postgres ${host}:${port}: timeout expired while connecting`), { code: 'ETIMEDOUT' })), timeoutMs);
    timer.unref?.();
    sock.once('error', (e) => finish(e));
    sock.once('connect', () => {
      const req = Buffer.alloc(8);
      req.writeInt32BE(8, 0);
      req.writeInt32BE(80877103, 4); // SSLRequest code
      sock.write(req);
    });
    sock.once('data', (b) => {
      const c = String.fromCharCode(b[0]);
      if (c !== 'S') { finish({ tls: false, reason: c === 'N' ? 'the server does not support SSL connections' : 'the server answered the SSLRequest with an error' }); return; }
      sock.removeAllListeners('error');
      const t = tls.connect({ ...opts, socket: sock, host, servername: net.isIP(host) ? undefined : host });
      t.once('secureConnect', () => { t.destroy(); finish({ tls: true }); });
      t.once('error', (e) => { t.destroy(); finish({ tls: false, reason: `TLS handshake failed: ${e.message}` }); });
    });
  });
}

/** Postgres startup errors after which libpq's allow retries with TLS: the server refused the plain session. */
function refusedPlain(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return /^28/.test(code) || code === '08P01';
}

type ConnectCallback = (err: Error) => void;

/**
 * A pg.Client class bound to one configuration: each instance decides at
 * connect time whether to encrypt, per `sslmode`. The decision (a probe for
 * prefer, a plain trial for allow) is made once and shared by every client of
 * the class (a pool's connections all go to the same server).
 */
export function pgClientClass(cfg: PgConnectConfig): typeof pg.Client {
  const plan = planPgTls(cfg);
  let decided: Promise<boolean> | null = null;
  // a failed decision (server down) is not kept: the next connect decides again
  const remember = (f: () => Promise<boolean>) => (decided ??= f().catch((e) => { decided = null; throw e; }));
  const useTls = (host: string, port: number, timeoutMs: number): Promise<boolean> => {
    if (host.startsWith('/')) return Promise.resolve(false);
    switch (plan.mode) {
      case 'disable': return Promise.resolve(false);
      case 'require': case 'verify-ca': case 'verify-full': return Promise.resolve(true);
      case 'prefer':
        return remember(() => probeTls(host, port, plan.tls, timeoutMs || 10_000).then((r) => r.tls));
      case 'allow':
        return remember(async () => {
          const trial = new pg.Client({ ...plan.config, ssl: false });
          trial.on('error', () => {});
          try { await trial.connect(); return false; } catch (e) {
            if (refusedPlain(e)) return true;
            throw e;
          } finally { await trial.end().catch(() => {}); } // closing: a failing close changes nothing the caller can act on
        });
    }
  };
  const where = () => {
    try {
      const u = plan.config.connectionString ? new URL(plan.config.connectionString) : null;
      return `${plan.config.host ?? u?.hostname ?? 'localhost'}:${plan.config.port ?? (u?.port || 5432)}`;
    } catch { return String(plan.config.host ?? 'localhost'); }
  };

  class TlsClient extends pg.Client {
    constructor(c?: pg.ClientConfig) {
      // a pool hands its own options back (with `Client` etc.): keep them, minus TLS
      super({ ...plan.config, ...(c ?? {}), connectionString: plan.config.connectionString, ssl: false });
    }

    connect(): Promise<pg.Client>;
    connect(callback: ConnectCallback): void;
    connect(callback?: ConnectCallback): Promise<pg.Client> | void {
      const self = this as unknown as { host: string; port: number; ssl: unknown; connection: { ssl: unknown }; _connectionTimeoutMillis?: number };
      const run = (cb: ConnectCallback) => {
        useTls(self.host, self.port, self._connectionTimeoutMillis ?? 0).then((on) => {
          const ssl = on ? { ...plan.tls } : false;
          self.ssl = ssl;
          self.connection.ssl = ssl;
          super.connect((err: Error) => {
            if (err && /does not support SSL/i.test(err.message)) {
              if (plan.mode === 'prefer') decided = null; // the server changed: probe again next time
              err = Object.assign(new Error(`sources: postgres ${where()}: sslmode=${plan.mode} needs TLS, but the server does not support SSL connections (use sslmode=prefer or disable)`, { cause: err }), { code: 'SSL_UNSUPPORTED' });
            } else if (err && on && /self[- ]signed|certificate|Hostname\/IP does not match|unable to verify/i.test(err.message)) {
              err = Object.assign(new Error(`sources: postgres ${where()}: sslmode=${plan.mode}: server certificate rejected: ${err.message}`, { cause: err }), { code: (err as { code?: string }).code });
            }
            cb(err);
          });
        }, (e: Error) => cb(e));
      };
      if (callback) { run(callback); return; }
      return new Promise<pg.Client>((resolve, reject) => run((err) => (err ? reject(err) : resolve(this))));
    }
  }
  return TlsClient;
}

/** One Postgres session, TLS per sslmode. */
export function createPgClient(cfg: PgConnectConfig): pg.Client {
  const C = pgClientClass(cfg);
  return new C();
}

/** A Postgres pool, TLS per sslmode; an idle client losing its server does not crash the process. */
export function createPgPool(cfg: PgPoolConfig): pg.Pool {
  const pool = new pg.Pool({ ...(cfg as pg.PoolConfig), ssl: undefined, Client: pgClientClass(cfg as PgConnectConfig) } as pg.PoolConfig);
  pool.on('error', () => {});
  return pool;
}

/** Whether this session is encrypted (pg_stat_ssl, for tests and `slices setup`). */
export async function sessionUsesTls(c: pg.ClientBase): Promise<boolean> {
  const r = await c.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
  return r.rows[0]?.ssl === true;
}
