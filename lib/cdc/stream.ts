import os from 'node:os';
import type pg from 'pg';
import { AppError, toError } from '../errors';
import type { Lake, LakeTable } from '../lake';
import type { Logger } from '../log';
import type { TableDef } from '../config/tables-json';
import { createPgClient, lakeKeys, wallClockMicros, type PgConnectConfig } from '../sources';
import { addChange, applyTable, emptyChanges, lakeNames, rowOf, type TableChanges } from './apply';
import { formatLsn, parseLsn } from './lsn';
import { decodePgOutput, unixMicros, type PgOutputMessage, type RelationColumn } from './pgoutput';
import { openReplicationClient, startReplication, type ReplicationFrame, type ReplicationStream } from './replication';
import { resolveTables, slotInfo } from './setup';
import { readBranchState, readTableLsns, recordBranchApplied, recordBranchPosition, recordTableApplied, setBranchStatus, setupUnfinished } from './state';

/** The snapshot summary property holding the LSN a CDC commit brings its table to, per branch. */
export const LSN_PROPERTY = (branch: string) => `tributary.cdc.lsn.${branch}`;

export interface StreamOptions {
  /** Tributary's database (control state). */
  pool: pg.Pool;
  lake: Lake;
  branch: string;
  /** The branch's PostgreSQL connection settings. */
  source: PgConnectConfig;
  /** The tables.json entries streamed (the branch's publication holds their source tables). */
  tables: TableDef[];
  logger: Logger;
  runId: string;
  signal: AbortSignal;
  /** Apply what arrived at least this often. (Default: 10 000 ms) */
  flushIntervalMs?: number;
  /** Apply as soon as this many changes wait. (Default: 10 000) */
  flushRows?: number;
  /** Who streams, written to the control state once the slot is this stream's. (Default: host:pid) */
  owner?: string;
  /** Called after each flush was committed and acknowledged (tests and the bench watch it). */
  onFlush?: (f: FlushInfo) => void;
}

export interface FlushInfo { lsn: string; rows: number; tables: string[]; commitTimesMicros: bigint[] }

export interface StreamSummary { branch: string; flushes: number; rows: number; appliedLsn: string | null }

interface OpenTxn { endLsn: bigint | null; commitTimeMicros: bigint; changes: { relationId: number; msg: PgOutputMessage }[] }

/**
 * One branch's stream: changes are decoded as they arrive and held per table; every
 * `flushIntervalMs` or `flushRows` the complete transactions held are applied, one lake commit
 * per table, then the control state, and only then the source is acknowledged. A restart resumes
 * at the control state's LSN and skips, per table, every transaction its lake commit already
 * holds: a crash at any point applies nothing twice and loses nothing.
 */
export async function runStream(o: StreamOptions): Promise<StreamSummary> {
  const state = await readBranchState(o.pool, o.branch);
  if (!state) throw new AppError('not_found', `cdc: branch ${o.branch} is not set up for streaming: run \`tributary cdc setup --branch ${o.branch}\` first`, { field: 'branch' });
  // a setup that has not finished (or died mid-snapshot) left a partial lake and no usable start
  if (!state.startLsn) throw new AppError('validation', state.error ?? setupUnfinished(o.branch), { field: 'branch' });
  const namespace = state.namespace;
  const log = o.logger.child({ branch: o.branch, slot: state.slot });
  const check = createPgClient(o.source);
  await check.connect();
  let oids: Map<number, TableDef>;
  try {
    const slot = await slotInfo(check, state.slot);
    // an active slot is not refused here: two streams starting at once would both pass such a
    // check; START_REPLICATION is the one arbiter (55006 below), and only its winner writes state
    if (!slot) {
      const msg = `cdc: replication slot ${state.slot} of branch ${o.branch} no longer exists on the source (dropped by an administrator, or invalidated): the lake cannot tell what changed since ${state.appliedLsn}. Recover with \`tributary cdc setup --branch ${o.branch}\`, which creates the slot again and re-snapshots the tables`;
      await setBranchStatus(o.pool, o.branch, 'failed', { error: msg });
      throw new AppError('not_found', msg);
    }
    const { found } = await resolveTables(check, o.tables.map((t) => t.source));
    oids = new Map(found.map((f) => [f.oid, o.tables.find((t) => t.source === f.entry)!]));
  } finally { await check.end().catch(() => {}); }
  const tableLsns = new Map([...(await readTableLsns(o.pool, namespace, o.branch))].map(([k, v]) => [k, parseLsn(v)]));
  const lakeTables = new Map<string, LakeTable>();
  for (const def of o.tables) {
    const tbl = await o.lake.loadTable(`${namespace}.${def.lakeName}`);
    lakeTables.set(def.lakeName, tbl);
    // the lake commit may hold a later LSN than the control state (a crash between the two)
    const inLake = lakeLsn(tbl, o.branch);
    if (inLake !== null && inLake > (tableLsns.get(def.lakeName) ?? 0n)) tableLsns.set(def.lakeName, inLake);
  }
  const s = new StreamRun(o, namespace, oids, lakeTables, tableLsns, parseLsn(state.appliedLsn ?? state.startLsn ?? '0/0'), log);
  try {
    await s.run(state.slot, state.publication);
  } catch (e) {
    const err = toError(e);
    // 55006: another reader holds the slot (the stream that won the start); the state is its own
    if ((e as { code?: string }).code === '55006') {
      const owner = (await readBranchState(o.pool, o.branch).catch(() => null))?.owner;
      throw new AppError('conflict', `cdc: branch ${o.branch} is streaming already (slot ${state.slot} is in use${owner ? ` by ${owner}` : ''}): one stream per branch`);
    }
    await setBranchStatus(o.pool, o.branch, 'failed', { error: err.message }).catch(() => {});
    throw err;
  }
  await setBranchStatus(o.pool, o.branch, 'stopped');
  return { branch: o.branch, flushes: s.flushes, rows: s.rowsApplied, appliedLsn: formatLsn(s.applied) };
}

/** The LSN of the branch in the table's latest snapshot that records one. */
export function lakeLsn(tbl: LakeTable, branch: string): bigint | null {
  const key = LSN_PROPERTY(branch);
  const snaps = [...tbl.snapshots()].sort((a, b) => b['sequence-number'] - a['sequence-number']);
  for (const sn of snaps) { const v = (sn.summary as Record<string, string>)[key]; if (v) return parseLsn(v); }
  return null;
}

class StreamRun {
  flushes = 0;
  rowsApplied = 0;
  /** Per relation: its columns and, once a change needed them, their lake names and the key's (reset by each relation message). */
  private relations = new Map<number, { columns: RelationColumn[]; names?: string[]; keys?: string[] }>();
  private txn: OpenTxn | null = null;
  private pending = new Map<string, TableChanges>();
  private pendingRows = 0;
  private pendingLsn: bigint | null = null;
  private pendingCommitTimes: bigint[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private stream: ReplicationStream | null = null;
  /** A flush is between taking the held changes and acknowledging them. */
  private busy = false;
  /** The latest idle keepalive position not yet written to the control state, and the write under way. */
  private idleLsn: bigint | null = null;
  private idleWrite: Promise<void> | null = null;
  private idleRecorded = 0n;

  constructor(private o: StreamOptions, private namespace: string, private oids: Map<number, TableDef>, private lakeTables: Map<string, LakeTable>,
    private tableLsns: Map<string, bigint>, public applied: bigint, private log: Logger) {}

  async run(slot: string, publication: string): Promise<void> {
    const client = await openReplicationClient(this.o.source, `tributary-cdc:${this.o.branch}`);
    client.on('error', (e) => { this.failure ??= e; });
    this.stream = startReplication(client, { slot, publication, startLsn: this.applied, onFrame: (f) => this.onFrame(f) });
    // an end after a stop was asked for is not a failure; before it, the race below sees it
    this.stream.done.catch(() => {});
    try {
      await this.stream.started;
      // the slot is this stream's now: only now may it name itself the owner (a loser never does)
      await setBranchStatus(this.o.pool, this.o.branch, 'streaming', { owner: this.o.owner ?? `${os.hostname()}:${process.pid}` });
    } catch (e) { await this.stream.stop(); throw e; }
    const interval = this.o.flushIntervalMs ?? 10_000;
    let stopAsked: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stopAsked = resolve;
      if (this.o.signal.aborted) resolve();
      this.o.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const timer = setInterval(() => {
      this.scheduleFlush();
      // `tributary cdc stop` (another process) asks through the control state
      readBranchState(this.o.pool, this.o.branch).then((st) => { if (st?.status === 'stopped') stopAsked(); }, () => {});
    }, interval);
    try {
      await Promise.race([stopped, this.stream.done]);
      if (this.failure) throw this.failure;
      // a graceful stop applies what complete transactions arrived, then acknowledges them
      this.scheduleFlush();
      await this.flushing;
      if (this.failure) throw this.failure;
    } finally {
      clearInterval(timer);
      await this.stream.stop();
      await this.idleWrite;
    }
  }

  /**
   * Record an idle keepalive position as the branch's applied LSN (`dq` waits on it): one write
   * at a time, the latest position winning, so a busy server's keepalives cost one UPDATE each
   * at most. A failed write is only logged: the next flush or keepalive writes a later position.
   */
  private recordIdle(lsn: bigint): void {
    if (lsn <= this.idleRecorded) return; // the server repeats its position while nothing new is written
    if (this.idleLsn === null || lsn > this.idleLsn) this.idleLsn = lsn;
    if (this.idleWrite) return;
    this.idleWrite = (async () => {
      while (this.idleLsn !== null) {
        const at = this.idleLsn; this.idleLsn = null; this.idleRecorded = at;
        await recordBranchPosition(this.o.pool, this.o.branch, formatLsn(at)).catch((e) => this.log.warn('cdc: could not record the idle position', { lsn: formatLsn(at), error: toError(e).message }));
      }
      this.idleWrite = null;
    })();
  }

  private onFrame(f: ReplicationFrame): void {
    if (this.failure) return;
    try {
      if (f.kind === 'keepalive') {
        // nothing held and no transaction open: everything before the server's position is applied
        // (also recorded: a source writing nothing more to the published tables still gives `dq` a
        // position at or past the point it waits for)
        if (!this.txn && !this.busy && this.pendingLsn === null && f.end > this.applied) { this.stream?.ack(f.end); this.recordIdle(f.end); }
        return;
      }
      this.onMessage(decodePgOutput(f.data));
    } catch (e) { this.failure = toError(e); this.stream?.stop().catch(() => {}); }
  }

  private onMessage(m: PgOutputMessage): void {
    switch (m.tag) {
      case 'begin': this.txn = { endLsn: null, commitTimeMicros: m.commitTimeMicros, changes: [] }; return;
      case 'relation': this.relations.set(m.relationId, { columns: m.columns }); return;
      case 'insert': case 'update': case 'delete': this.txn?.changes.push({ relationId: m.relationId, msg: m }); return;
      case 'truncate': for (const id of m.relationIds) this.txn?.changes.push({ relationId: id, msg: m }); return;
      case 'commit': {
        const t = this.txn; this.txn = null;
        if (!t || m.endLsn <= this.applied) return; // applied before a restart
        this.hold(t.changes, m.endLsn);
        this.pendingLsn = m.endLsn;
        this.pendingCommitTimes.push(m.commitTimeMicros);
        if (this.pendingRows >= (this.o.flushRows ?? 10_000)) this.scheduleFlush();
        return;
      }
      default: return;
    }
  }

  /** A committed transaction's changes into the per-table buffers (tables whose lake holds it already skip it). */
  private hold(changes: OpenTxn['changes'], endLsn: bigint): void {
    for (const { relationId, msg } of changes) {
      const def = this.oids.get(relationId);
      const rel = this.relations.get(relationId);
      if (!def || !rel) continue;
      if ((this.tableLsns.get(def.lakeName) ?? 0n) >= endLsn) continue;
      let t = this.pending.get(def.lakeName);
      if (!t) this.pending.set(def.lakeName, (t = emptyChanges(def, rel.columns)));
      t.columns = rel.columns;
      if (!rel.names || !rel.keys) {
        const lake = this.lakeTables.get(def.lakeName)!.arrowSchema().fields.map((f) => f.name);
        rel.names = lakeNames(def, rel.columns, lake);
        rel.keys = lakeKeys(def, [...lake, ...rel.names]);
      }
      const { names, keys } = rel;
      if (msg.tag === 'truncate') { t.rows.clear(); t.truncated = true; continue; }
      if (msg.tag === 'insert') addChange(t, keys, rowOf(names, msg.row), 'upsert', def.lakeName);
      else if (msg.tag === 'update') {
        if (msg.key || msg.old) addChange(t, keys, rowOf(names, (msg.key ?? msg.old)!), 'delete', def.lakeName);
        addChange(t, keys, rowOf(names, msg.row), 'upsert', def.lakeName);
      } else if (msg.tag === 'delete') addChange(t, keys, rowOf(names, (msg.key ?? msg.old)!), 'delete', def.lakeName);
      this.pendingRows++;
    }
  }

  private scheduleFlush(): void {
    this.flushing = this.flushing.then(async () => { this.busy = true; try { await this.flush(); } finally { this.busy = false; } }).catch((e) => { this.failure ??= toError(e); this.stream?.stop().catch(() => {}); });
  }

  /** Apply what is held: one commit per table, the control state, then the acknowledgement. */
  private async flush(): Promise<void> {
    if (this.failure || this.pendingLsn === null) return;
    const lsn = this.pendingLsn; const tables = this.pending; const rows = this.pendingRows; const commitTimes = this.pendingCommitTimes;
    this.pending = new Map(); this.pendingRows = 0; this.pendingLsn = null; this.pendingCommitTimes = [];
    const lsnText = formatLsn(lsn);
    const startedAt = new Date();
    for (const [name, t] of tables) {
      if (!t.changes && !t.truncated) continue;
      const tbl = this.lakeTables.get(name)!;
      await tbl.refresh();
      const r = await applyTable(tbl, t, { branch: this.o.branch, nowMicros: wallClockMicros(new Date()), summary: { [LSN_PROPERTY(this.o.branch)]: lsnText } });
      await recordTableApplied(this.o.pool, { namespace: this.namespace, table: name, branch: this.o.branch, lsn: lsnText, snapshotId: r.snapshotId, rows: t.changes, runId: this.o.runId, startedAt });
      this.tableLsns.set(name, lsn);
    }
    // the newest source commit the lake now holds: what the lag in seconds is measured from
    const last = commitTimes.length ? new Date(Number(unixMicros(commitTimes[commitTimes.length - 1]) / 1000n)) : null;
    await recordBranchApplied(this.o.pool, this.o.branch, lsnText, rows, last);
    this.applied = lsn;
    this.stream?.ack(lsn);
    this.flushes++; this.rowsApplied += rows;
    this.log.info('cdc: flushed', { lsn: lsnText, rows, tables: [...tables.keys()] });
    this.o.onFlush?.({ lsn: lsnText, rows, tables: [...tables.keys()], commitTimesMicros: commitTimes });
  }
}
