// Test-only: call a route handler as Next.js does — a Request, and the
// dynamic segments as a promised `params` — with an optional bearer token and
// JSON body; the answer as status, parsed JSON (null when empty or not JSON),
// raw text and headers.
export type RouteHandler = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;

const BASE = 'http://127.0.0.1:8765';

export async function callRoute(handler: RouteHandler, method: string, url: string, opts: { token?: string; body?: unknown; params?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await handler(new Request(BASE + url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }), { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  let body: unknown = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = null; }
  return { status: res.status, body: body as any, text, headers: res.headers }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
