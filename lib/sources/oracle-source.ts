import type * as arrow from 'apache-arrow';
import type { Logger } from '../log';
import { SlotPool } from '../concurrency';
import { loadOracle, type OracleConnection, type OracleDriver, type OraclePool } from './oracle-driver';
import { canonicalColumn } from './identifiers';
import { oracleColumnType } from './oracle-types';
import { oracleConnectString, type OracleDsnParams } from './oracle-config';
import { bindValues, renderNumericProfile } from './render';
import { RowAssembler } from './row-assembler';
import type { BranchSource, ReadStats, ReadTarget, RenderedQuery, SourceColumn } from './types';

export interface OracleBranchOptions extends OracleDsnParams {
  branch: string;
  user: string;
  password: string;
  /** Connections this branch may hold. (Default: 4) */
  poolSize?: number;
  /** Instant Client dir for thick mode (already resolved), or undefined for the system path. */
  clientLibDir?: string;
  /** Driver mode (see loadOracle). (Default: auto — thick when a client dir is given, else thick if it loads, else thin) */
  driverMode?: 'auto' | 'thick' | 'thin';
  logger?: Logger;
}

/**
 * An Oracle branch over node-oracledb (thick mode for 11g): array fetches of
 * `fetchArraySize` rows, NUMBER fetched as text (no float rounding of large
 * ids), LOBs fetched inline as string/buffer (no round trip per LOB).
 */
export function createOracleSource(o: OracleBranchOptions): BranchSource {
  const size = o.poolSize ?? 4;
  const slots = new SlotPool(size);
  let poolP: Promise<OraclePool> | null = null;
  let db: OracleDriver | null = null;
  const getPool = () => {
    if (!poolP) {
      db = loadOracle({ clientLibDir: o.clientLibDir, mode: o.driverMode, logger: o.logger }).oracledb;
      poolP = db.createPool({ user: o.user, password: o.password, connectString: oracleConnectString(o), poolMin: 0, poolMax: size, poolIncrement: 1 });
    }
    return poolP;
  };

  async function withConn<T>(signal: AbortSignal | undefined, fn: (c: OracleConnection, db: OracleDriver) => Promise<T>): Promise<T> {
    const release = await slots.acquire(signal);
    let conn: OracleConnection | null = null;
    try {
      conn = await (await getPool()).getConnection();
      return await fn(conn, db!);
    } finally {
      await conn?.close().catch(() => {}); // closing: a failing close changes nothing the caller can act on
      release();
    }
  }

  function fetchTypeHandler(db: OracleDriver) {
    return (meta: { dbType?: unknown }) => {
      if (meta.dbType === db.DB_TYPE_NUMBER) return { type: db.STRING };
      if (meta.dbType === db.DB_TYPE_CLOB || meta.dbType === db.DB_TYPE_NCLOB) return { type: db.STRING };
      if (meta.dbType === db.DB_TYPE_BLOB) return { type: db.BUFFER };
      return undefined;
    };
  }

  return {
    dialect: 'oracle',
    branch: o.branch,
    async describe(q, signal) {
      return withConn(signal, async (c, db) => {
        const r = await c.execute<unknown[]>(`SELECT * FROM (${q.sql}) q WHERE 1 = 0`, bindValues(q), { outFormat: db.OUT_FORMAT_ARRAY, maxRows: 1 });
        return (r.metaData ?? []).map((m) => {
          const t = oracleColumnType(m.dbTypeName ?? 'VARCHAR2', m.precision, m.scale);
          return { name: canonicalColumn(m.name), sourceName: m.name, type: t.type, sourceType: t.sourceType, inferred: t.inferred } satisfies SourceColumn;
        });
      });
    },
    async profileNumeric(q, columns, signal) {
      if (!columns.length) return {};
      return withConn(signal, async (c, db) => {
        const p = renderNumericProfile(q, 'oracle', columns);
        const r = await c.execute<unknown[]>(p.sql, bindValues(p), { outFormat: db.OUT_FORMAT_ARRAY });
        const row = (r.rows?.[0] ?? []) as unknown[];
        return Object.fromEntries(columns.map((col, i) => [col, { intDigits: Number(row[2 * i] ?? 0), scale: Number(row[2 * i + 1] ?? 0) }]));
      });
    },
    read(q, columns, target, opts) { return readRows(q, columns, target, opts); },
    async textQuery(sql, signal) {
      return withConn(signal, async (c, db) => {
        const r = await c.execute<Record<string, unknown>>(sql, [], { outFormat: db.OUT_FORMAT_OBJECT, fetchTypeHandler: fetchTypeHandler(db) as never });
        return (r.rows ?? []).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null || v === undefined ? null : String(v)])));
      });
    },
    async close() { if (poolP) await (await poolP).close(0).catch(() => {}); }, // closing: a failing close changes nothing the caller can act on
  };

  async function* readRows(q: RenderedQuery, columns: SourceColumn[], target: ReadTarget, opts: { batchSize: number; signal?: AbortSignal; stats: ReadStats }): AsyncGenerator<arrow.RecordBatch> {
    const release = await slots.acquire(opts.signal);
    let conn: OracleConnection | null = null;
    try {
      const pool = await getPool();
      conn = await pool.getConnection();
      const r = await conn.execute<unknown[]>(q.sql, bindValues(q), {
        resultSet: true, outFormat: db!.OUT_FORMAT_ARRAY, fetchArraySize: opts.batchSize, prefetchRows: opts.batchSize + 1,
        fetchTypeHandler: fetchTypeHandler(db!) as never,
      });
      const rs = r.resultSet!;
      const asm = new RowAssembler(columns, target, opts.batchSize, opts.stats);
      try {
        for (;;) {
          opts.signal?.throwIfAborted();
          const rows = await rs.getRows(opts.batchSize);
          if (!rows.length) break;
          for (const row of rows) {
            const b = asm.add(row as unknown[]);
            if (b) yield b;
          }
        }
      } finally { await rs.close().catch(() => {}); } // a read-only cursor: closing or ending it cannot change what was read
      if (asm.buffered > 0) yield asm.flush();
    } finally {
      await conn?.close().catch(() => {}); // closing: a failing close changes nothing the caller can act on
      release();
    }
  }
}
