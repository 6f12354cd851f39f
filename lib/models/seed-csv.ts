import { AppError } from '../errors';

/**
 * A seed's CSV, read as dbt reads it (agate): RFC 4180 fields (quotes,
 * doubled quotes, line breaks inside quotes), the first row is the header,
 * an empty field or `null` is NULL, and each column's type is the first of
 * integer, float, date, timestamp, boolean, text that fits every non-null
 * value (dbt's type tester order). Pure: no I/O.
 */

export type SeedType = 'integer' | 'float' | 'date' | 'timestamp' | 'boolean' | 'text';

export interface SeedTable {
  columns: string[];
  /** Values as written; null for an empty field or `null`. */
  rows: (string | null)[][];
}

/** Parse CSV text with one delimiter character. (Default delimiter: ,) */
export function parseCsv(text: string, file: string, delimiter = ','): SeedTable {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') throw new AppError('validation', `models: ${file}: delimiter must be one character other than a quote or a line break, got ${JSON.stringify(delimiter)}`, { field: 'delimiter' });
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: string[][] = [];
  let row: string[] = []; let field = ''; let quoted = false; let inQuotes = false; let line = 1; let i = 0;
  const endField = () => { row.push(quoted || field !== '' ? field : ''); field = ''; quoted = false; };
  while (i < src.length) {
    const c = src[i];
    if (inQuotes) {
      if (c === '"') { if (src[i + 1] === '"') { field += '"'; i += 2; continue; } inQuotes = false; i++; continue; }
      if (c === '\n') line++;
      field += c; i++; continue;
    }
    if (c === '"' && field === '' && !quoted) { inQuotes = true; quoted = true; i++; continue; }
    if (c === delimiter) { endField(); i++; continue; }
    if (c === '\r' || c === '\n') {
      endField(); records.push(row); row = [];
      if (c === '\r' && src[i + 1] === '\n') i++;
      i++; line++; continue;
    }
    field += c; i++;
  }
  if (inQuotes) throw new AppError('validation', `models: ${file}: a quoted field is never closed (line ${line})`);
  if (field !== '' || quoted || row.length) { endField(); records.push(row); }
  const nonEmpty = records.filter((r) => !(r.length === 1 && r[0] === ''));
  if (!nonEmpty.length) throw new AppError('validation', `models: ${file}: a seed needs a header row`);
  const columns = nonEmpty[0].map((c) => c.trim());
  columns.forEach((c, k) => {
    if (!c) throw new AppError('validation', `models: ${file}: column ${k + 1} of the header has no name`);
    if (columns.indexOf(c) !== k) throw new AppError('validation', `models: ${file}: column ${c} appears twice in the header`);
  });
  const rows = nonEmpty.slice(1).map((r, n) => {
    if (r.length !== columns.length) throw new AppError('validation', `models: ${file}: row ${n + 2} has ${r.length} fields, the header ${columns.length}`);
    return r.map((v) => (v === '' || v.toLowerCase() === 'null' ? null : v));
  });
  return { columns, rows };
}

const INTEGER = /^[-+]?\d+$/;
const FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// dbt's DateTime ('%Y-%m-%d %H:%M:%S') and ISODateTime (T separator, fractions, Z/offset)
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

function validDate(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

const FITS: [SeedType, (v: string) => boolean][] = [
  // agate's Integer: no decimals; beyond Int64 it is a float
  ['integer', (v) => INTEGER.test(v) && BigInt(v) <= 9223372036854775807n && BigInt(v) >= -9223372036854775808n],
  ['float', (v) => FLOAT.test(v)],
  ['date', (v) => DATE.test(v) && validDate(v)],
  ['timestamp', (v) => TIMESTAMP.test(v) && validDate(v)],
  ['boolean', (v) => /^(true|false)$/i.test(v)],
  ['text', () => true],
];

/** The first type of dbt's order that fits every non-null value; a column of only nulls is text. */
export function inferType(values: (string | null)[]): SeedType {
  const present = values.filter((v): v is string => v !== null);
  for (const [type, fits] of FITS) if (present.length && present.every(fits)) return type;
  return 'text';
}

/**
 * ClickHouse type of an inferred seed column, always Nullable (a seed column
 * is a PostgreSQL column: it may hold NULL). Floats are Float64 (dbt-postgres
 * says numeric), timestamps DateTime64(6, 'UTC') so a CSV's wall-clock time
 * is stored as written whatever the machine's time zone, dates Date32 (years
 * 1900–2299, where Date stops at 2149).
 */
export function clickhouseType(t: SeedType): string {
  switch (t) {
    case 'integer': return 'Nullable(Int64)';
    case 'float': return 'Nullable(Float64)';
    case 'date': return 'Nullable(Date32)';
    case 'timestamp': return "Nullable(DateTime64(6, 'UTC'))";
    case 'boolean': return 'Nullable(Bool)';
    case 'text': return 'Nullable(String)';
  }
}

/**
 * A `column_types` entry as a column type: ClickHouse's own (`Int32`,
 * `Decimal(10, 2)`) or the SQL spellings ClickHouse also reads (`varchar(20)`,
 * `integer`, `numeric(10,2)`, `date`, `timestamp`), wrapped in Nullable unless
 * it already says how NULL is stored. Only type-shaped text passes: it lands
 * in DDL.
 */
export function declaredType(t: string, where: string): string {
  const s = t.trim();
  // SQL's multi-word type names (double precision, character varying, timestamp with time zone…) take only these words
  const shape = /^[A-Za-z][A-Za-z0-9_]*( (precision|varying|with|without|time|zone|unsigned|signed|large|object))*(\((\s*([A-Za-z0-9_]+|'[A-Za-z0-9_/+:-]*')\s*,?|[()])*\))?$/i;
  if (!shape.test(s) || !balanced(s)) throw new AppError('validation', `models: ${where}: column type ${JSON.stringify(t)} is not a type name (e.g. Int32, Decimal(10, 2), varchar(20), date)`, { field: 'column_types' });
  if (/^(Nullable|LowCardinality|Array|Map|Tuple|Nested|Object|JSON|Variant|Dynamic)\b/i.test(s)) return s;
  return `Nullable(${s})`;
}

function balanced(s: string): boolean {
  let d = 0;
  for (const c of s.replace(/'[^']*'/g, '')) { if (c === '(') d++; else if (c === ')' && --d < 0) return false; }
  return d === 0;
}

/** `quote_columns: false`: the name PostgreSQL gives an unquoted identifier (lower case). */
export function seedColumnName(name: string, quoteColumns: boolean): string {
  return quoteColumns ? name : name.toLowerCase();
}
