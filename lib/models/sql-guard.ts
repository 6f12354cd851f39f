import { AppError } from '../errors';
import { astRefusals, countWithElements, cteNames, parseAstDump, quotedNameProblem, type SqlPolicy, type SqlUse } from './sql-allow-list';
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
export async function checkSql(target: Pick<Target, 'query'>, sql: string, policy: SqlPolicy, signal?: AbortSignal): Promise<void> {
  const refuse = (what: string) => new AppError('validation', `${SQL_REFUSED}: ${what}. ${WHAT_IS_ALLOWED}`, { field: 'sql' });
  const text = sql.replace(/[\s;]+$/, '');
  if (!text.trim()) throw new AppError('validation', 'models: the query is empty', { field: 'sql' });
  if (text.includes('\0')) throw refuse('a NUL byte');
  const parsed = async (q: string) => {
    try { return await target.query(q, signal); } catch (e) {
      if (e instanceof AppError && e.code !== 'validation') throw e; // an unreachable server stays transient
      throw new AppError('validation', (e as Error).message.replace(/\s*: In scope SELECT formatQuerySingleLine[\s\S]*$/, ''), { field: 'sql', cause: e });
    }
  };
  const f = await parsed(`SELECT formatQuerySingleLine(${lit(text)}) AS q ${PARSE_SETTINGS}`);
  const formatted = String(f.rows[0]?.q ?? '');
  const nameProblem = quotedNameProblem(formatted);
  if (nameProblem) throw refuse(nameProblem);
  const rows = (await parsed(`EXPLAIN AST ${text}`)).rows.map((r) => String(r.explain ?? Object.values(r)[0] ?? ''));
  const first = /^[A-Za-z]+/.exec(rows[0] ?? '')?.[0] ?? 'unknown';
  if (first !== 'SelectWithUnionQuery') throw refuse(`${first.replace(/Query$/, '') || 'this'} statements (only one SELECT runs here)`);
  if (rows.some((r) => /[\r\n]/.test(r))) throw refuse('a name with a line break');
  let tree;
  try { tree = parseAstDump(rows); } catch (e) { throw refuse(`a query whose parse tree could not be read back (${(e as Error).message})`); }
  const names = cteNames(formatted);
  // The tree does not print WITH names; when the text's count differs, trust none (unqualified names are then refused).
  const ctes = new Set(names.length === countWithElements(tree) ? names : []);
  const refusals = astRefusals(tree, policy, ctes);
  if (refusals.length) throw refuse(refusals.join('; '));
}

export type { SqlPolicy, SqlUse };
