import { AppError } from '../errors';
import { astRefusals, countWithElements, cteNames, parseAstDump, quotedNameProblem, textCallRefusals, type AstNode, type SqlPolicy, type SqlUse } from './sql-allow-list';
import type { ModelConfig } from './types';
import { lakeRead, lit, type LakeAccess, type LakeRead } from './source-sql';
import type { Target } from './target';

/** Every refusal's message starts with this (the query route answers it as a 400). */
export const SQL_REFUSED = 'models: refused by the SQL allow-list';

const WHAT_IS_ALLOWED = 'SQL here reads tables of the models database, system.one/system.numbers, the lake through source() (icebergLocal/icebergS3 below the warehouse), and numbers/zeros/values/generateSeries/null';

// A query box body is capped at 100,000 characters; escaped, it stays below this.
const PARSE_SETTINGS = 'SETTINGS max_query_size = 1048576, max_parser_depth = 1000';

/** What the lake readers may read: the warehouse root, and any lake table locations this run resolved. */
export function lakeRoots(access: LakeAccess, locations: string[]): LakeRead[] {
  const out: LakeRead[] = [];
  for (const l of locations) { try { out.push(lakeRead(l, access)); } catch { /* unreadable here: nothing allowed there */ } }
  return out;
}

/**
 * Check SQL against the allow-list with the target's own ClickHouse parser:
 * `formatQuerySingleLine` (one statement, names re-quoted by ClickHouse), then
 * `EXPLAIN AST` (the tree, walked by astRefusals). Neither runs the query
 * nor touches a table function: both only parse. Throws a validation
 * AppError (field `sql`) naming every refused function and table.
 */
export async function checkSql(target: Pick<Target, 'query' | 'explainAst'>, sql: string, policy: SqlPolicy, signal?: AbortSignal): Promise<AstNode> {
  const refuse = (what: string) => new AppError('validation', `${SQL_REFUSED}: ${what}. ${WHAT_IS_ALLOWED}`, { field: 'sql' });
  const text = sql.replace(/[\s;]+$/, '');
  if (!text.trim()) throw new AppError('validation', 'models: the query is empty', { field: 'sql' });
  if (text.includes('\0')) throw refuse('a NUL byte');
  const parsed = async <T>(run: () => Promise<T>) => {
    try { return await run(); } catch (e) {
      if (e instanceof AppError && e.code !== 'validation') throw e; // an unreachable server stays transient
      throw new AppError('validation', (e as Error).message.replace(/\s*: In scope SELECT formatQuerySingleLine[\s\S]*$/, ''), { field: 'sql', cause: e });
    }
  };
  const f = await parsed(() => target.query(`SELECT formatQuerySingleLine(${lit(text)}) AS q ${PARSE_SETTINGS}`, signal));
  const formatted = String(f.rows[0]?.q ?? '');
  const nameProblem = quotedNameProblem(formatted);
  if (nameProblem) throw refuse(nameProblem);
  const rows = await parsed(() => target.explainAst(text, signal));
  const first = /^[A-Za-z]+/.exec(rows[0] ?? '')?.[0] ?? 'unknown';
  if (first !== 'SelectWithUnionQuery') throw refuse(`${first.replace(/Query$/, '') || 'this'} statements (only one SELECT runs here)`);
  if (rows.some((r) => /[\r\n]/.test(r))) throw refuse('a name with a line break');
  let tree;
  try { tree = parseAstDump(rows); } catch (e) { throw refuse(`a query whose parse tree could not be read back (${(e as Error).message})`); }
  const names = cteNames(formatted);
  // The tree does not print WITH names; when the text's count differs, trust none (unqualified names are then refused).
  const ctes = new Set(names.length === countWithElements(tree) ? names : []);
  const refusals = [...new Set([...astRefusals(tree, policy, ctes), ...textCallRefusals(formatted, tree)])];
  if (refusals.length) throw refuse(refusals.join('; '));
  return tree;
}

/** Engines a model may be materialised with: in-database ones (File, URL, S3, MySQL… engines would reach the host or the network). */
const MODEL_ENGINE = /^\s*((Replacing|Summing|Aggregating|Collapsing|VersionedCollapsing|Coalescing)?MergeTree|Memory|Log|TinyLog|StripeLog|Null)\s*(\(\s*([A-Za-z_][A-Za-z0-9_]*|`[A-Za-z0-9_$-]+`)?(\s*,\s*([A-Za-z_][A-Za-z0-9_]*|`[A-Za-z0-9_$-]+`))*\s*\))?\s*$/;

/**
 * A model's config lands in its DDL (`ENGINE = …`, `ORDER BY …`, `PARTITION BY …`,
 * the incremental key): the engine must be an in-database one, and each
 * expression must parse alone as one expression (no FROM, SETTINGS or a
 * bracket closing early) that passes the allow-list.
 */
export async function checkModelConfig(target: Pick<Target, 'query' | 'explainAst'>, name: string, c: ModelConfig, policy: SqlPolicy, signal?: AbortSignal): Promise<void> {
  if (c.materialized === 'view') return;
  if (c.engine !== undefined && !MODEL_ENGINE.test(c.engine)) throw new AppError('validation', `${SQL_REFUSED}: model ${name}: engine ${c.engine.slice(0, 60)} (allowed: the MergeTree family, Memory, Log, TinyLog, StripeLog, Null, with column names as arguments)`, { field: 'engine' });
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  for (const [field, v] of [['order_by', list(c.order_by)], ['partition_by', list(c.partition_by)], ['unique_key', list(c.unique_key)]] as const) {
    for (const expr of v) {
      if (/;|--|\/\*|#/.test(expr)) throw new AppError('validation', `${SQL_REFUSED}: model ${name}: ${field} ${expr.slice(0, 60)} (comments and ; are not allowed)`, { field });
      const tree = await checkSql(target, `SELECT ${expr}`, policy, signal);
      const select = tree.children[0]?.children[0];
      if (tree.children.length !== 1 || tree.children[0].children.length !== 1 || select?.type !== 'SelectQuery' || select.children.length !== 1) {
        throw new AppError('validation', `${SQL_REFUSED}: model ${name}: ${field} ${expr.slice(0, 60)} is not one expression`, { field });
      }
    }
  }
}

export type { SqlPolicy, SqlUse };
