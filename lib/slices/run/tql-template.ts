import { AppError } from '../../errors';
/**
 * The per-slice TQL application template (seed 001 section 13, `admin.SW.tql`).
 * Four placeholders are substituted per slice; credentials appear only as
 * Striim property variables (`$admin.SourcePassword` …), never literally.
 */
export const DEFAULT_APP_NAME = 'OracleInitialLoadApp';

export const DEFAULT_TQL_TEMPLATE = `CREATE OR REPLACE APPLICATION OracleInitialLoadApp;

CREATE OR REPLACE SOURCE OracleInitialLoad USING Global.DatabaseReader (
  FetchSize: 100,
  QuiesceOnILCompletion: true,
  Tables: '',
  adapterName: 'DatabaseReader',
  Password: '$admin.SourcePassword',
  Query: "~QUERYTEXT~",
  DatabaseProviderType: '~PROVIDER_TYPE_SRC~',
  Password_encrypted: 'true',
  Username: '$admin.SourceUsername',
  ConnectionURL: '$admin.SourceConnectionString' )
OUTPUT TO OracleIL_Output;

CREATE OR REPLACE TARGET OracleIL_Target USING Global.DatabaseWriter (
  ConnectionURL: '$admin.TargetConnectionString',
  ConnectionRetryPolicy: 'retryInterval=30, maxRetries=3',
  Tables: 'QUERY,~TARGETTABLE~',
  DatabaseProviderType: '~PROVIDER_TYPE_TGT~',
  CheckPointTable: 'CHKPOINT',
  Password_encrypted: 'true',
  CDDLAction: 'Process',
  BatchPolicy: 'EventCount:100,Interval:10',
  IgnorableExceptionCode: 'DUPLICATE_ROW_EXISTS',
  StatementCacheSize: '50',
  CommitPolicy: 'EventCount:100,Interval:10',
  Username: '$admin.TargetUsername',
  PreserveSourceTransactionBoundary: 'false',
  Password: '$admin.TargetPassword',
  adapterName: 'DatabaseWriter' )
INPUT FROM OracleIL_Output;

END APPLICATION OracleInitialLoadApp;
`;

const PROVIDERS: Record<string, string> = {
  oracle: 'Oracle', postgres: 'PostgreSQL', postgresql: 'PostgreSQL', sqlserver: 'SQLServer', mssql: 'SQLServer', jdbc: 'Default',
};

/**
 * Striim's DatabaseProviderType for an engine name (`oracle` → `Oracle`), unless
 * an override (`STRIIM_SOURCE_PROVIDER_TYPE` / `STRIIM_TARGET_PROVIDER_TYPE`) is given.
 */
export function providerType(engine: string, override?: string | null): string {
  if (override?.trim()) return override.trim();
  const p = PROVIDERS[engine.toLowerCase()];
  if (!p) throw new AppError('validation', `slices: unknown engine '${engine}' (oracle, postgres, sqlserver, jdbc)`);
  return p;
}

/**
 * Escape slice SQL for a double-quoted TQL string: backslashes and double
 * quotes are backslash-escaped; line breaks become spaces (a TQL string may not
 * span lines). Single quotes (SQL literals) pass through unchanged.
 */
export function escapeTqlDoubleQuoted(sql: string): string {
  return sql.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n|\r/g, ' ');
}

const TABLE_RE = /^[A-Za-z_$#][\w$#]*(\.[A-Za-z_$#][\w$#]*){0,2}$/;

/** Fill the template for one slice. The target must be a plain `[OWNER.]TABLE` identifier. */
export function renderTql(template: string, p: { query: string; target: string; providerSrc: string; providerTgt: string }): string {
  if (!TABLE_RE.test(p.target)) throw new AppError('validation', `slices: target table must be OWNER.TABLE, got '${p.target}'`);
  for (const ph of ['~QUERYTEXT~', '~TARGETTABLE~']) {
    if (!template.includes(ph)) throw new AppError('validation', `slices: TQL template lacks the ${ph} placeholder`);
  }
  // split/join, not String.replace: the SQL may contain `$&` and similar.
  return template
    .split('~QUERYTEXT~').join(escapeTqlDoubleQuoted(p.query))
    .split('~TARGETTABLE~').join(p.target)
    .split('~PROVIDER_TYPE_SRC~').join(p.providerSrc)
    .split('~PROVIDER_TYPE_TGT~').join(p.providerTgt);
}

/** The application name a template declares (`CREATE [OR REPLACE] APPLICATION X;`). */
export function templateAppName(template: string): string {
  const m = /create\s+(?:or\s+replace\s+)?application\s+([A-Za-z_][\w]*)/i.exec(template);
  if (!m) throw new AppError('validation', 'slices: TQL template has no CREATE APPLICATION statement');
  return m[1];
}

/** Checks the seed's troubleshooting table asks for; returns warnings (empty when fine). */
export function lintTemplate(template: string): string[] {
  const w: string[] = [];
  if (!/QuiesceOnILCompletion\s*:\s*'?true'?/i.test(template)) w.push('template lacks QuiesceOnILCompletion: true — slices would never complete');
  if (!/IgnorableExceptionCode\s*:\s*'[^']*DUPLICATE_ROW_EXISTS/i.test(template)) w.push("template lacks IgnorableExceptionCode: 'DUPLICATE_ROW_EXISTS' — a re-run would fail on duplicates");
  if (/Password\s*:\s*'(?!\$)[^']+'/i.test(template)) w.push('template carries a literal password — use Striim property variables ($admin.SourcePassword)');
  return w;
}
