import { AppError } from '../errors';

/** Rows the query box shows. */
export const QUERY_ROW_LIMIT = 1000;

// Table functions that read files, run programs or reach the network: the query
// box reads the target's own tables and views, nothing else.
const REACHING = /\b(file|url|urlCluster|s3|s3Cluster|gcs|azureBlobStorage\w*|hdfs\w*|remote|remoteSecure|mysql|postgresql|sqlite|mongodb|redis|odbc|jdbc|executable|iceberg\w*|deltaLake\w*|hudi\w*|input|cluster\w*|dictionary|merge|loop|fuzz\w*|view|viewIfPermitted)\s*\(/i;

/** Text with string literals, quoted identifiers and comments blanked, so checks see only the SQL. */
function skeleton(sql: string): string {
  let out = ''; let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < sql.length && sql[j] !== c) j += sql[j] === '\\' ? 2 : 1;
      out += c === "'" ? "''" : 'x'; i = j + 1; continue;
    }
    if (c === '-' && sql[i + 1] === '-') { while (i < sql.length && sql[i] !== '\n') i++; out += ' '; continue; }
    if (c === '/' && sql[i + 1] === '*') { const j = sql.indexOf('*/', i + 2); i = j < 0 ? sql.length : j + 2; out += ' '; continue; }
    out += c; i++;
  }
  return out;
}

/**
 * Check a query-box statement and wrap it: one SELECT (or WITH … SELECT), no
 * table function reaching files or the network, run with `readonly = 2`
 * (no writes, no DDL) and cut at QUERY_ROW_LIMIT + 1 rows so the caller can
 * tell the result was truncated.
 */
export function readOnlyQuery(sql: string): string {
  const text = sql.trim().replace(/;\s*$/, '');
  const sk = skeleton(text).trim();
  if (!sk) throw new AppError('validation', 'models: the query is empty', { field: 'sql' });
  if (sk.includes(';')) throw new AppError('validation', 'models: one statement only', { field: 'sql' });
  if (!/^(select|with)\b/i.test(sk)) throw new AppError('validation', 'models: only SELECT queries run here (read-only)', { field: 'sql' });
  if (/\bsettings\b|\binto\s+outfile\b|\bformat\s+\w+\s*$/i.test(sk)) throw new AppError('validation', 'models: SETTINGS, FORMAT and INTO OUTFILE are not allowed in the query box', { field: 'sql' });
  const m = REACHING.exec(sk);
  if (m) throw new AppError('validation', `models: the query box reads the target's tables and views; the table function ${m[1]}() is not allowed`, { field: 'sql' });
  return `SELECT * FROM (\n${text}\n) LIMIT ${QUERY_ROW_LIMIT + 1} SETTINGS readonly = 2`;
}
