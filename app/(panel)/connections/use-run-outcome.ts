'use client';
import { useQuery } from '@tanstack/react-query';
import { api, ACTIVE, type RunView } from '../../_components/api-client';

/** Poll one job run until it ends (no log): what a button that started a job shows next to itself. */
export function useRunOutcome(id: string | null) {
  return useQuery({
    queryKey: ['run-outcome', id],
    enabled: !!id,
    queryFn: () => api<RunView>(`/api/v1/jobs/${id}?afterLogId=${Number.MAX_SAFE_INTEGER}`),
    refetchInterval: (q) => (q.state.data && !ACTIVE.includes(q.state.data.status) ? false : 800),
  });
}
