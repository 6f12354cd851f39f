import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { EmulatorApp, EmulatorFaults, EmulatorStats } from './tql-interpreter';
import { prop } from '../run/tql-parse';

/**
 * The Striim emulator's copier: what a started DatabaseReader →
 * DatabaseWriter application does. It REALLY copies: runs the source `Query`
 * against the Postgres its (resolved) connection properties name and inserts
 * into the target table in the writer's BatchPolicy EventCount, ignoring
 * primary-key conflicts when IgnorableExceptionCode holds DUPLICATE_ROW_EXISTS.
 * The application's status is the interpreter's business, not this file's.
 */
/** `jdbc:postgresql://h:p/db?x` + user + password → a node-postgres URL. */
export function jdbcToPgUrl(jdbc: string, user?: string, password?: string): string {
  const m = /^jdbc:postgresql:\/\/([^/?]+)\/([^?;]+)/i.exec(jdbc.trim());
  if (!m) throw new Error(`unsupported ConnectionURL '${jdbc}' (the emulator reads and writes PostgreSQL only)`);
  const auth = user ? `${encodeURIComponent(user)}${password ? ':' + encodeURIComponent(password) : ''}@` : '';
  return `postgres://${auth}${m[1]}/${m[2]}`;
}

/** A Postgres URL → the three property-variable values Striim would hold. */
export function pgUrlToPropertyVariables(url: string, prefix: 'Source' | 'Target'): Record<string, string> {
  const u = new URL(url);
  return {
    [`admin.${prefix}ConnectionString`]: `jdbc:postgresql://${u.host}${u.pathname}`,
    [`admin.${prefix}Username`]: decodeURIComponent(u.username),
    [`admin.${prefix}Password`]: decodeURIComponent(u.password),
  };
}

// Values arrive as text and go back as text: the target casts them to its own column types.
const textTypes = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

export interface CopyContext {
  /** `$Name` property variables → their value in the app's namespace. */
  resolveVar(v: string | undefined, ns: string): string | undefined;
  faults: EmulatorFaults;
  stats: EmulatorStats;
}

/** A copier: resolves when the read is exhausted (or aborted), rejects when the app dies. */
export type Copier = (app: EmulatorApp, signal: AbortSignal, ctx: CopyContext) => Promise<void>;

export const copyWithPostgres: Copier = async (app, signal, ctx) => {
  const { resolveVar, faults, stats } = ctx;
  const t0 = Date.now();
  const src = app.source!;
  const tgt = app.target!;
  const ns = app.namespace;
  const srcUrl = jdbcToPgUrl(resolveVar(prop(src, 'ConnectionURL'), ns) ?? '', resolveVar(prop(src, 'Username'), ns), resolveVar(prop(src, 'Password'), ns));
  const tgtUrl = jdbcToPgUrl(resolveVar(prop(tgt, 'ConnectionURL'), ns) ?? '', resolveVar(prop(tgt, 'Username'), ns), resolveVar(prop(tgt, 'Password'), ns));
  const query = prop(src, 'Query');
  if (!query) throw new Error('DatabaseReader: Query is empty');
  const tables = (prop(tgt, 'Tables') ?? '').split(',').map((s) => s.trim());
  const table = tables[0]?.toUpperCase() === 'QUERY' ? tables[1] : tables[0];
  if (!table || !/^[\w$#]+(\.[\w$#]+){0,2}$/.test(table)) throw new Error(`DatabaseWriter: bad Tables '${prop(tgt, 'Tables')}'`);
  const m = /EventCount\s*:\s*(\d+)/i.exec(prop(tgt, 'BatchPolicy') ?? '');
  const batch = Math.max(1, m ? Number(m[1]) : 100);
  const fetchSize = Math.max(batch, Number(prop(src, 'FetchSize') ?? 100) || 100, 1000);
  const ignoreDup = /DUPLICATE_ROW_EXISTS/i.test(prop(tgt, 'IgnorableExceptionCode') ?? '');
  // dieHalfwayTimes counts down like http503 (unset = 1).
  const dies = !!faults.dieHalfway?.test(app.fullName) && (faults.dieHalfwayTimes ?? 1) > 0;
  if (dies) faults.dieHalfwayTimes = (faults.dieHalfwayTimes ?? 1) - 1;

  const s = new pg.Client({ connectionString: srcUrl, types: textTypes, application_name: `striim-emulator ${app.fullName}` });
  const t = new pg.Client({ connectionString: tgtUrl, application_name: `striim-emulator ${app.fullName}` });
  await s.connect();
  try {
    await t.connect();
    try {
      let total = Infinity;
      if (dies) total = Number((await s.query(`select count(*)::bigint as n from (${query}) q`)).rows[0].n);
      await s.query('begin isolation level repeatable read read only');
      await s.query(`declare emu_c no scroll cursor for ${query}`);
      let cols: string[] | null = null;
      for (;;) {
        if (signal.aborted) return;
        const r = await s.query(`fetch ${fetchSize} from emu_c`);
        if (!cols) cols = r.fields.map((f) => f.name);
        if (r.rows.length === 0) break;
        app.rowsRead += r.rows.length;
        for (let off = 0; off < r.rows.length; off += batch) {
          if (signal.aborted) return;
          const rows = r.rows.slice(off, off + batch);
          const params: unknown[] = [];
          const values = rows.map((row) => `(${cols!.map((c) => { params.push(row[c]); return `$${params.length}`; }).join(',')})`);
          const colList = cols.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
          try {
            await t.query(`insert into ${table} (${colList}) values ${values.join(',')}${ignoreDup ? ' on conflict do nothing' : ''}`, params);
          } catch (e) {
            const code = (e as { code?: string }).code;
            throw new Error(code === '23505' ? `DUPLICATE_ROW_EXISTS: ${(e as Error).message}` : `DatabaseWriter: ${(e as Error).message}`);
          }
          stats.batches++;
          stats.rowsWritten += rows.length;
          app.rowsWritten += rows.length;
          app.lastActivity = Date.now();
          if (dies && app.rowsWritten >= total / 2) throw new Error('DatabaseReader: connection reset by peer (injected fault: died half-way)');
          if (faults.batchDelayMs) await sleep(faults.batchDelayMs);
        }
      }
      await s.query('commit');
    } finally { await t.end().catch(() => { /* the copy's outcome is already decided; a failed close changes nothing */ }); }
  } finally {
    await s.end().catch(() => { /* as above */ });
    stats.copyMs += Date.now() - t0;
    app.copyMs += Date.now() - t0;
  }
};
