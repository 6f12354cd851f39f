import type { LakeRead } from './source-sql';

/**
 * The SQL allow-list, over ClickHouse's own parse tree (`EXPLAIN AST`, read by
 * sql-guard.ts). Pure: this file only reads the tree's text and decides.
 *
 * What may be read:
 * - table functions: the lake readers Tributary renders for `source()`
 *   (`icebergLocal` below the warehouse folder, `icebergS3` below the
 *   warehouse URL, with the `tributary_lake_s3` collection or plain), and
 *   generators that read nothing (`numbers`, `zeros`, `values`,
 *   `generateSeries`, `null`). Every other table function — those that read
 *   files, the network, other databases or run programs (`file`, `url`,
 *   `s3`, `remote`, `filesystem`, `oss`, `executable`, `postgresql`, `view`,
 *   `merge`, `dictionary`…) — is refused, whatever its spelling;
 * - tables: those of the models database, `system.one` and `system.numbers`
 *   (and their `_mt` / `zeros` siblings), and the query's own `WITH` names;
 * - scalar functions: allowed by default (there are ~1,500 and they compute on
 *   values), except HOST_SCALARS, the ones that reach outside the query.
 *
 * A blocklist of table functions would miss the next one ClickHouse adds (the
 * old one missed `filesystem`, `oss`, `cosn`, `paimon*`, `eval`); an allow-list
 * fails closed.
 */

/** Generators that read nothing outside the query. Lower case: ClickHouse matches some names case-insensitively. */
export const GENERATOR_TABLE_FUNCTIONS = ['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values', 'generateseries', 'generate_series', 'null'];

/** The lake readers `source()` renders (see source-sql.ts), checked against the warehouse. */
export const LAKE_TABLE_FUNCTIONS = ['iceberglocal', 'icebergs3'];

/** System tables that are generators too. */
export const SYSTEM_TABLES = ['one', 'numbers', 'numbers_mt', 'zeros', 'zeros_mt'];

/**
 * Table functions of ClickHouse 26.7 (chdb 3.x `system.table_functions`) that
 * are not allowed, also refused where they are not in a FROM (e.g. the right
 * side of IN), should ClickHouse ever read them there. Not the defence — the
 * allow-list is — but it names them wherever they appear.
 */
export const KNOWN_TABLE_FUNCTIONS = [
  'arrowstream', 'azureblobstorage', 'azureblobstoragecluster', 'cluster', 'clusterallreplicas', 'cosn', 'deltalake', 'deltalakeazure',
  'deltalakeazurecluster', 'deltalakecluster', 'deltalakelocal', 'deltalakes3', 'deltalakes3cluster', 'dictionary', 'eval', 'executable',
  'file', 'filecluster', 'filesystem', 'fuzzjson', 'gcs', 'generaterandom', 'hdfs', 'hdfscluster', 'hudi', 'hudicluster',
  'iceberg', 'icebergazure', 'icebergazurecluster', 'icebergcluster', 'iceberghdfs', 'iceberghdfscluster', 'iceberglocalcluster', 'icebergs3cluster',
  'input', 'jdbc', 'loop', 'merge', 'mergetreeanalyzeindexes', 'mergetreeanalyzeindexesuuid', 'mergetreeindex', 'mergetreeprojection', 'mergetreetextindex',
  'mongodb', 'mysql', 'odbc', 'oss', 'paimon', 'paimonazure', 'paimonazurecluster', 'paimoncluster', 'paimonhdfs', 'paimonhdfscluster', 'paimonlocal',
  'paimons3', 'paimons3cluster', 'postgresql', 'prometheusquery', 'prometheusqueryrange', 'redis', 'remote', 'remotesecure', 's3', 's3cluster',
  'sqlite', 'sqlstandardvalues', 'timeseriesdata', 'timeseriesmetrics', 'timeseriessamples', 'timeseriesselector', 'timeseriestags',
  'url', 'urlcluster', 'view', 'viewexplain', 'viewifpermitted', 'ytsaurus', 'primes', 'fuzzquery',
];

/**
 * Scalar functions that reach outside the query, from ClickHouse's
 * `system.functions` (26.7), refused:
 * - `file` reads a file of the host;
 * - `dictGet*`, `dictHas`, `dictIsIn` (prefix `dict`) read dictionaries, whose
 *   sources are files, URLs, executables or other databases;
 * - `joinGet`, `joinGetOrNull` read a Join table of any database by name;
 * - `hasColumnInTable` can connect to another host;
 * - `catboostEvaluate` loads a model file through the library bridge;
 *   `naiveBayesClassifier*` load model files named in the server config;
 * - `regionTo*`, `regionIn`, `regionHierarchy` read the geobase files;
 * - `getServerSetting`, `getMergeTreeSetting`, `getSetting`, `getSettingOrDefault`,
 *   `getMacro` read the server's configuration (paths, hosts);
 * - `filesystemAvailable`, `filesystemCapacity`, `filesystemUnreserved` probe the host's disks;
 * - `addressToLine`, `addressToLineWithInlines`, `addressToSymbol`, `demangle` read the binary (introspection);
 * - `getClientHTTPHeader` reads the caller's HTTP headers (credentials on a server target).
 * Functions that only report the server's identity (`hostName`, `version`,
 * `uptime`, `serverUUID`, `tcpPort`) stay allowed: they read nothing a user
 * could turn into access.
 */
export const HOST_SCALARS = [
  'file', 'joinget', 'joingetornull', 'hascolumnintable', 'catboostevaluate',
  'naivebayesclassifier', 'naivebayesclassifierwithallprobs', 'naivebayesclassifierwithprob',
  'getserversetting', 'getmergetreesetting', 'getsetting', 'getsettingordefault', 'getmacro',
  'filesystemavailable', 'filesystemcapacity', 'filesystemunreserved',
  'addresstoline', 'addresstolinewithinlines', 'addresstosymbol', 'demangle', 'getclienthttpheader',
];
const HOST_SCALAR_PREFIX = /^(dict|region(to|in$|hierarchy$))/;

/** Functions whose right side, when a bare name, is a table (`x IN models.t`). */
const IN_FUNCTIONS = /^(global)?(not)?(null)?in(ignoreset)?$/;

export interface AstNode { type: string; name?: string; alias?: string; children: AstNode[] }

/** Where the SQL comes from: the query box refuses SETTINGS too (it runs with its own limits). */
export type SqlUse = 'query' | 'model';

export interface SqlPolicy {
  /** The models database: its tables may be read. */
  database: string;
  /** What the lake readers may read: the warehouse root and this run's sources, as `lakeRead` renders them. */
  lakeRoots: LakeRead[];
  use: SqlUse;
}

/** One row: indent, type, then an optional name, ` (alias x)`, ` (children N)`; taken apart from the end. */
function readRow(row: string): { depth: number; type: string; name?: string; alias?: string; count: number } | null {
  let rest = row;
  let count = 0;
  const c = / \(children (\d+)\)$/.exec(rest);
  if (c) { count = Number(c[1]); rest = rest.slice(0, c.index); }
  const a = / \(alias ([A-Za-z0-9_$-]+)\)$/.exec(rest);
  if (a) rest = rest.slice(0, a.index);
  const m = /^( *)([A-Za-z][A-Za-z0-9_]*(?:::[A-Za-z][A-Za-z0-9_]*)?)(?: (.+))?$/.exec(rest);
  return m ? { depth: m[1].length, type: m[2], name: m[3], alias: a?.[1], count } : null;
}

/**
 * The tree from `EXPLAIN AST` rows (one node per row, one space of indent per
 * level, `(children N)` after a node with children). Throws when the text does
 * not read back as exactly one tree — a name with a line break or brackets in
 * it could otherwise add or hide nodes, so sql-guard refuses such names first.
 */
export function parseAstDump(rows: string[]): AstNode {
  let i = 0;
  const node = (depth: number): AstNode => {
    const row = rows[i];
    const r = row === undefined ? null : readRow(row);
    if (!r || r.depth !== depth) throw new Error(`unreadable parse tree at row ${i + 1}: ${String(row).slice(0, 80)}`);
    i++;
    const n: AstNode = { type: r.type, name: r.name, children: [] };
    if (r.alias) n.alias = r.alias;
    for (let k = 0; k < r.count; k++) n.children.push(node(depth + 1));
    return n;
  };
  const root = node(0);
  if (i !== rows.length) throw new Error(`unreadable parse tree: ${rows.length - i} rows after the root`);
  return root;
}

/** `'…'` as ClickHouse prints a string literal; undefined for anything else (or an escape, which no lake path needs). */
function stringLiteral(n: AstNode | undefined): string | undefined {
  if (!n || n.type !== 'Literal' || !n.name) return undefined;
  const m = /^'([^'\\]*)'$/.exec(n.name);
  return m ? m[1] : undefined;
}

function args(fn: AstNode): AstNode[] {
  const list = fn.children[0];
  return list && list.type === 'ExpressionList' ? list.children : [];
}

const SAFE_TAIL = (rest: string) => !rest.split('/').includes('..') && !/[*?{}[\]\\#\s\0]|%(2e|2f|5c)/i.test(rest);

function lakePathAllowed(p: string, roots: LakeRead[]): boolean {
  return roots.some((r) => {
    if (r.fn !== 'icebergLocal') return false;
    if (!SAFE_TAIL(p)) return false;
    const root = r.path.replace(/\/+$/, '');
    if (root === '.') return !p.startsWith('/');
    return p === root || p.startsWith(root + '/');
  });
}

function lakeUrlAllowed(u: string, roots: LakeRead[], collection?: string): boolean {
  return roots.some((r) => r.fn === 'icebergS3' && (collection === undefined || r.collection === collection) && u.startsWith(r.url) && SAFE_TAIL(u.slice(r.url.length)));
}

/** Why a lake reader call is refused, or null when it reads below the warehouse as source() renders it. */
function lakeCallProblem(fn: AstNode, roots: LakeRead[]): string | null {
  const a = args(fn);
  const name = fn.name!;
  if (name.toLowerCase() === 'iceberglocal') {
    const p = stringLiteral(a[0]);
    if (a.length !== 1 || p === undefined) return `${name}() takes one folder of the lake here`;
    return lakePathAllowed(p, roots) ? null : `${name}('${p}') is not a lake table folder below the warehouse`;
  }
  // icebergS3(<collection>, url = '…') or icebergS3('<url>'[, key, secret])
  if (a[0]?.type === 'Identifier') {
    const collection = a[0].name!;
    const rest = a.slice(1);
    const urls = rest.map((x) => (x.type === 'Function' && x.name === 'equals' && args(x)[0]?.type === 'Identifier' && args(x)[0].name === 'url' ? stringLiteral(args(x)[1]) : undefined));
    if (rest.length !== 1 || urls[0] === undefined) return `${name}(${collection}, …) takes exactly url = '<lake table URL>' here`;
    return lakeUrlAllowed(urls[0], roots, collection) ? null : `${name}(${collection}, url = '${urls[0]}') is not a lake table below the warehouse`;
  }
  const u = stringLiteral(a[0]);
  if (u === undefined || !(a.length === 1 || (a.length === 3 && stringLiteral(a[1]) !== undefined && stringLiteral(a[2]) !== undefined))) return `${name}() takes a lake table URL (and keys) here`;
  return lakeUrlAllowed(u, roots.filter((r) => r.fn === 'icebergS3' && !r.collection)) ? null : `${name}('${u}') is not a lake table below the warehouse`;
}

function tableProblem(ident: string, policy: SqlPolicy, ctes: Set<string>): string | null {
  const dot = ident.indexOf('.');
  if (dot < 0) return ctes.has(ident) ? null : `table ${ident} (name the table with its database: ${policy.database}.${ident})`;
  const db = ident.slice(0, dot); const t = ident.slice(dot + 1);
  if (db === policy.database) return null;
  if (db === 'system' && SYSTEM_TABLES.includes(t)) return null;
  return `table ${ident}`;
}

/**
 * Every refusal in the tree (empty: allowed). `ctes` are the names the query
 * defines in WITH, which it may read unqualified.
 */
export function astRefusals(root: AstNode, policy: SqlPolicy, ctes: Set<string>): string[] {
  const out: string[] = [];
  const add = (s: string) => { if (!out.includes(s)) out.push(s); };
  if (root.type !== 'SelectWithUnionQuery') return [`${root.type.replace(/Query$/, '')} statements (only SELECT)`];
  // `x IN name` may name an alias (`WITH [1, 2] AS name`) as well as a table
  const aliases = new Set<string>();
  const collect = (n: AstNode) => { if (n.alias) aliases.add(n.alias); n.children.forEach(collect); };
  collect(root);
  // a second or third child of the root is INTO OUTFILE '…', FORMAT or SETTINGS
  for (const c of root.children.slice(1)) add(c.type === 'Literal' ? 'INTO OUTFILE' : c.type === 'Set' ? 'SETTINGS' : 'FORMAT');
  const walk = (n: AstNode, parent: AstNode | undefined) => {
    if (n.type === 'Set' && policy.use === 'query') add('SETTINGS (the query box runs with its own limits)');
    // the tree does not show what APPLY calls: refused rather than trusted
    if (n.type === 'ColumnsApplyTransformer') add('APPLY (write the function call per column)');
    if (n.type === 'TableIdentifier' && n.name) { const p = tableProblem(n.name, policy, ctes); if (p) add(p); }
    if (n.type === 'Function' && n.name) {
      const lower = n.name.toLowerCase();
      if (parent?.type === 'TableExpression') {
        if (LAKE_TABLE_FUNCTIONS.includes(lower)) { const p = lakeCallProblem(n, policy.lakeRoots); if (p) add(p); }
        else if (!GENERATOR_TABLE_FUNCTIONS.includes(lower)) add(`table function ${n.name}()`);
      } else if (HOST_SCALARS.includes(lower) || HOST_SCALAR_PREFIX.test(lower)) add(`function ${n.name}()`);
      else if (KNOWN_TABLE_FUNCTIONS.includes(lower) || LAKE_TABLE_FUNCTIONS.includes(lower)) add(`table function ${n.name}()`);
      if (IN_FUNCTIONS.test(lower)) {
        const right = args(n)[1];
        if (right?.type === 'Identifier' && right.name && !aliases.has(right.name)) { const p = tableProblem(right.name, policy, ctes); if (p) add(p); }
      }
    }
    for (const c of n.children) walk(c, n);
  };
  walk(root, undefined);
  return out;
}

/**
 * Problems with the quoted names of ClickHouse's re-formatted query
 * (`formatQuerySingleLine`: strings in '…', names that need it in `…`, no
 * comments): a quoted name may hold letters, digits, `_`, `$` and `-` only,
 * so every name prints as one word of the parse tree.
 */
export function quotedNameProblem(formatted: string): string | null {
  for (let i = 0; i < formatted.length; i++) {
    const c = formatted[i];
    if (c === "'") { i++; while (i < formatted.length && formatted[i] !== "'") i += formatted[i] === '\\' ? 2 : 1; continue; }
    if (c === '"') return 'a "quoted" name';
    if (c === '`') {
      let j = i + 1; let s = '';
      while (j < formatted.length && formatted[j] !== '`') { s += formatted[j]; j += formatted[j] === '\\' ? 2 : 1; }
      if (!/^[A-Za-z0-9_$-]+$/.test(s)) return `the name \`${s.slice(0, 40)}\` (quoted names may hold letters, digits, _, $ and - only)`;
      i = j;
    }
  }
  return null;
}

/**
 * Second look, on the text: every `name(` call in the re-formatted query (its
 * strings blanked) whose name is refused anywhere — a host-reaching scalar or
 * a table function that is not allowed — whatever the tree showed. A node
 * whose printout hides its arguments cannot then hide such a call. Lake
 * readers are counted: more calls in the text than checked nodes in the tree
 * is a refusal too.
 */
export function textCallRefusals(formatted: string, tree: AstNode): string[] {
  const bare = formatted.replace(/'(?:[^'\\]|\\.)*'/g, "''");
  const out: string[] = [];
  const lakeInText = new Map<string, number>();
  for (const m of bare.matchAll(/(?<![A-Za-z0-9_$.`])(?:`([A-Za-z0-9_$-]+)`|([A-Za-z_][A-Za-z0-9_]*))\s*\(/g)) {
    const name = m[1] ?? m[2];
    const lower = name.toLowerCase();
    if (HOST_SCALARS.includes(lower) || HOST_SCALAR_PREFIX.test(lower)) out.push(`function ${name}()`);
    else if (KNOWN_TABLE_FUNCTIONS.includes(lower)) out.push(`table function ${name}()`);
    else if (LAKE_TABLE_FUNCTIONS.includes(lower)) lakeInText.set(lower, (lakeInText.get(lower) ?? 0) + 1);
  }
  const inTree = new Map<string, number>();
  const count = (n: AstNode) => { if (n.type === 'Function' && n.name && LAKE_TABLE_FUNCTIONS.includes(n.name.toLowerCase())) inTree.set(n.name.toLowerCase(), (inTree.get(n.name.toLowerCase()) ?? 0) + 1); n.children.forEach(count); };
  count(tree);
  for (const [name, k] of lakeInText) if (k > (inTree.get(name) ?? 0)) out.push(`${name}() where the parse tree does not show it`);
  return [...new Set(out)];
}

/** The names a re-formatted query defines with `WITH name AS (…)`. */
export function cteNames(formatted: string): string[] {
  const bare = formatted.replace(/'(?:[^'\\]|\\.)*'/g, "''");
  const out: string[] = [];
  for (const m of bare.matchAll(/(?:\bWITH(?:\s+RECURSIVE)?\s+|,\s*)(?:`([A-Za-z0-9_$-]+)`|([A-Za-z_][A-Za-z0-9_]*))\s+AS\s+\(/gi)) out.push(m[1] ?? m[2]);
  return out;
}

/** How many WITH … AS (subquery) elements the tree holds (to check cteNames found them all). */
export function countWithElements(n: AstNode): number {
  return (n.type === 'WithElement' ? 1 : 0) + n.children.reduce((s, c) => s + countWithElements(c), 0);
}
