// Browser-side calls to /api/v1 with the session cookie; errors carry the API's { code, message, field }.
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly field?: string) {
    super(message);
  }
}

// Set while signing out: polls must not hit the API with a cookie that is being cleared.
let halted = false;
export function haltApiCalls(): void { halted = true; }

export async function api<T>(url: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  if (halted) return new Promise<T>(() => {});
  const method = init.method ?? 'GET';
  const res = await fetch(url, {
    method,
    // The API refuses a cookie-authenticated change without a JSON content type (issue #13), body or not.
    headers: init.body === undefined && (method === 'GET' || method === 'HEAD') ? undefined : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const e = data?.error ?? {};
    if (res.status === 401 && typeof window !== 'undefined') window.location.assign('/login');
    throw new ApiError(res.status, e.code ?? 'error', e.message ?? `request failed (${res.status})`, e.field);
  }
  return data as T;
}

/** Shapes returned by the API (kept loose: the server is the source of truth). */
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export interface RunView {
  id: string; kind: string; params: unknown; status: RunStatus; createdBy: string | null; source?: 'api' | 'cli' | 'flow' | 'schedule';
  progress: { done: number; total: number | null };
  attempts: number; workerId: string | null; cancelRequested: boolean;
  error: string | null; result: unknown;
  createdAt: string; startedAt: string | null; finishedAt: string | null; heartbeatAt: string | null;
}
export interface LogLine { id: number; ts: string; level: string; message: string; fields: Record<string, unknown> | null }
export interface JobKind { kind: string; description: string; role: 'admin' | 'operator' | 'viewer'; schema?: Record<string, unknown> }
export const ACTIVE: RunStatus[] = ['queued', 'running'];
