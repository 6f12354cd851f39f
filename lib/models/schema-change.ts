import { AppError } from '../errors';
import { quoteIdent as q } from './project';
import type { OnSchemaChange } from './types';

/** A column as system.columns gives it. */
export interface Column { name: string; type: string }

/** What an incremental run does to the table's columns, and which columns it inserts. */
export interface SchemaChange {
  /** ALTER TABLE actions for the table built aside, in order (DROP, ADD, MODIFY, as dbt-clickhouse runs them). */
  alter: string[];
  /** Columns the new rows are inserted into (the INSERT's column list). */
  insert: string[];
  /** Columns of the old rows that are kept (the old rows' INSERT column list). */
  keep: string[];
  /** One line saying what changed and what was done; undefined when nothing changed. */
  note?: string;
}

/**
 * dbt's `on_schema_change` for an incremental model, comparing the table's
 * columns (`have`) with the new rows' (`got`) by name (order does not count,
 * inserts name their columns):
 *
 * - `ignore` (dbt's default): nothing changes; the new rows are inserted into
 *   the table's columns, so a new column is left out, and a column the model
 *   no longer has makes the insert fail, as in dbt.
 * - `fail`: any added, removed or retyped column fails the run.
 * - `append_new_columns`: new columns are added (old rows get the type's
 *   default, NULL when Nullable); columns the model no longer has are kept
 *   (new rows get the default there); types are kept (values are converted
 *   on insert), as dbt documents it.
 * - `sync_all_columns`: new columns added, removed ones dropped, and a
 *   changed type is changed in the table (`MODIFY COLUMN`, existing values
 *   converted by ClickHouse), as dbt-clickhouse does.
 *
 * Pure; throws the run's error for `fail` and for `ignore` with a removed column.
 */
export function planSchemaChange(model: string, have: Column[], got: Column[], mode: OnSchemaChange): SchemaChange {
  const h = new Map(have.map((c) => [c.name, c.type])); const g = new Map(got.map((c) => [c.name, c.type]));
  const added = got.filter((c) => !h.has(c.name));
  const removed = have.filter((c) => !g.has(c.name));
  const retyped = got.filter((c) => h.has(c.name) && h.get(c.name) !== c.type).map((c) => ({ name: c.name, from: h.get(c.name)!, to: c.type }));
  const parts = [...added.map((c) => `added ${c.name} ${c.type}`), ...removed.map((c) => `removed ${c.name}`), ...retyped.map((c) => `${c.name} ${c.from} → ${c.to}`)];
  const changed = parts.join('; ');
  const all = have.map((c) => c.name);
  if (!parts.length) return { alter: [], insert: all, keep: all };
  switch (mode) {
    case 'fail':
      throw new AppError('validation', `models: ${model}: the incremental model's columns changed (${changed}); rerun with --full-refresh to rebuild it, or set on_schema_change to append_new_columns or sync_all_columns (it is fail)`);
    case 'ignore':
      if (removed.length) {
        throw new AppError('validation', `models: ${model}: the table's column${removed.length > 1 ? 's' : ''} ${removed.map((c) => c.name).join(', ')} ${removed.length > 1 ? 'are' : 'is'} not among the model's columns, so the insert fails (on_schema_change is ignore: new rows go into the table's columns); set on_schema_change to append_new_columns or sync_all_columns, or rerun with --full-refresh`);
      }
      return { alter: [], insert: all.filter((n) => g.has(n)), keep: all, note: `on_schema_change ignore: ${changed} (the table's columns kept; new columns left out${retyped.length ? ', values converted to the table\'s types' : ''})` };
    case 'append_new_columns':
      return {
        alter: added.map((c) => `ADD COLUMN ${q(c.name)} ${c.type}`), insert: got.map((c) => c.name), keep: all,
        note: `on_schema_change append_new_columns: ${changed} (new columns added${removed.length ? ', removed ones kept' : ''}${retyped.length ? ', types kept and values converted' : ''})`,
      };
    case 'sync_all_columns':
      return {
        alter: [...removed.map((c) => `DROP COLUMN ${q(c.name)}`), ...added.map((c) => `ADD COLUMN ${q(c.name)} ${c.type}`), ...retyped.map((c) => `MODIFY COLUMN ${q(c.name)} ${c.to}`)],
        insert: got.map((c) => c.name), keep: all.filter((n) => g.has(n)),
        note: `on_schema_change sync_all_columns: ${changed}${retyped.length ? ' (a changed type is changed in the table and its values converted, as dbt-clickhouse\'s MODIFY COLUMN does)' : ''}`,
      };
  }
}
