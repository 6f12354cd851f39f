import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/pg';

/**
 * schema.prisma and the migrated database must agree: every scalar field of
 * every model is a column of a compatible type and nullability. Prisma never
 * migrates here (SQL files do), so this is what catches a model edited
 * without its migration, or the reverse.
 */
const SCHEMA_DIR = path.resolve(import.meta.dirname, '../../prisma/schema');
const COMPATIBLE: Record<string, string[]> = {
  String: ['text', 'character varying', 'uuid', 'character'],
  Int: ['integer', 'smallint'],
  BigInt: ['bigint'],
  Boolean: ['boolean'],
  DateTime: ['timestamp with time zone', 'timestamp without time zone', 'date'],
  Json: ['jsonb', 'json'],
  Float: ['double precision', 'real'],
  Decimal: ['numeric'],
  Bytes: ['bytea'],
};

interface Field { model: string; schema: string; table: string; column: string; type: string; optional: boolean; list: boolean; dbType?: string }

function parseModels(): Field[] {
  const text = fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.prisma')).map((f) => fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')).join('\n');
  const models = [...text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)];
  const modelNames = new Set(models.map((m) => m[1]));
  const enums = new Set([...text.matchAll(/^enum\s+(\w+)/gm)].map((m) => m[1]));
  const out: Field[] = [];
  for (const [, model, body] of models) {
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? model;
    const schema = /@@schema\("([^"]+)"\)/.exec(body)?.[1] ?? 'public';
    for (const line of body.split('\n')) {
      const m = /^\s*(\w+)\s+(\w+)(\?|\[\])?(.*)$/.exec(line);
      if (!m || line.trim().startsWith('//') || line.trim().startsWith('@@')) continue;
      const [, name, type, mod, rest] = m;
      if (modelNames.has(type) || /@relation/.test(rest)) continue; // relation fields are not columns
      out.push({
        model, schema, table, type: enums.has(type) ? 'String' : type,
        column: /@map\("([^"]+)"\)/.exec(rest)?.[1] ?? name,
        optional: mod === '?', list: mod === '[]', dbType: /@db\.(\w+)/.exec(rest)?.[1],
      });
    }
  }
  return out;
}

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db.drop(); });

describe('schema.prisma vs migrations', () => {
  it('every model field is a column of a compatible type', async () => {
    const fields = parseModels();
    expect(fields.length).toBeGreaterThan(10);
    const cols = await db.pool.query(
      `select table_schema, table_name, column_name, data_type, is_nullable from information_schema.columns
        where table_schema in ('public', 'etl_meta')`);
    const byKey = new Map(cols.rows.map((c) => [`${c.table_schema}.${c.table_name}.${c.column_name}`, c]));
    const problems: string[] = [];
    for (const f of fields) {
      const c = byKey.get(`${f.schema}.${f.table}.${f.column}`);
      const where = `${f.model}.${f.column} (${f.schema}.${f.table})`;
      if (!c) { problems.push(`${where}: no such column`); continue; }
      const want = f.list ? ['ARRAY'] : COMPATIBLE[f.type];
      if (!want) { problems.push(`${where}: unknown Prisma type ${f.type}`); continue; }
      if (!want.includes(c.data_type)) problems.push(`${where}: ${f.type} vs column type ${c.data_type}`);
      if (f.dbType === 'Uuid' && c.data_type !== 'uuid') problems.push(`${where}: @db.Uuid vs ${c.data_type}`);
      if (!f.optional && !f.list && c.is_nullable === 'YES') problems.push(`${where}: required in Prisma but nullable in the database`);
    }
    expect(problems).toEqual([]);
  });
});
