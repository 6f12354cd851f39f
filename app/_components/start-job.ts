import { api } from './api-client';

/** Enqueue a job through `POST /api/v1/jobs`; resolves to the run id (the server validates the params). */
export async function startJob(kind: string, params: Record<string, unknown>): Promise<string> {
  const r = await api<{ id: string }>('/api/v1/jobs', { method: 'POST', body: { kind, params } });
  return r.id;
}

/** `a, b ,c` → ['a','b','c'] (empty → undefined, so the job takes its default: all). */
export function splitList(v: string): string[] | undefined {
  const list = v.split(',').map((x) => x.trim()).filter(Boolean);
  return list.length ? list : undefined;
}
