import type { Logger } from '../../log';
import { silentLogger } from '../../log';
import { AppError, backoffDelay, withRetry } from '../../errors';

/** One entry of a `POST /api/v2/tungsten` answer: one per TQL command. */
export interface TungstenResult {
  command: string;
  executionStatus: 'Success' | 'Failure';
  failureMessage?: string | null;
  output?: unknown;
}

/** An application as `mon;` reports it (`output.striimApplications[]`). */
export interface StriimAppStatus {
  entityType?: string;
  fullName: string;
  namespace: string;
  name: string;
  /** CREATED, DEPLOYED, RUNNING, QUIESCING, QUIESCED, COMPLETED, STOPPED, HALTED, TERMINATED… */
  statusChange: string;
  rate: number | null;
  sourceRate: number | null;
  latestActivity: string | null;
}

export interface StriimClientOptions {
  /** Base URL, `http://host:9080` (STRIIM_URL_PREFIX + STRIIM_NODE). */
  baseUrl: string;
  /** Admin user for `/security/authenticate`. (Default: admin) */
  user?: string;
  password?: string;
  /** Pre-issued token (STRIIM_API_TOKEN); used instead of user/password when set. */
  token?: string | null;
  /** Retries for network errors and 5xx answers. (Default: 5) */
  retries?: number;
  /** First backoff delay in ms, doubled per retry. (Default: 1000) */
  backoffBaseMs?: number;
  /** Backoff ceiling in ms. (Default: 30000) */
  backoffMaxMs?: number;
  /** Per-request timeout in ms. (Default: 180000, as the seed's loader) */
  timeoutMs?: number;
  logger?: Logger;
  signal?: AbortSignal;
}

/** Counters a run persists and the board shows. */
export interface StriimClientStats { requests: number; retries: number; reauths: number; http5xx: number; networkErrors: number }

/** A failed Striim call: code `transient` (retried) or `fatal`; `httpStatus` is Striim's answer, not ours. */
export class StriimError extends AppError {
  readonly transient: boolean;
  readonly httpStatus?: number;
  constructor(message: string, opts: { transient?: boolean; httpStatus?: number; cause?: unknown } = {}) {
    super(opts.transient ? 'transient' : 'fatal', message, { cause: opts.cause });
    this.name = 'StriimError';
    this.transient = opts.transient ?? false;
    this.httpStatus = opts.httpStatus;
  }
}

export interface StriimClient {
  readonly stats: StriimClientStats;
  /** `POST /security/authenticate` with the form fields; returns the token. */
  authenticate(): Promise<string>;
  /** Send TQL (one or more `;`-terminated commands); the per-command results. */
  tungsten(tql: string): Promise<TungstenResult[]>;
  /** tungsten() folded: ok when no command failed, failure messages joined. */
  exec(tql: string): Promise<{ ok: boolean; failureMessage: string; results: TungstenResult[] }>;
  /** `mon;` → the cluster's applications. */
  mon(): Promise<StriimAppStatus[]>;
}

/** True for the answer Striim gives to an expired or unknown token: an object whose `reason` mentions `tkn`. */
export function isTokenRejection(body: unknown): boolean {
  return !!body && typeof body === 'object' && !Array.isArray(body)
    && typeof (body as { reason?: unknown }).reason === 'string'
    && /tkn/i.test((body as { reason: string }).reason);
}

/** Parse a `mon;` answer; throws when its shape is not Striim's. */
export function parseMon(results: TungstenResult[]): StriimAppStatus[] {
  const first = results[0];
  const out = first?.output as { striimApplications?: unknown } | undefined;
  if (!first || first.executionStatus !== 'Success' || !out || !Array.isArray(out.striimApplications)) {
    throw new StriimError(`striim: unexpected mon answer${first?.failureMessage ? ': ' + first.failureMessage : ''}`, { transient: true });
  }
  return out.striimApplications.map((a: Record<string, unknown>) => {
    const fullName = String(a.fullName ?? '');
    const dot = fullName.indexOf('.');
    const num = (v: unknown) => (v === null || v === undefined || v === '' || Number.isNaN(Number(v)) ? null : Number(v));
    return {
      entityType: a.entityType as string | undefined,
      fullName,
      namespace: dot > 0 ? fullName.slice(0, dot) : '',
      name: dot > 0 ? fullName.slice(dot + 1) : fullName,
      statusChange: String(a.statusChange ?? ''),
      rate: num(a.rate),
      sourceRate: num(a.sourceRate),
      latestActivity: a.latestActivity === undefined || a.latestActivity === null ? null : String(a.latestActivity),
    };
  });
}

/**
 * A client of Striim's REST API as the seed's loader uses it: token from
 * `/security/authenticate` (or STRIIM_API_TOKEN), TQL to `/api/v2/tungsten`
 * with `authorization: STRIIM-TOKEN <token>`. A token rejection re-authenticates
 * and repeats once; network errors and 5xx are retried with exponential backoff
 * and counted in `stats`.
 */
export function createStriimClient(opts: StriimClientOptions): StriimClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const retries = opts.retries ?? 5;
  const backoffBase = opts.backoffBaseMs ?? 1000;
  const backoffMax = opts.backoffMaxMs ?? 30_000;
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const log = opts.logger ?? silentLogger;
  const stats: StriimClientStats = { requests: 0, retries: 0, reauths: 0, http5xx: 0, networkErrors: 0 };
  let token: string | null = opts.token?.trim() || null;
  const canLogin = !!opts.password || !opts.token;

  /** One HTTP exchange; network errors and 5xx retried by withRetry (jittered backoff); returns status and parsed body. */
  async function request(path: string, init: { headers: Record<string, string>; body: string }): Promise<{ status: number; body: unknown; text: string }> {
    let tries = 0;
    const once = async () => {
      tries++;
      stats.requests++;
      // The last try's error says how many there were, as the seed's loader did.
      const after = tries > retries ? ` after ${tries} attempts` : '';
      let res: Response;
      try {
        res = await fetch(base + path, { method: 'POST', headers: init.headers, body: init.body, signal: AbortSignal.timeout(timeoutMs) });
      } catch (e) {
        stats.networkErrors++;
        throw new StriimError(`striim: ${path} unreachable${after}: ${(e as Error).message}`, { transient: true, cause: e });
      }
      const text = await res.text();
      if (res.status >= 500) {
        stats.http5xx++;
        throw new StriimError(`striim: ${path} answered ${res.status}${after}`, { transient: true, httpStatus: res.status });
      }
      let body: unknown = text;
      try { body = text ? JSON.parse(text) : null; } catch { /* keep text */ }
      return { status: res.status, body, text };
    };
    try {
      return await withRetry(once, {
        retries, signal: opts.signal,
        retryable: (e) => e instanceof StriimError && e.transient,
        delayMs: (n) => backoffDelay(n, backoffBase, backoffMax),
        onRetry: (e, i) => {
          stats.retries++;
          const status = (e as StriimError).httpStatus;
          log.warn(status ? 'striim: server error, retrying' : 'striim: network error, retrying', { path, ...(status ? { status } : { error: e.message }), attempt: i.attempt, delayMs: i.delayMs });
        },
      });
    } catch (e) {
      if (opts.signal?.aborted) throw new StriimError('striim: request aborted', { transient: false, cause: e });
      throw e;
    }
  }

  async function authenticate(): Promise<string> {
    const form = new URLSearchParams({ username: opts.user ?? 'admin', password: opts.password ?? '' });
    const r = await request('/security/authenticate', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    const t = (r.body as { token?: unknown } | null)?.token;
    if (r.status !== 200 || typeof t !== 'string' || !t) {
      throw new StriimError('striim: Authentication failed. Check STRIIM_NODE and credentials.', { httpStatus: r.status });
    }
    token = t;
    return t;
  }

  async function tungsten(tql: string): Promise<TungstenResult[]> {
    const body = tql.trim().endsWith(';') ? tql : tql + ';';
    for (let reauth = 0; ; reauth++) {
      if (!token) await authenticate();
      const r = await request('/api/v2/tungsten', { headers: { authorization: `STRIIM-TOKEN ${token}`, 'content-type': 'text/plain' }, body });
      if (isTokenRejection(r.body) || r.status === 401 || r.status === 403) {
        if (reauth >= 1 || !canLogin) throw new StriimError(`striim: token rejected: ${r.text.slice(0, 200)}`, { httpStatus: r.status });
        stats.reauths++;
        log.info('striim: token expired, re-authenticating');
        token = null;
        continue;
      }
      if (!Array.isArray(r.body)) throw new StriimError(`striim: unexpected answer (HTTP ${r.status}): ${r.text.slice(0, 300)}`, { httpStatus: r.status });
      return r.body as TungstenResult[];
    }
  }

  async function exec(tql: string) {
    const results = await tungsten(tql);
    const failures = results.filter((x) => x.executionStatus === 'Failure');
    return { ok: failures.length === 0, failureMessage: failures.map((x) => x.failureMessage ?? 'failed').join('; '), results };
  }

  return { stats, authenticate, tungsten, exec, mon: async () => parseMon(await tungsten('mon;')) };
}
