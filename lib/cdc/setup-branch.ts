import type { Lake } from '../lake';
import type { Logger } from '../log';
import type { TableDef } from '../config/tables-json';
import { BRANCH_ID } from '../config/lake-columns';
import { AppError } from '../errors';
import { createPgClient, type PgConnectConfig } from '../sources';
import type pg from 'pg';
import { formatLsn } from './lsn';
import { createSlot, openReplicationClient } from './replication';
import { cdcNames, checkSource, dropSlot, ensurePublication, resolveTables, type Missing } from './setup';
import { recordSetup, recordSetupStarted, setBranchStatus, setupUnfinished } from './state';

export interface SetupOptions {
  pool: pg.Pool;
  lake: Lake;
  branch: string;
  namespace: string;
  source: PgConnectConfig;
  tables: TableDef[];
  logger: Logger;
  /**
   * The INITIAL load of this branch's tables, reading in `snapshot` (lib/sources' `snapshot`
   * option): the engine that loads (lib/etl) is the caller's, so this engine stays its peer.
   */
  initialLoad(snapshot: string): Promise<void>;
}

export interface SetupResult { slot: string; publication: string; startLsn: string; tables: string[] }

/** The source lacks settings or grants: each with the SQL that provides it, printed by the CLI. */
export class SourceNotReady extends AppError {
  constructor(readonly missing: Missing[], branch: string) {
    super('validation', `cdc: branch ${branch} is not ready for logical replication:\n${missing.map((m) => `  ✗ ${m.problem}\n      ${m.sql}`).join('\n')}`, { field: 'branch' });
    this.name = 'SourceNotReady';
  }
}

/**
 * `tributary cdc setup`: check the source, publish the branch's tables, create the slot with an
 * exported snapshot, and load the tables in that snapshot while the slot's connection holds it.
 * The stream then starts exactly at the slot's consistent point: nothing between the load and
 * the stream is lost or applied twice. Run again it starts over (a new slot, a new snapshot),
 * which is the recovery when the slot was lost; the branch's rows are replaced in the lake.
 *
 * A setup that dies while loading (kill -9, a lost machine) cannot be resumed where it stood: the
 * exported snapshot lived only as long as the slot's connection. So the control state says "not
 * set up" (start LSN NULL, status failed naming the re-run) from before the slot is touched until
 * the last table is loaded, a stream refuses such a branch, and the re-run starts over: a new
 * slot and snapshot, and every table's branch rows replaced, so a partial load's rows neither
 * survive nor double.
 */
export async function setupBranch(o: SetupOptions): Promise<SetupResult> {
  const names = cdcNames(o.branch);
  const c = createPgClient(o.source);
  await c.connect();
  try {
    const { found, missing } = await resolveTables(c, o.tables.map((t) => t.source));
    const problems = await checkSource(c, found, missing);
    if (problems.length) throw new SourceNotReady(problems, o.branch);
    await ensurePublication(c, names.publication, found);
    // from here until recordSetup the branch is not streamable: a setup killed mid-load leaves it so
    await recordSetupStarted(o.pool, { branch: o.branch, namespace: o.namespace, ...names });
    if ((await c.query(`SELECT 1 FROM pg_replication_slots WHERE slot_name = $1`, [names.slot])).rowCount) {
      o.logger.warn('cdc: dropping the existing slot: setup starts the branch over from a new snapshot', { branch: o.branch, slot: names.slot });
      await dropSlot(c, names.slot);
    }
  } finally { await c.end().catch(() => {}); }
  const repl = await openReplicationClient(o.source, `tributary-cdc-setup:${o.branch}`);
  try {
    const slot = await createSlot(repl, names.slot);
    if (!slot.snapshotName) throw new AppError('fatal', `cdc: the source exported no snapshot for slot ${names.slot}`);
    // the snapshot replaces the branch: rows the lake holds from before must not outlive it
    for (const def of o.tables) {
      const ident = `${o.namespace}.${def.lakeName}`;
      if (await o.lake.tableExists(ident)) await (await o.lake.loadTable(ident)).deleteWhere({ partition: { [BRANCH_ID]: o.branch } });
    }
    await o.initialLoad(slot.snapshotName).catch(async (e) => {
      await setBranchStatus(o.pool, o.branch, 'failed', { error: `${setupUnfinished(o.branch)} (it failed: ${(e as Error).message})` }).catch(() => {});
      throw e;
    });
    const startLsn = formatLsn(slot.consistentPoint);
    await recordSetup(o.pool, { branch: o.branch, namespace: o.namespace, slot: names.slot, publication: names.publication, startLsn, tables: o.tables.map((t) => t.lakeName) });
    return { slot: names.slot, publication: names.publication, startLsn, tables: o.tables.map((t) => t.lakeName) };
  } finally {
    // closing the slot's connection ends the exported snapshot (the load is done with it)
    await repl.end().catch(() => {});
  }
}
