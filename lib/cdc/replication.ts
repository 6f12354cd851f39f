import type pg from 'pg';
import { createPgClient, type PgConnectConfig } from '../sources';
import { AppError } from '../errors';
import { formatLsn, parseLsn } from './lsn';

/**
 * The streaming replication protocol over `pg` (PostgreSQL docs, "Streaming Replication
 * Protocol"): a connection opened with `replication=database` takes replication commands as
 * simple queries; `START_REPLICATION` switches it to CopyBoth, the server sending XLogData
 * (`w`) and keepalives (`k`) as CopyData, the client answering with standby status updates
 * (`r`). What was applied is acknowledged by the flush LSN of those updates only.
 */

/** 2000-01-01 − 1970-01-01 in µs (the protocol's clock). */
const PG_EPOCH_US = 946_684_800_000_000n;

export interface SlotCreated { slot: string; consistentPoint: bigint; snapshotName: string | null }

export async function openReplicationClient(cfg: PgConnectConfig, applicationName: string): Promise<pg.Client> {
  const c = createPgClient({ ...cfg, replication: 'database', application_name: applicationName } as PgConnectConfig);
  await c.connect();
  return c;
}

/**
 * Create a logical slot with pgoutput and export its snapshot: until this connection runs another
 * command or closes, `SET TRANSACTION SNAPSHOT '<snapshotName>'` lets other sessions read the
 * database exactly as of the slot's consistent point.
 */
export async function createSlot(c: pg.Client, slot: string): Promise<SlotCreated> {
  const r = await c.query(`CREATE_REPLICATION_SLOT ${quoteIdent(slot)} LOGICAL pgoutput EXPORT_SNAPSHOT`);
  const row = r.rows[0] as { slot_name: string; consistent_point: string; snapshot_name: string | null };
  return { slot: row.slot_name, consistentPoint: parseLsn(row.consistent_point), snapshotName: row.snapshot_name };
}

export function quoteIdent(name: string): string { return `"${name.replace(/"/g, '""')}"`; }
function quoteLiteral(s: string): string { return `'${s.replace(/'/g, "''")}'`; }

/** One frame of the stream. */
export type ReplicationFrame =
  | { kind: 'xlog'; start: bigint; end: bigint; data: Buffer }
  | { kind: 'keepalive'; end: bigint; replyRequested: boolean };

export function parseFrame(chunk: Buffer): ReplicationFrame | null {
  const tag = String.fromCharCode(chunk[0]);
  if (tag === 'w') return { kind: 'xlog', start: chunk.readBigUInt64BE(1), end: chunk.readBigUInt64BE(9), data: chunk.subarray(25) };
  if (tag === 'k') return { kind: 'keepalive', end: chunk.readBigUInt64BE(1), replyRequested: chunk[17] === 1 };
  return null;
}

/** A standby status update: everything up to `flushed` is applied and may be recycled by the server. */
export function statusUpdate(flushed: bigint, replyRequested = false): Buffer {
  const b = Buffer.alloc(34);
  b.write('r', 0);
  b.writeBigUInt64BE(flushed, 1);
  b.writeBigUInt64BE(flushed, 9);
  b.writeBigUInt64BE(flushed, 17);
  b.writeBigInt64BE(BigInt(Date.now()) * 1000n - PG_EPOCH_US, 25);
  b.writeUInt8(replyRequested ? 1 : 0, 33);
  return b;
}

export interface ReplicationStream {
  /** Acknowledge: the server may drop WAL up to `lsn`; a restart resumes after it. */
  ack(lsn: bigint): void;
  /** Resolves when the server switched to streaming (the slot is this session's); rejects as `done` when it refused. */
  started: Promise<void>;
  /** Resolves when the stream ends (stop, error, or the server closing it). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start streaming `slot` from `startLsn` (0 = from the slot's confirmed position) for the given
 * publications. `onFrame` is called for every frame in order; frames are not awaited, so the
 * caller queues them. Keepalives asking for a reply are answered with the last acknowledged LSN.
 */
export function startReplication(c: pg.Client, o: { slot: string; publication: string; startLsn: bigint; onFrame: (f: ReplicationFrame) => void }): ReplicationStream {
  let acked = 0n;
  const conn = (c as unknown as { connection: { on(e: string, f: (m: { chunk: Buffer }) => void): void; once(e: string, f: () => void): void; sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void } }).connection;
  const send = (b: Buffer) => { try { conn.sendCopyFromChunk(b); } catch { /* the connection is closing: the next start resumes from the slot */ } };
  conn.on('copyData', (m) => {
    const f = parseFrame(m.chunk);
    if (!f) return;
    if (f.kind === 'keepalive' && f.replyRequested) send(statusUpdate(acked));
    o.onFrame(f);
  });
  const sql = `START_REPLICATION SLOT ${quoteIdent(o.slot)} LOGICAL ${formatLsn(o.startLsn)} (proto_version '1', publication_names ${quoteLiteral(quoteIdent(o.publication))})`;
  const done = c.query(sql).then(() => undefined, (e: Error & { code?: string }) => {
    if (e.code === '42704') throw new AppError('not_found', `cdc: replication slot ${o.slot} does not exist on the source (dropped by an administrator?): re-run \`tributary cdc setup\` for this branch, which creates it again and re-snapshots the tables`);
    throw e;
  });
  // CopyBothResponse ('W', pg's `replicationStart`): the server accepted START_REPLICATION
  const started = new Promise<void>((resolve, reject) => {
    conn.once('replicationStart', () => resolve());
    done.then(() => reject(new AppError('transient', `cdc: the replication of slot ${o.slot} ended before it started`)), reject);
  });
  started.catch(() => {});
  return {
    started,
    ack(lsn) { if (lsn > acked) acked = lsn; send(statusUpdate(acked)); },
    done,
    async stop() {
      try { conn.endCopyFrom(); } catch { /* already closed */ }
      await Promise.race([done.catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
      await c.end().catch(() => {});
    },
  };
}
