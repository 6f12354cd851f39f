/**
 * Test-only: an HTTP proxy in front of the test S3 server that injects the
 * faults an object store shows under load — 500 InternalError, 503
 * ServiceUnavailable, 503 SlowDown (throttling), a connection dropped before
 * the request reaches the store, and one dropped after the store has done the
 * request (the write happened; the client never hears so). Faults are drawn
 * from a seeded generator, so a failing case replays.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultKind = '500' | '503' | 'slowdown' | 'drop' | 'drop-after';
export const FAULT_KINDS: readonly FaultKind[] = ['500', '503', 'slowdown', 'drop', 'drop-after'];

export interface FaultPlan {
  /** Share of requests that fail, 0–1. */
  rate: number;
  /** Faults to draw from. (Default: all) */
  kinds?: readonly FaultKind[];
  /** Seed of the generator. (Default: 1) */
  seed?: number;
  /** Only requests this accepts can fail (method, path with query). (Default: every request) */
  match?: (method: string, path: string) => boolean;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: give it to the lake as its S3 endpoint. */
  endpoint: string;
  /** Start injecting faults. */
  set(plan: FaultPlan): void;
  /** Stop injecting: every request passes. */
  off(): void;
  /** Faults injected so far, by kind. */
  injected(): Record<FaultKind, number>;
  stop(): Promise<void>;
}

/** mulberry32: a small seeded generator, enough to pick faults reproducibly. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ERRORS: Record<'500' | '503' | 'slowdown', { status: number; code: string; message: string }> = {
  500: { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' },
  503: { status: 503, code: 'ServiceUnavailable', message: 'Service is unable to handle request.' },
  slowdown: { status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' },
};

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  let plan: Required<FaultPlan> | null = null;
  let next = generator(1);
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  const draw = (method: string, url: string): FaultKind | null => {
    if (!plan || !plan.match(method, url) || next() >= plan.rate) return null;
    return plan.kinds[Math.floor(next() * plan.kinds.length)];
  };

  const server = http.createServer((req, res) => {
    const fault = draw(req.method ?? '', req.url ?? '');
    if (fault) counts[fault]++;
    if (process.env.FAULTS_DEBUG) process.stderr.write(`proxy: ${req.method} ${req.url} ${fault ?? 'pass'}\n`);
    if (fault === 'drop') { req.socket.destroy(); return; }
    if (fault === '500' || fault === '503' || fault === 'slowdown') {
      const e = ERRORS[fault];
      req.resume();
      req.once('end', () => {
        res.writeHead(e.status, { 'content-type': 'application/xml', ...(fault === 'slowdown' ? { 'retry-after': '0' } : {}) });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${e.code}</Code><Message>${e.message}</Message></Error>`);
      });
      return;
    }
    const up = http.request({
      host: target.hostname, port: target.port, method: req.method, path: req.url,
      headers: { ...req.headers, host: target.host },
    }, (upRes) => {
      if (fault === 'drop-after') {
        // The store did the request; the client loses the answer.
        upRes.resume();
        upRes.once('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => req.socket.destroy());
    req.pipe(up);
  });
  // A dropped socket is the point, not an error of the proxy.
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    set: (p) => { plan = { kinds: FAULT_KINDS, seed: 1, match: () => true, ...p }; next = generator(plan.seed); },
    off: () => { plan = null; },
    injected: () => ({ ...counts }),
    stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
