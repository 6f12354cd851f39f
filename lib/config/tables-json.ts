import fs from 'node:fs/promises';
import { z } from 'zod';
import { isIdentifier, isQualifiedName, snakeCase } from './identifiers';
import { BRANCH_ID } from './lake-columns';
import { DEFAULT_NAMING, NAMINGS, type Naming } from './naming';
import type { QuerySpec } from './query-spec';
import { checkSubquery, isSubquery } from './subquery';
import { AppError } from '../errors';
import { parseFreshnessAlerts, parseFreshnessBlock, type FreshnessAlerts, type FreshnessExpectation } from './freshness';

/**
 * tables.json — the table definitions in seed 000's format. Validated at load
 * with errors naming the entry and the field.
 *
 * Lake table names are deterministic lower snake case: a plain table's name
 * without its owner (`OASIS.APPOINTMENTS` → `appointments`), a subquery
 * entry's `name` in snake form (`VisitsEnriched` → `visits_enriched`).
 *
 * Validation is pure (`parseTablesConfig`); only `loadTablesConfig`
 * touches the file system (read, JSON.parse, then the pure check).
 */
export const WHERE_OPERATORS = ['=', '>', '>=', '<', '<=', '<>', '!='] as const;

const ident = z.string().refine(isIdentifier, { message: 'must be an identifier of [A-Za-z0-9_$#]' });

const HelperSchema = z.strictObject({
  table: z.string().refine(isQualifiedName, { message: 'must be OWNER.TABLE of [A-Za-z0-9_$#]' }),
  join: z.array(z.tuple([ident, ident]), { message: 'must be a list of [child_column, helper_column] pairs' }).min(1, { message: 'needs at least one [child_column, helper_column] pair' }),
  cdc_column: ident,
  where_date_column: ident.nullish(),
});

export const TableEntrySchema = z.strictObject({
  table: z.string().min(1),
  name: z.string().min(1).optional(),
  /** Required, except on a subquery entry, which without it is refreshed whole at every run (a replace of its branches' rows). */
  unique_key: z.union([ident, z.array(ident).min(1)]).optional(),
  cdc_column: ident.nullish(),
  where_date_column: ident.nullish(),
  where_operator: z.enum(WHERE_OPERATORS, { message: `must be one of ${WHERE_OPERATORS.join(' ')}` }).nullish(),
  where_value_of_initial_run: z.union([z.string(), z.number()]).nullish(),
  category: z.enum(['masters', 'transactions']).optional(),
  helper: HelperSchema.nullish(),
  // --- duplicate keys (issue 21) ---
  /**
   * Rows of one extract sharing a unique_key: `fail` fails the unit naming the keys (nothing is
   * committed for it); `latest` keeps the row with the greatest CDC column, as dlt's and PeerDB's
   * dedup do, and the run reports how many it dropped. (Default: fail)
   */
  dedupe: z.enum(['fail', 'latest'], { message: 'must be fail or latest' }).optional(),
  // How source deletes reach the lake (issue 21): `ignore` (Default) leaves deleted keys in the lake;
  // `detect` compares the branch's key set after each INCREMENTAL unit and deletes the missing keys in
  // the unit's merge commit, or with `soft_delete: true` stamps them in `_deleted_at` instead.
  deletes: z.enum(['ignore', 'detect'], { message: 'must be ignore or detect' }).optional(),
  soft_delete: z.boolean({ message: 'must be true or false' }).optional(),
  // issue 21 (types and keys): how source column names become lake column names (lib/config/naming.ts)
  naming: z.enum(NAMINGS, { message: `must be one of ${NAMINGS.join(' ')}` }).optional(),
  // issue 24: `{ "warn_after": "2h", "error_after": "6h" }` (or dbt's {count, period}); null switches off
  // the file's default. Checked by parseFreshnessBlock (lib/config/freshness.ts) for messages naming the field.
  freshness: z.unknown().optional(),
});

export type TableEntry = z.infer<typeof TableEntrySchema>;

/** A validated table definition, ready for planning. */
export interface TableDef {
  /** Lake table name (lower snake case), also the control tables' table_name (with the run's namespace). */
  lakeName: string;
  /** The entry's `table` text (OWNER.TABLE or the subquery). */
  source: string;
  /** Empty only for a subquery entry without unique_key: refreshed whole at every run. */
  uniqueKey: string[];
  category: 'masters' | 'transactions';
  spec: QuerySpec;
  /** Source deletes on INCREMENTAL: `ignore` or `detect` (hard, or soft into `_deleted_at`). (Default: ignore) */
  deletes: { mode: 'ignore' | 'detect'; soft: boolean };
  entry: TableEntry;
  /** Column naming convention: the entry's `naming`, else the file's top-level `naming`. (Default: preserve) */
  naming: Naming;
  /**
   * The entry's own freshness expectation: undefined when it says nothing (the models project's
   * schema.yml, then the file's top-level `freshness`, apply), null when it switches freshness off.
   */
  freshness?: FreshnessExpectation | null;
}

/** tables.json's file-wide settings of the object form (issue 24). */
export interface TablesSettings {
  /** Top-level `freshness`: the expectation of every lake table that sets none. (Default: none) */
  freshness: FreshnessExpectation | null;
  /** Top-level `freshness_alerts`: recipients and smtp connection of breach alerts. (Default: no alerts) */
  freshnessAlerts: FreshnessAlerts | null;
}

/** The file-wide settings of parsed tables.json content; throws TablesConfigError naming the field. */
export function parseTablesSettings(raw: unknown, file = 'tables.json'): TablesSettings {
  if (Array.isArray(raw) || !raw || typeof raw !== 'object') return { freshness: null, freshnessAlerts: null };
  const o = raw as Record<string, unknown>;
  const f = o.freshness === undefined ? { value: null, problems: [] } : parseFreshnessBlock(o.freshness, 'freshness');
  const a = parseFreshnessAlerts(o.freshness_alerts);
  const problems = [...f.problems, ...a.problems];
  if (problems.length) throw new TablesConfigError(problems.map((p) => `${file}: ${p}`).join('\n'));
  return { freshness: f.value, freshnessAlerts: a.value };
}

/** tables.json content that cannot be used: a validation error (exit 2, HTTP 400) listing every problem. */
export class TablesConfigError extends AppError {
  constructor(message: string) { super('validation', message); this.name = 'TablesConfigError'; }
}

function label(raw: unknown, i: number): string {
  const e = raw as { name?: unknown; table?: unknown } | null;
  const what = typeof e?.name === 'string' ? e.name : typeof e?.table === 'string' ? (e.table.length > 40 ? `${e.table.slice(0, 37)}...` : e.table) : '?';
  return `entry ${i} (${what})`;
}

/** Validate parsed tables.json content; throws TablesConfigError listing every problem. */
export function parseTablesConfig(raw: unknown, file = 'tables.json'): TableDef[] {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' && Array.isArray((raw as { tables?: unknown }).tables) ? (raw as { tables: unknown[] }).tables : null;
  if (!list) throw new TablesConfigError(`${file}: expected a JSON array of table entries`);
  // `{ "naming": "preserve", "tables": [...] }` sets the default convention of every entry
  const topNaming = Array.isArray(raw) ? undefined : (raw as { naming?: unknown }).naming;
  if (topNaming !== undefined && !(NAMINGS as readonly unknown[]).includes(topNaming)) throw new TablesConfigError(`${file}: field naming: must be one of ${NAMINGS.join(' ')}`);
  const fileNaming = (topNaming as Naming | undefined) ?? DEFAULT_NAMING;
  const problems: string[] = [];
  try { parseTablesSettings(raw, file); } catch (e) { problems.push(...(e as Error).message.split('\n')); }
  const defs: TableDef[] = [];
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    const where = `${file}: ${label(item, i)}`;
    const r = TableEntrySchema.safeParse(item);
    if (!r.success) {
      for (const iss of r.error.issues) {
        if (iss.code === 'unrecognized_keys') problems.push(`${where}: unknown field ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}`);
        else problems.push(`${where}: field ${iss.path.join('.') || '(entry)'}: ${iss.message}`);
      }
      return;
    }
    const e = r.data;
    const local: string[] = [];
    const sub = isSubquery(e.table);
    if (sub) {
      const why = checkSubquery(e.table);
      if (why) local.push(`field table: ${why}`);
      if (!e.name) local.push('field name: a subquery entry needs a name (its lake table name)');
    } else {
      if (!isQualifiedName(e.table)) {
        local.push(`field table: must be OWNER.TABLE of [A-Za-z0-9_$#] or a parenthesised subquery${e.table.includes('"') ? ' (a table whose name needs quotes is read through a subquery entry: "table": "(SELECT * FROM shop.\\"MixedCase\\")", "name": "mixed_case")' : ''}`);
      }
      if (e.name !== undefined) local.push('field name: only allowed on subquery entries (a plain table derives its name from OWNER.TABLE)');
    }
    if (e.name !== undefined && !/^[A-Za-z0-9_ -]+$/.test(e.name)) local.push('field name: letters, digits, "_", "-" and spaces only');
    const dateCol = e.helper ? e.helper.where_date_column : e.where_date_column;
    if (e.where_operator && (e.where_value_of_initial_run === null || e.where_value_of_initial_run === undefined)) local.push('field where_value_of_initial_run: required with where_operator');
    if (e.where_value_of_initial_run !== null && e.where_value_of_initial_run !== undefined && !e.where_operator) local.push('field where_operator: required with where_value_of_initial_run');
    if (e.where_operator && !dateCol) local.push(`field where_operator: needs a date column (${e.helper ? 'helper.where_date_column' : 'where_date_column'})`);
    if (typeof e.where_value_of_initial_run === 'string' && !/^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$|^-?\d+(\.\d+)?$/.test(e.where_value_of_initial_run.trim())) {
      local.push('field where_value_of_initial_run: must be a date (YYYY-MM-DD[ HH:MM:SS]) or a number');
    }
    if (e.soft_delete && e.deletes !== 'detect') local.push('field soft_delete: needs deletes: "detect" (deletes are ignored otherwise)');
    if (e.helper && (e.cdc_column || e.where_date_column)) local.push('field helper: a helper-driven entry leaves its own cdc_column / where_date_column null');
    const uniqueKey = e.unique_key === undefined ? [] : Array.isArray(e.unique_key) ? e.unique_key : [e.unique_key];
    if (!uniqueKey.length && !sub) local.push('field unique_key: required (only a subquery entry may leave it out, and is then refreshed whole at every run)');
    if (e.dedupe === 'latest' && !uniqueKey.length) local.push('field dedupe: needs a unique_key (duplicates are rows sharing it)');
    if (e.deletes === 'detect' && !uniqueKey.length) local.push('field deletes: detect needs a unique_key (a deleted row is a key the source no longer has)');
    if (e.dedupe === 'latest' && !(e.helper ? e.helper.cdc_column : e.cdc_column)) local.push(`field dedupe: latest needs a CDC column (${e.helper ? 'helper.cdc_column' : 'cdc_column'}): the newest row is the one with its greatest value`);
    if (uniqueKey.some((k) => k.toUpperCase() === BRANCH_ID)) local.push(`field unique_key: ${BRANCH_ID} is added to the key by Tributary`);
    const fresh = e.freshness === undefined ? { value: undefined, problems: [] } : parseFreshnessBlock(e.freshness, 'freshness');
    local.push(...fresh.problems);
    const lakeName = sub ? snakeCase(e.name ?? '') : snakeCase(e.table.split('.').pop() ?? '');
    if (!local.length && !lakeName) local.push('field name: gives an empty lake table name');
    if (local.length) { problems.push(...local.map((m) => `${where}: ${m}`)); return; }
    if (seen.has(lakeName)) { problems.push(`${where}: duplicate lake table name "${lakeName}" (also entry ${seen.get(lakeName)})`); return; }
    seen.set(lakeName, i);
    const category = e.category ?? (dateCol || e.helper ? 'transactions' : 'masters');
    defs.push({
      lakeName, source: e.table, uniqueKey: uniqueKey.map((k) => k.toUpperCase()), category, entry: e, naming: e.naming ?? fileNaming,
      ...(fresh.value === undefined ? {} : { freshness: fresh.value }),
      deletes: { mode: e.deletes ?? 'ignore', soft: !!e.soft_delete },
      spec: {
        source: sub ? { kind: 'subquery', sql: e.table } : { kind: 'table', name: e.table },
        cdcColumn: e.cdc_column ?? null,
        dateColumn: e.where_date_column ?? null,
        initial: e.where_operator ? { operator: e.where_operator, value: e.where_value_of_initial_run! } : null,
        helper: e.helper ? { table: e.helper.table, join: e.helper.join as [string, string][], cdcColumn: e.helper.cdc_column, dateColumn: e.helper.where_date_column ?? null } : null,
      },
    });
  });
  if (problems.length) throw new TablesConfigError(problems.join('\n'));
  return defs;
}

/** Where JSON.parse failed, as `line L, column C`, without quoting the text. */
export function jsonErrorPosition(e: unknown, text: string): string {
  const m = /position (\d+)/.exec((e as Error).message ?? '');
  if (!m) return 'syntax error';
  const pos = Number(m[1]);
  const before = text.slice(0, pos).split('\n');
  return `syntax error at line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

/** Read and validate a tables.json file. */
export async function loadTablesConfig(file: string): Promise<TableDef[]> {
  let text: string;
  try { text = await fs.readFile(file, 'utf8'); } catch (e) { throw new TablesConfigError(`${file}: cannot read (${(e as Error).message})`); }
  let raw: unknown;
  // The parser's message quotes the text around the error: report the position only,
  // so a file that is not tables.json (a key, a password file) never leaks through an error.
  try { raw = JSON.parse(text); } catch (e) { throw new TablesConfigError(`${file}: not valid JSON (${jsonErrorPosition(e, text)})`); }
  return parseTablesConfig(raw, file);
}
