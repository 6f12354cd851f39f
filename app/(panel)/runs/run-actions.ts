import { api } from '../../_components/api-client';

/** Queue the same kind and parameters again; resolves to the new run's id. */
export async function retryRun(id: string): Promise<string> {
  return (await api<{ id: string }>(`/api/v1/jobs/${id}/retry`, { method: 'POST' })).id;
}

export async function cancelRun(id: string): Promise<void> {
  await api(`/api/v1/jobs/${id}/cancel`, { method: 'POST' });
}
