import crypto from 'node:crypto';
import { AppError } from '../errors';
import { quoteIdent, relationName } from './project';
import { clickhouseType, declaredType, inferType, parseCsv, seedColumnName, type SeedTable } from './seed-csv';
import { lit } from './source-sql';
import type { Target } from './target';
import type { SeedNode } from './types';

/** Values per INSERT statement: keeps each statement well below ClickHouse's max_query_size (256 KiB). */
const BATCH_BYTES = 128 * 1024;

/** The columns a seed's table gets: name as stored, ClickHouse type, from column_types or inferred. */
export function seedColumns(s: SeedNode, t: SeedTable = parseCsv(s.csv, s.path, s.config.delimiter)): { source: string; name: string; type: string }[] {
  const declared = new Map(Object.entries(s.config.column_types));
  for (const k of declared.keys()) if (!t.columns.includes(k)) throw new AppError('validation', `models: seed ${s.name}: column_types names ${k}, which is no column of ${s.path} (columns: ${t.columns.join(', ')})`, { field: 'column_types' });
  return t.columns.map((c, k) => ({
    source: c, name: seedColumnName(c, s.config.quote_columns),
    type: declared.has(c) ? declaredType(declared.get(c)!, `seed ${s.name}.${c}`) : clickhouseType(inferType(t.rows.map((r) => r[k]))),
  }));
}

/**
 * Load a seed as dbt does (drop and re-create, every run): its rows go into a
 * side table built from strings — each value cast to its column's type by
 * ClickHouse, so a value that does not fit fails naming the seed — which is
 * then swapped in the way table models are. Returns the rows loaded.
 */
export async function loadSeed(target: Target, s: SeedNode, o: { signal?: AbortSignal; onStatement?(sql: string): void; swap(tmp: string, name: string): Promise<void> }): Promise<{ rows: number; sql: string }> {
  const table = parseCsv(s.csv, s.path, s.config.delimiter);
  const cols = seedColumns(s, table);
  const names = new Set<string>();
  for (const c of cols) { if (names.has(c.name)) throw new AppError('validation', `models: seed ${s.name}: two columns are named ${c.name} once quote_columns: false folds them to lower case`); names.add(c.name); }
  const db = target.database;
  const tmp = `${s.name}__seed_${crypto.randomBytes(4).toString('hex')}`;
  const run = async (sql: string) => { o.onStatement?.(sql); await target.command(sql, o.signal); };
  const ddl = `CREATE TABLE ${relationName(db, tmp)} (${cols.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')}) ENGINE = MergeTree() ORDER BY tuple()`;
  await run(`CREATE DATABASE IF NOT EXISTS ${quoteIdent(db)}`);
  try {
    await run(ddl);
    const structure = cols.map((_, k) => `c${k} Nullable(String)`).join(', ');
    const select = cols.map((c, k) => `CAST(c${k} AS ${c.type})`).join(', ');
    let batch: string[] = []; let bytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      try {
        await target.command(`INSERT INTO ${relationName(db, tmp)} SELECT ${select} FROM values(${lit(structure)}, ${batch.join(', ')})`, o.signal);
      } catch (e) { throw new AppError('validation', `models: seed ${s.name} (${s.path}): ${(e as Error).message.replace(/^models: /, '')}`, { cause: e }); }
      batch = []; bytes = 0;
    };
    for (const r of table.rows) {
      const tuple = `(${r.map((v) => (v === null ? 'NULL' : lit(v))).join(', ')})`;
      batch.push(tuple); bytes += tuple.length;
      if (bytes >= BATCH_BYTES) await flush();
    }
    await flush();
    // ClickHouse casts a string that does not parse as a Nullable type to NULL without a word;
    // PostgreSQL (and dbt) refuse it. More NULLs in a column than the CSV has is that case.
    if (table.rows.length && cols.length) {
      const got = (await target.query(`SELECT ${cols.map((c, k) => `countIf(isNull(${quoteIdent(c.name)})) AS n${k}`).join(', ')} FROM ${relationName(db, tmp)}`, o.signal)).rows[0] ?? {};
      cols.forEach((c, k) => {
        const inCsv = table.rows.filter((r) => r[k] === null).length;
        const lost = Number(got[`n${k}`] ?? 0) - inCsv;
        if (lost > 0) {
          const sample = table.rows.map((r) => r[k]).find((v) => v !== null);
          throw new AppError('validation', `models: seed ${s.name} (${s.path}): ${lost} value(s) of column ${c.source} do not fit its type ${c.type}${sample !== undefined ? ` (values such as ${JSON.stringify(sample)})` : ''}; fix the CSV or its column_types`, { field: 'column_types' });
        }
      });
    }
    await o.swap(tmp, s.name);
  } finally {
    await target.command(`DROP TABLE IF EXISTS ${relationName(db, tmp)} SYNC`).catch(() => {}); // a failure here must not hide the load's own error
  }
  return { rows: table.rows.length, sql: ddl.replace(relationName(db, tmp), relationName(db, s.name)) };
}
