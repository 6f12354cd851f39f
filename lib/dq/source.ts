import {
  canonicalColumn, createOracleSource, createPgClient, createPostgresSource, loadOracle, oracleColumnType, oracleConnectString, pgColumnType,
  type BranchSource, type OracleBranchOptions, type PostgresBranchOptions, type SourceColumn,
} from '../sources';
import { pgSide } from '../reconcile/pg-side';
import type { DqSide } from '../reconcile/side';
import { oracleSide } from '../reconcile/text-side';
import type { DigestKind, HashQuery } from '../reconcile/sql-common';

/**
 * A source branch as the reconciler uses it: one connection for describing
 * and for the digest / row queries, and (only for repair) the ETL's reader of
 * that branch, opened on first use.
 */
export interface DqSource {
  readonly dialect: 'postgres' | 'oracle';
  readonly branch: string;
  /** How this source combines row hashes into bucket digests (the lake side follows). */
  readonly digest: DigestKind;
  /** Columns a query projects (no rows read). */
  describe(sql: string): Promise<SourceColumn[]>;
  /** The comparison side over a rendered query. */
  side(q: HashQuery): DqSide;
  /** The ETL engine's reader of this branch (repair re-extracts through it). */
  reader(): BranchSource;
  /** PostgreSQL: the source's current WAL position and whether a stream reads `slot` now (lib/dq/cdc-wait.ts). */
  walPosition?(slot: string): Promise<{ lsn: string; slotActive: boolean | null }>;
  close(): Promise<void>;
}

/** A branch the run may check: its key and how to open it. */
export interface DqBranch {
  key: string;
  /** The branch is streamed (`cdc: log` on its connection): dq first waits for the lake to reach the source's WAL position. */
  cdc?: boolean;
  open(): Promise<DqSource>;
}

/** A Postgres branch: connects at once (a branch that is down fails here, and only its units). */
export async function openPostgresDqSource(o: PostgresBranchOptions & {
  /** Let the digest queries use the source server's parallel workers (its max_parallel_workers_per_gather caps them). (Default: true) */
  parallel?: boolean;
}): Promise<DqSource> {
  const client = createPgClient({
    connectionString: o.connectionString, host: o.host, port: o.port, database: o.database, user: o.user, password: o.password,
    sslmode: o.sslmode, sslrootcert: o.sslrootcert, sslcert: o.sslcert, sslkey: o.sslkey,
    connectionTimeoutMillis: (o.connectTimeoutSeconds ?? 10) * 1000, application_name: `tributary-dq:${o.branch}`,
  });
  client.on('error', () => {});
  await client.connect();
  // the canonical SQL relies on ISO timestamp output (timestamp::text)
  // enable_sort off: the planner cannot estimate the few hundred bucket groups and would
  // sort every row for a GroupAggregate; a HashAggregate over 2^bits groups is what we want
  // Parallel costs lowered: the planner over-estimates the groups and would not split the
  // hashing across workers; the server's max_parallel_workers_per_gather still caps it.
  await client.query(`SET datestyle = 'ISO, YMD'; SET enable_sort = off${o.parallel === false ? '' : '; SET parallel_setup_cost = 100; SET parallel_tuple_cost = 0.0001'}`);
  // bit_xor (Postgres 14+) costs a fraction of sum(bigint)
  const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num);
  let reader: BranchSource | null = null;
  return {
    dialect: 'postgres',
    branch: o.branch,
    digest: version >= 140000 ? 'xor' : 'sum',
    async describe(sql) {
      const r = await client.query(`SELECT * FROM (${sql}) q LIMIT 0`);
      return r.fields.map((f) => {
        const m = pgColumnType(f.dataTypeID, f.dataTypeModifier);
        return { name: canonicalColumn(f.name), sourceName: f.name, type: m.type, sourceType: m.sourceType, inferred: m.inferred, oid: f.dataTypeID };
      });
    },
    side: (q) => pgSide(client, q),
    reader() { return (reader ??= createPostgresSource({ ...o, poolSize: 1 })); },
    async walPosition(slot) {
      const r = await client.query(`SELECT pg_current_wal_lsn()::text AS lsn, (SELECT active FROM pg_replication_slots WHERE slot_name = $1) AS active`, [slot]);
      return { lsn: r.rows[0].lsn, slotActive: r.rows[0].active ?? null };
    },
    // silent: close runs after the branch's checks, whose results are already taken; a connection
    // that fails to close is already gone, and the source has no logger to tell
    async close() { await reader?.close().catch(() => {}); await client.end().catch(() => {}); },
  };
}

/**
 * An Oracle branch (thick mode, 11g+), hashing in SQL (oracle-sql.ts).
 * Not exercised here: there is no Oracle server in this environment.
 */
export async function openOracleDqSource(o: OracleBranchOptions): Promise<DqSource> {
  const { oracledb: db } = loadOracle({ clientLibDir: o.clientLibDir, mode: o.driverMode, logger: o.logger });
  const conn = await db.getConnection({ user: o.user, password: o.password, connectString: oracleConnectString(o) });
  let reader: BranchSource | null = null;
  const rows = async (sql: string) => (await conn.execute<Record<string, unknown>>(sql, [], { outFormat: db.OUT_FORMAT_OBJECT })).rows ?? [];
  const side = (q: HashQuery): DqSide => oracleSide(rows, q);
  return {
    dialect: 'oracle',
    branch: o.branch,
    digest: 'sum',
    async describe(sql) {
      const r = await conn.execute<unknown[]>(`SELECT * FROM (${sql}) q WHERE 1 = 0`, [], { outFormat: db.OUT_FORMAT_ARRAY, maxRows: 1 });
      return (r.metaData ?? []).map((m) => {
        const t = oracleColumnType(m.dbTypeName ?? 'VARCHAR2', m.precision, m.scale);
        return { name: canonicalColumn(m.name), sourceName: m.name, type: t.type, sourceType: t.sourceType, inferred: t.inferred };
      });
    },
    side,
    reader() { return (reader ??= createOracleSource({ ...o, poolSize: 1 })); },
    // silent for the same reason as the Postgres source's close
    async close() { await reader?.close().catch(() => {}); await conn.close().catch(() => {}); },
  };
}
