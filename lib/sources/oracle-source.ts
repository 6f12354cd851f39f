import type * as arrow from 'apache-arrow';
import { createRequire } from 'node:module';
import { SlotPool } from './backoff';
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
}

// node-oracledb ships no type declarations: the few members used here.
interface OraResultSet { getRows(n: number): Promise<unknown[][]>; close(): Promise<void> }
interface OraMeta { name: string; dbTypeName?: string; precision?: number; scale?: number; dbType?: unknown }
interface OraConnection {
  execute(sql: string, binds: unknown[], opts: Record<string, unknown>): Promise<{ rows?: unknown[][]; metaData?: OraMeta[]; resultSet?: OraResultSet }>;
  close(): Promise<void>;
}
interface OraPool { getConnection(): Promise<OraConnection>; close(drainTime?: number): Promise<void> }
interface OracleDb {
  initOracleClient(opts: { libDir?: string }): void;
  createPool(opts: Record<string, unknown>): Promise<OraPool>;
  OUT_FORMAT_ARRAY: number; STRING: number; BUFFER: number;
  DB_TYPE_NUMBER: unknown; DB_TYPE_CLOB: unknown; DB_TYPE_NCLOB: unknown; DB_TYPE_BLOB: unknown;
}
let oracledbMod: OracleDb | null = null;
let thickInit = false;

/**
 * Load node-oracledb and switch it to thick mode once per process: Oracle
 * 11g servers only speak to the thick client (thin needs 12.1+).
 */
export function loadOracleThick(clientLibDir?: string): OracleDb {
  if (!oracledbMod) oracledbMod = createRequire(import.meta.url)('oracledb') as OracleDb;
  if (!thickInit) {
    oracledbMod.initOracleClient(clientLibDir ? { libDir: clientLibDir } : {});
    thickInit = true;
  }
  return oracledbMod;
}

/**
 * An Oracle branch over node-oracledb thick mode: array fetches of
 * `fetchArraySize` rows, NUMBER fetched as text (no float rounding of large
 * ids), LOBs fetched inline as string/buffer (no round trip per LOB).
 */
export function createOracleSource(o: OracleBranchOptions): BranchSource {
  const size = o.poolSize ?? 4;
  const slots = new SlotPool(size);
  let poolP: Promise<OraPool> | null = null;
  const getPool = () => {
    if (!poolP) {
      const db = loadOracleThick(o.clientLibDir);
      poolP = db.createPool({ user: o.user, password: o.password, connectString: oracleConnectString(o), poolMin: 0, poolMax: size, poolIncrement: 1 });
    }
    return poolP;
  };

  async function withConn<T>(signal: AbortSignal | undefined, fn: (c: OraConnection, db: OracleDb) => Promise<T>): Promise<T> {
    const release = await slots.acquire(signal);
    let conn: OraConnection | null = null;
    try {
      conn = await (await getPool()).getConnection();
      return await fn(conn, oracledbMod!);
    } finally {
      await conn?.close().catch(() => {});
      release();
    }
  }

  function fetchTypeHandler(db: OracleDb) {
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
        const r = await c.execute(`SELECT * FROM (${q.sql}) q WHERE 1 = 0`, bindValues(q), { outFormat: db.OUT_FORMAT_ARRAY, maxRows: 1 });
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
        const r = await c.execute(p.sql, bindValues(p), { outFormat: db.OUT_FORMAT_ARRAY });
        const row = (r.rows?.[0] ?? []) as unknown[];
        return Object.fromEntries(columns.map((col, i) => [col, { intDigits: Number(row[2 * i] ?? 0), scale: Number(row[2 * i + 1] ?? 0) }]));
      });
    },
    read(q, columns, target, opts) { return readRows(q, columns, target, opts); },
    async close() { if (poolP) await (await poolP).close(0).catch(() => {}); },
  };

  async function* readRows(q: RenderedQuery, columns: SourceColumn[], target: ReadTarget, opts: { batchSize: number; signal?: AbortSignal; stats: ReadStats }): AsyncGenerator<arrow.RecordBatch> {
    const release = await slots.acquire(opts.signal);
    let conn: OraConnection | null = null;
    try {
      conn = await (await getPool()).getConnection();
      const db = oracledbMod!;
      const r = await conn.execute(q.sql, bindValues(q), {
        resultSet: true, outFormat: db.OUT_FORMAT_ARRAY, fetchArraySize: opts.batchSize, prefetchRows: opts.batchSize + 1,
        fetchTypeHandler: fetchTypeHandler(db) as never,
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
      } finally { await rs.close().catch(() => {}); }
      if (asm.buffered > 0) yield asm.flush();
    } finally {
      await conn?.close().catch(() => {});
      release();
    }
  }
}
