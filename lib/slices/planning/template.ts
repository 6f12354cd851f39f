import { lexSql, nameParts, significant, type Token } from './sql-lexer';
import { fieldOf, planningError, validateAlias, type FieldStyle } from './validate';

/** The placeholder a template carries where each slice's predicate goes. */
export const SPLIT_TOKEN = '~SPLIT~';

/** A validated query template bound to its driving table. */
export interface QueryTemplate {
  /** The template text (trailing `;` removed). */
  sql: string;
  /** The driving table, OWNER.TABLE as given. */
  table: string;
  /** Qualifier for predicates: the driving table's alias, or its bare name when it has none. */
  alias: string;
  /** True when the template itself aliases the driving table. */
  aliasInTemplate: boolean;
  /** Text range of the driving table's name in `sql` (for partition / AS OF rewrites). */
  ref: { start: number; end: number };
  /** Positions of every `~SPLIT~` (outside strings and comments); empty → the predicate is appended. */
  splitAt: number[];
}

const NOT_ALIAS = new Set([
  'WHERE', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'NATURAL', 'ON', 'USING', 'GROUP', 'ORDER',
  'HAVING', 'UNION', 'MINUS', 'INTERSECT', 'EXCEPT', 'LIMIT', 'FETCH', 'OFFSET', 'PARTITION', 'SUBPARTITION', 'SAMPLE',
  'TABLESAMPLE', 'AS', 'CONNECT', 'START', 'MODEL', 'FOR', 'WINDOW', 'LATERAL', 'SELECT', 'FROM', 'VERSIONS', 'PIVOT',
  'UNPIVOT', 'WITH', 'RETURNING', 'APPLY',
]);
const CLAUSE_END = new Set(['GROUP', 'ORDER', 'HAVING', 'LIMIT', 'FETCH', 'OFFSET', 'UNION', 'INTERSECT', 'EXCEPT', 'MINUS', 'FOR', 'WINDOW']);

const upper = (t: Token | undefined) => (t && t.type === 'name' ? t.text.toUpperCase() : '');

/**
 * Validate a template and locate its driving table.
 * @param opts.alias the driving table's alias (Default: detected from the template)
 */
export function parseTemplate(raw: string, opts: { table: string; alias?: string; style?: FieldStyle }): QueryTemplate {
  const style = opts.style ?? 'flag';
  const n = (f: string) => fieldOf(style, f);
  let sql = raw.trim();
  if (sql === '') throw planningError(style, `query is empty: pass ${n('queryFile')} FILE or ${n('query')} SQL`, 'query');
  let tokens = lexSql(sql);
  // A trailing `;` would break the probe's row-cap wrapper and every queryfile line.
  const lastSig = significant(tokens).at(-1);
  if (lastSig?.text === ';') { sql = sql.slice(0, lastSig.start).trimEnd(); tokens = lexSql(sql); }

  const pipes = tokens.filter((t, i) => t.text === '|' && tokens[i - 1]?.text !== '|' && tokens[i + 1]?.text !== '|');
  if (pipes.length > 0) {
    const tail = sql.slice(pipes[0].start).split('\n')[0].trim();
    throw planningError(style,
      `query template must not carry a |TARGET suffix (found '${tail}'): remove it and pass the target with split ${n('target')} OWNER.TABLE — the query|target format belongs to the generated queryfile, and a stray |TARGET leaks into every slice's SQL`,
      'query',
    );
  }

  const splitAt: number[] = [];
  for (let at = sql.indexOf(SPLIT_TOKEN); at >= 0; at = sql.indexOf(SPLIT_TOKEN, at + 1)) {
    const inside = tokens.find((t) => (t.type === 'string' || t.type === 'comment') && t.start <= at && at < t.end);
    if (!inside) splitAt.push(at);
  }

  const want = nameParts(opts.table);
  const sig = significant(tokens);
  const refs: { tok: Token; alias?: string }[] = [];
  for (let i = 0; i < sig.length; i++) {
    const t = sig[i];
    if (t.type !== 'name') continue;
    const prev = upper(sig[i - 1]) || sig[i - 1]?.text;
    if (!(prev === 'FROM' || prev === 'JOIN' || prev === ',')) continue;
    const parts = nameParts(t.text);
    const matches = parts.length === 2 ? parts[0] === want[0] && parts[1] === want[1] : parts.length === 1 && parts[0] === want[1];
    if (!matches) continue;
    let j = i + 1;
    if (upper(sig[j]) === 'AS') j++;
    const a = sig[j];
    const alias = a && a.type === 'name' && !a.text.includes('.') && !NOT_ALIAS.has(a.text.toUpperCase()) ? a.text : undefined;
    refs.push({ tok: t, alias });
  }
  if (refs.length === 0) throw planningError(style, `table ${opts.table} not found after FROM/JOIN in the query template`, 'table');

  let chosen = refs[0];
  if (opts.alias !== undefined) {
    const alias = validateAlias(opts.alias, style);
    const hit = refs.find((r) => r.alias?.toUpperCase() === alias.toUpperCase());
    if (!hit) throw planningError(style, `alias '${alias}' is not the alias of ${opts.table} in the query template`, 'alias');
    chosen = hit;
  } else {
    chosen = refs.find((r) => r.alias) ?? refs[0];
  }
  const bare = chosen.tok.text.split('.').at(-1)!;
  return {
    sql,
    table: opts.table,
    alias: chosen.alias ?? bare,
    aliasInTemplate: chosen.alias !== undefined,
    ref: { start: chosen.tok.start, end: chosen.tok.end },
    splitAt,
  };
}

/** What one slice changes in the template. */
export interface SliceEdit {
  /** Predicate replacing `~SPLIT~` (or appended). */
  predicate: string;
  /** Replacement text for the driving table's name (partition, AS OF SCN); the alias is kept or added. */
  tableRef?: string;
}

/** Render one slice's SQL from the template (multi-line as written; see flattenSql). */
export function renderSlice(t: QueryTemplate, edit: SliceEdit): string {
  const edits: { start: number; end: number; text: string }[] = [];
  if (edit.tableRef !== undefined) {
    // With no alias in the template, keep the bare name usable as a qualifier.
    edits.push({ start: t.ref.start, end: t.ref.end, text: t.aliasInTemplate ? edit.tableRef : `${edit.tableRef} ${t.alias}` });
  }
  if (t.splitAt.length > 0) {
    for (const at of t.splitAt) edits.push({ start: at, end: at + SPLIT_TOKEN.length, text: edit.predicate });
  } else {
    edits.push(...appendPredicate(t.sql, edit.predicate));
  }
  edits.sort((a, b) => b.start - a.start);
  let out = t.sql;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** No marker: `WHERE (cond) AND pred`, or `WHERE pred`, before any top-level GROUP/ORDER/… clause. */
function appendPredicate(sql: string, predicate: string): { start: number; end: number; text: string }[] {
  const sig = significant(lexSql(sql));
  const from = sig.findIndex((t) => t.depth === 0 && upper(t) === 'FROM');
  let where = -1;
  let endAt = sql.length;
  for (let i = Math.max(from, 0) + 1; i < sig.length; i++) {
    const t = sig[i];
    if (t.depth !== 0) continue;
    const u = upper(t);
    if (u === 'WHERE' && where < 0) where = i;
    else if (CLAUSE_END.has(u) || t.text === ';') { endAt = t.start; break; }
  }
  const endTrim = sql.slice(0, endAt).trimEnd().length;
  if (where >= 0) {
    const condStart = sig[where + 1]?.start ?? sig[where].end;
    return [
      { start: condStart, end: condStart, text: '(' },
      { start: endTrim, end: endTrim, text: `) AND ${predicate}` },
    ];
  }
  return [{ start: endTrim, end: endTrim, text: ` WHERE ${predicate}` }];
}

/**
 * One line per slice in the queryfile: whitespace runs become one space,
 * `-- comments` become block comments (they would swallow the rest of the
 * line). A newline inside a string literal cannot be flattened safely.
 */
export function flattenSql(sql: string, style: FieldStyle = 'flag'): string {
  let out = '';
  for (const t of lexSql(sql)) {
    if (t.type === 'ws') out += ' ';
    else if (t.type === 'comment' && t.text.startsWith('--')) out += `/* ${t.text.slice(2).trim().replace(/\*\//g, '* /')} */`;
    else if (t.type === 'comment') out += t.text.replace(/\s*\r?\n\s*/g, ' ');
    else if (t.type === 'string' && /[\r\n]/.test(t.text)) {
      throw planningError(style, 'query template has a line break inside a string literal; a queryfile line must hold the whole query on one line', 'query');
    } else out += t.text;
  }
  return out.trim();
}
