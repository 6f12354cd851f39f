'use client';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api-client';
import type { Picker } from './field-model';

interface ConnectionItem { name: string; isBranch?: boolean; branchKey?: string | null }

/**
 * What each picker offers: connection names, branch keys (connections marked
 * as branches) and tables.json's lake tables. Fetched only when a form has such a field.
 */
export function usePickerOptions(needed: Set<Picker>): Record<Picker, string[]> & { tablesError?: string } {
  const conns = useQuery({
    queryKey: ['picker', 'connections'], enabled: needed.has('connection'), staleTime: 30_000,
    queryFn: () => api<{ connections: ConnectionItem[] }>('/api/v1/connections'),
  });
  const branches = useQuery({
    queryKey: ['picker', 'branches'], enabled: needed.has('branch'), staleTime: 30_000,
    queryFn: () => api<{ connections: ConnectionItem[] }>('/api/v1/connections?branches=true'),
  });
  const tables = useQuery({
    queryKey: ['picker', 'tables'], enabled: needed.has('table'), staleTime: 30_000,
    queryFn: () => api<{ tables: { lakeName: string }[]; error?: string }>('/api/v1/etl/tables'),
  });
  return {
    connection: (conns.data?.connections ?? []).map((c) => c.name),
    branch: (branches.data?.connections ?? []).map((c) => c.branchKey ?? c.name),
    table: (tables.data?.tables ?? []).map((t) => t.lakeName),
    tablesError: tables.data?.error,
  };
}
