import { AppError } from '../errors';
import type { LakeAccess, S3Settings } from './source-sql';
import type { QueryResult, Target } from './target';

/** A ClickHouse server reached over HTTP through @clickhouse/client. */
export interface ClickHouseTargetOptions {
  /** HTTP(S) URL, e.g. `http://clickhouse:8123`. */
  url: string;
  /** (Default: default) */
  user?: string;
  password?: string;
  /** Database the models are created in. (Default: models) */
  database?: string;
  /** The warehouse root as this process sees it, and as the server sees it (see README: the server reads its own filesystem). */
  warehouse?: string;
  serverWarehouse?: string;
  /**
   * An s3:// warehouse's endpoint and region; the server reads the bucket with its own
   * credentials (its `<s3>` config or environment) — keys given here are not sent, as
   * rendered SQL is shown in model results and the compile preview. (Default: none)
   */
  s3?: S3Settings;
  /** (Default: 300000 ms) */
  requestTimeoutMs?: number;
}

/** How a ClickHouse server reads the lake: its own filesystem, re-rooted; the bucket at the endpoint, without the warehouse's keys. */
export function serverLakeAccess(o: Pick<ClickHouseTargetOptions, 'warehouse' | 'serverWarehouse' | 's3'>): LakeAccess {
  const s3 = o.s3 ? { endpoint: o.s3.endpoint, region: o.s3.region } : undefined;
  return { mode: 'absolute', warehouse: o.warehouse, serverWarehouse: o.serverWarehouse, ...(s3 ? { s3 } : {}) };
}

export async function openClickHouseTarget(opts: ClickHouseTargetOptions): Promise<Target> {
  const { createClient, ClickHouseLogLevel } = await import('@clickhouse/client');
  const database = opts.database ?? 'models';
  const client = createClient({
    url: opts.url, username: opts.user ?? 'default', password: opts.password ?? '',
    request_timeout: opts.requestTimeoutMs ?? 300_000,
    application: 'tributary-models',
    // Failures reach the caller as errors (and the model's result); the client's own console log would repeat them.
    log: { level: ClickHouseLogLevel.OFF },
    // Progress headers keep a long CREATE TABLE … AS SELECT's connection alive through proxies.
    clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '20000' },
  });
  const lake = serverLakeAccess(opts);
  const wrap = (e: unknown) => {
    const err = e as Error & { code?: string };
    const msg = (err.message ?? String(e)).split('\n')[0];
    if (err.code && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND)$/.test(err.code)) return new AppError('transient', `models: ClickHouse server ${opts.url}: ${msg}`, { cause: e });
    return new AppError('validation', `models: ClickHouse: ${msg}`, { cause: e });
  };
  return {
    kind: 'clickhouse', database, lake,
    async command(sql, signal) {
      try { await client.command({ query: sql, abort_signal: signal }); } catch (e) { throw wrap(e); }
    },
    async query(sql, signal): Promise<QueryResult> {
      try {
        const rs = await client.query({ query: sql, format: 'JSON', abort_signal: signal });
        const j = await rs.json<Record<string, unknown>>();
        return { columns: (j.meta ?? []) as QueryResult['columns'], rows: j.data };
      } catch (e) { throw wrap(e); }
    },
    async explainAst(sql, signal) {
      try {
        // exec, not query: the client would append FORMAT, which the parser attaches to the explained SELECT
        // union_default_mode: a model's bare UNION (UNION DISTINCT under its session settings) parses here too
        const r = await client.exec({ query: `EXPLAIN AST ${sql}`, clickhouse_settings: { default_format: 'TabSeparatedRaw', union_default_mode: 'DISTINCT' }, abort_signal: signal });
        let text = '';
        for await (const chunk of r.stream) text += chunk.toString();
        return text.replace(/\n$/, '').split('\n');
      } catch (e) { throw wrap(e); }
    },
    async close() { await client.close(); },
  };
}
