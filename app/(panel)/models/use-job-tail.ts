'use client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ACTIVE, type LogLine, type RunView } from '../../_components/api-client';

type RunWithLogs = RunView & { logs: LogLine[] };

/** Poll a job run and tail its log (each poll asks only for the new lines) until it ends. */
export function useJobTail(id: string | null) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: ['model-job', id],
    enabled: !!id,
    queryFn: async () => {
      const prev = qc.getQueryData<RunWithLogs>(['model-job', id])?.logs ?? [];
      const after = prev.length ? prev[prev.length - 1].id : 0;
      const r = await api<RunWithLogs>(`/api/v1/jobs/${id}?afterLogId=${after}`);
      return { ...r, logs: [...prev, ...r.logs.filter((l) => l.id > after)] };
    },
    refetchInterval: (q) => (q.state.data && !ACTIVE.includes(q.state.data.status) ? false : 700),
  });
}
