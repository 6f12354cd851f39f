/**
 * The fields each connection kind takes, shared by the panel's create form
 * and the API's kind-specific checks. Pure data: safe to import in the browser.
 * Param names follow what the engines read (`lib/etl/branches.ts`, the TOML import).
 */
export type ConnectionKind = 'oracle' | 'postgres' | 'clickhouse' | 'striim' | 'smtp' | 'webhook' | 'other';

export interface ConnectionField {
  key: string;
  label: string;
  /** select: one of `options` (an enumerated setting is never free text). */
  type: 'text' | 'number' | 'boolean' | 'select';
  options?: readonly string[];
  placeholder?: string;
  help?: string;
}

export interface ConnectionKindSpec {
  label: string;
  /** Can be a source branch (what `--branch` takes). */
  branchable: boolean;
  params: ConnectionField[];
  /** Write-only: encrypted at rest, never returned. */
  secrets: ConnectionField[];
}

const POOL: ConnectionField[] = [
  { key: 'pool_size', label: 'Pool size', type: 'number', placeholder: '4', help: 'connections to this branch at once' },
  { key: 'fetch_batch_size', label: 'Fetch batch size', type: 'number', placeholder: 'engine default', help: 'rows per fetch' },
];

export const CONNECTION_KIND_SPECS: Record<ConnectionKind, ConnectionKindSpec> = {
  oracle: {
    label: 'Oracle', branchable: true,
    params: [
      { key: 'host', label: 'Host', type: 'text', placeholder: 'db1.example.com' },
      { key: 'port', label: 'Port', type: 'number', placeholder: '1521' },
      { key: 'service_name', label: 'Service name', type: 'text', placeholder: 'ORCL', help: 'or a SID' },
      { key: 'sid', label: 'SID', type: 'text' },
      { key: 'dsn', label: 'Full connect string', type: 'text', placeholder: 'host:1521/service', help: 'instead of host/port/service' },
      { key: 'user', label: 'User', type: 'text' },
      ...POOL,
      { key: 'oracle_client_lib_dir', label: 'Oracle client lib dir', type: 'text', help: 'thick mode; $ORACLE_CLIENT_LIB_DIR wins' },
    ],
    secrets: [{ key: 'password', label: 'Password', type: 'text' }],
  },
  postgres: {
    label: 'PostgreSQL', branchable: true,
    params: [
      { key: 'host', label: 'Host', type: 'text', placeholder: 'db1.example.com' },
      { key: 'port', label: 'Port', type: 'number', placeholder: '5432' },
      { key: 'database', label: 'Database', type: 'text' },
      { key: 'user', label: 'User', type: 'text' },
      ...POOL,
    ],
    secrets: [
      { key: 'password', label: 'Password', type: 'text' },
      { key: 'url', label: 'Connection URL', type: 'text', placeholder: 'postgres://…', help: 'instead of host/port/database' },
    ],
  },
  striim: {
    label: 'Striim', branchable: false,
    params: [
      { key: 'node', label: 'Node (host:port)', type: 'text', placeholder: 'striim.example.com:9080' },
      { key: 'url_prefix', label: 'URL prefix', type: 'text', placeholder: 'http://' },
      { key: 'admin_user', label: 'Admin user', type: 'text', placeholder: 'admin' },
    ],
    secrets: [
      { key: 'admin_pwd', label: 'Admin password', type: 'text' },
      { key: 'api_token', label: 'API token', type: 'text', help: 'instead of user/password' },
    ],
  },
  clickhouse: {
    label: 'ClickHouse', branchable: false,
    params: [
      { key: 'http_url', label: 'HTTP URL', type: 'text', placeholder: 'http://clickhouse:8123', help: 'the server models materialise into' },
      { key: 'host', label: 'Host', type: 'text', help: 'instead of the HTTP URL' },
      { key: 'port', label: 'Port', type: 'number', placeholder: '8123' },
      { key: 'database', label: 'Database', type: 'text', placeholder: 'models', help: 'where models are created' },
      { key: 'user', label: 'User', type: 'text', placeholder: 'default' },
      { key: 'server_warehouse', label: 'Warehouse as the server sees it', type: 'text', placeholder: '/var/lib/clickhouse/user_files/warehouse', help: 'icebergLocal reads the server\'s filesystem' },
    ],
    secrets: [{ key: 'password', label: 'Password', type: 'text' }],
  },
  smtp: {
    label: 'SMTP relay', branchable: false,
    params: [
      { key: 'host', label: 'Host', type: 'text' },
      { key: 'port', label: 'Port', type: 'number', placeholder: '587' },
      { key: 'tls', label: 'TLS mode', type: 'select', options: ['starttls', 'tls', 'none'], help: 'starttls: upgrade after connecting (port 587); tls: TLS from the start (port 465); none: plain text' },
      { key: 'user', label: 'User', type: 'text', help: 'leave empty for a relay without authentication' },
      { key: 'from', label: 'From address', type: 'text', placeholder: 'tributary@example.com' },
    ],
    secrets: [{ key: 'password', label: 'Password', type: 'text' }],
  },
  webhook: {
    label: 'Webhook', branchable: false,
    params: [
      { key: 'format', label: 'Body format', type: 'select', options: ['json', 'pagerduty'], help: 'json: the alert\'s facts with a text line (Slack, Teams, any receiver); pagerduty: an Events API v2 event' },
    ],
    secrets: [
      { key: 'url', label: 'URL', type: 'text', placeholder: 'https://hooks.slack.com/services/…', help: 'where alerts are posted (a chat webhook URL is itself a credential)' },
      { key: 'secret', label: 'Signing secret', type: 'text', help: 'optional: each post carries X-Tributary-Signature, an HMAC-SHA256 of "<timestamp>.<body>"' },
      { key: 'routing_key', label: 'PagerDuty routing key', type: 'text', help: 'format pagerduty only' },
    ],
  },
  other: { label: 'Other', branchable: false, params: [], secrets: [] },
};

/** TLS modes of an smtp connection: plain, upgraded with STARTTLS, or TLS from the first byte. */
export const SMTP_TLS_MODES = ['none', 'starttls', 'tls'];

// Values that must go in `secrets`, never in `params` (params are returned by the API).
const SECRET_LIKE = /(password|passwd|pwd|secret|token|connection_?string|^url$|api_?key|private_?key)/i;

export interface FieldProblem { field: string; message: string }

/**
 * Kind-specific checks on top of the connection schema: where to connect is
 * given, numbers are positive integers, and nothing secret sits in `params`.
 * Returns the first problem, naming the field as the client wrote it.
 */
export function checkConnectionFields(c: { kind: string; params?: Record<string, unknown>; secrets?: Record<string, string> }): FieldProblem | null {
  const params = c.params ?? {};
  const secrets = c.secrets ?? {};
  for (const k of Object.keys(params)) {
    if (SECRET_LIKE.test(k)) return { field: `params.${k}`, message: `${k} looks like a secret: send it in secrets (stored encrypted, never returned), not in params` };
  }
  const spec = CONNECTION_KIND_SPECS[c.kind as ConnectionKind];
  if (!spec) return null;
  for (const f of spec.params) {
    const v = params[f.key];
    if (v === undefined || v === null || v === '') continue;
    if (f.type === 'number' && !(Number.isInteger(v) && (v as number) > 0)) return { field: `params.${f.key}`, message: `${f.key} must be a positive integer` };
    if (f.type === 'boolean' && typeof v !== 'boolean') return { field: `params.${f.key}`, message: `${f.key} must be true or false` };
    if (f.type === 'text' && typeof v !== 'string') return { field: `params.${f.key}`, message: `${f.key} must be a string` };
    if (f.type === 'select' && !f.options?.includes(v as string)) return { field: `params.${f.key}`, message: `${f.key} must be one of ${f.options?.join(', ')}` };
  }
  const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined && o[k] !== null && o[k] !== '';
  if (c.kind === 'oracle' && !has(params, 'dsn') && !has(secrets, 'connection_string')) {
    if (!has(params, 'host')) return { field: 'params.host', message: 'an Oracle connection needs host (with service_name or sid) or dsn' };
    if (!has(params, 'service_name') && !has(params, 'sid')) return { field: 'params.service_name', message: 'an Oracle connection needs service_name or sid with its host' };
  }
  if (c.kind === 'postgres' && !has(params, 'host') && !has(secrets, 'url') && !has(secrets, 'connection_string')) {
    return { field: 'params.host', message: 'a PostgreSQL connection needs host (or a url in secrets)' };
  }
  if (c.kind === 'clickhouse' && !has(params, 'http_url') && !has(params, 'host')) return { field: 'params.http_url', message: 'a ClickHouse connection needs http_url (or host)' };
  if (c.kind === 'clickhouse' && has(params, 'http_url') && !/^https?:\/\/[^/]+/.test(String(params.http_url))) return { field: 'params.http_url', message: 'http_url must be an http:// or https:// URL' };
  if (c.kind === 'smtp' && !has(params, 'host')) return { field: 'params.host', message: `a ${spec.label} connection needs host` };
  if (c.kind === 'smtp') {
    if (has(params, 'tls') && !SMTP_TLS_MODES.includes(params.tls as string)) return { field: 'params.tls', message: `tls must be one of ${SMTP_TLS_MODES.join(', ')}` };
    if (!has(params, 'from')) return { field: 'params.from', message: 'an SMTP connection needs a from address' };
    if (!/^[^\s@<>]+@[^\s@<>]+$/.test(String(params.from).replace(/^.*<([^>]+)>\s*$/, '$1'))) return { field: 'params.from', message: 'from must be an e-mail address (optionally "Name <addr@host>")' };
  }
  if (c.kind === 'webhook') {
    if (!has(secrets, 'url')) return { field: 'secrets.url', message: 'a webhook connection needs url (in secrets)' };
    if (secrets.url !== '*' && !/^https?:\/\/[^/\s]+/i.test(secrets.url)) return { field: 'secrets.url', message: 'url must be an http:// or https:// URL' };
    if (params.format === 'pagerduty' && !has(secrets, 'routing_key')) return { field: 'secrets.routing_key', message: 'format pagerduty needs routing_key (in secrets)' };
  }
  if (c.kind === 'striim' && !has(params, 'node')) return { field: 'params.node', message: 'a Striim connection needs node (host:port)' };
  return null;
}
