'use client';
import { useState } from 'react';
import { useQueries } from '@tanstack/react-query';
import { api, ACTIVE, type RunView } from '../../_components/api-client';
import { startJob } from '../../_components/start-job';

/** One tables.json entry on one branch: what the Tables page shows in that branch's column. */
export type Presence = { state: 'checking' } | { state: 'present' } | { state: 'missing'; why: string } | { state: 'error'; why: string } | { state: 'unchecked' };

interface TestResult { error?: string | null; tables?: { table: string; source: string; exists: boolean; error?: string }[] }

/**
 * Which branches have each table: one `connections.test` job per branch
 * connection (the worker connects, never the web process); each job's result
 * lists every saved tables.json entry with `exists`. `presence(branch, source)`
 * answers for one cell; an entry the job did not list (added since, unsaved)
 * reads "unchecked".
 */
export function useBranchPresence() {
  const [jobs, setJobs] = useState<Record<string, string>>({});
  const [startError, setStartError] = useState<unknown>(null);
  const names = Object.keys(jobs);
  const runs = useQueries({
    queries: names.map((name) => ({
      queryKey: ['run-outcome', jobs[name]],
      queryFn: () => api<RunView>(`/api/v1/jobs/${jobs[name]}?afterLogId=${Number.MAX_SAFE_INTEGER}`),
      refetchInterval: (q: { state: { data?: RunView } }) => (q.state.data && !ACTIVE.includes(q.state.data.status) ? false : 800),
    })),
  });
  const runOf = new Map(names.map((n, i) => [n, runs[i]?.data]));

  const check = async (branches: string[]) => {
    setStartError(null);
    try {
      const started = await Promise.all(branches.map(async (b) => [b, await startJob('connections.test', { name: b })] as const));
      setJobs(Object.fromEntries(started));
    } catch (e) { setStartError(e); }
  };

  const presence = (branch: string, source: string): Presence => {
    if (!(branch in jobs)) return { state: 'unchecked' };
    const run = runOf.get(branch);
    if (!run || ACTIVE.includes(run.status)) return { state: 'checking' };
    const r = (run.result ?? null) as TestResult | null;
    const t = r?.tables?.find((x) => x.source === source);
    if (t) return t.exists ? { state: 'present' } : { state: 'missing', why: t.error ?? '' };
    // No answer for this entry: the branch could not be tested (unreachable), or the entry is newer than the file it read.
    if (run.status !== 'succeeded' || !r?.tables) return { state: 'error', why: r?.error ?? run.error ?? `the test ${run.status}` };
    return { state: 'unchecked' };
  };

  const checking = names.some((n) => { const r = runOf.get(n); return !r || ACTIVE.includes(r.status); });
  return { check, presence, checking, checked: names.length > 0, startError };
}
