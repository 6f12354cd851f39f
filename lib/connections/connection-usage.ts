import type pg from 'pg';

/** A pipeline or flow whose spec names a connection. */
export interface ConnectionUser { kind: 'pipeline' | 'flow'; name: string }

// The tables that may name connections in their JSON specs, and the columns that are not spec
// (a pipeline named like the connection does not use it; tags and mail recipients are no references).
const USERS: { kind: ConnectionUser['kind']; table: string }[] = [
  { kind: 'pipeline', table: 'pipelines' },
  { kind: 'flow', table: 'flows' },
];
const NOT_SPEC = ['id', 'name', 'description', 'tags', 'alert_recipients', 'created_by', 'created_at', 'updated_at', 'schedule_cursor'];

/**
 * Pipelines and flows whose spec mentions the connection — by name, or by its
 * branch key (what `branch: [...]` lists hold) — as a string at any depth of
 * a JSON column (params, nodes) or as the value of a `*connection*` column
 * (`smtp_connection`); plain settings such as a cron text or `skip` are not read. The tables belong to the flows engine and may not exist in this
 * database yet: each is queried only when `to_regclass` finds it.
 */
export async function connectionUsers(db: pg.Pool | pg.PoolClient, names: string[]): Promise<ConnectionUser[]> {
  const wanted = [...new Set(names.filter(Boolean))];
  if (!wanted.length) return [];
  const out: ConnectionUser[] = [];
  for (const u of USERS) {
    const exists = (await db.query('select to_regclass($1) is not null as ok', [`public.${u.table}`])).rows[0].ok;
    if (!exists) continue;
    const r = await db.query(
      `select t.name from public.${u.table} t
        where exists (select 1 from jsonb_each(to_jsonb(t) - $2::text[]) c(k, v)
                       where (jsonb_typeof(c.v) in ('object', 'array') or c.k like '%connection%')
                         and exists (select 1 from jsonb_path_query(c.v, 'strict $.**') x
                                      where jsonb_typeof(x) = 'string' and x #>> '{}' = any($1::text[])))
        order by t.name`, [wanted, NOT_SPEC]);
    for (const row of r.rows) out.push({ kind: u.kind, name: String(row.name) });
  }
  return out;
}
