'use client';
import { useState, type FormEvent } from 'react';
import { startJob } from './start-job';

/**
 * The submit half of a "start a job" form: enqueues `kind` with the params the
 * form builds, tracks busy/error, and hands the new run id to `onStarted`.
 */
export function useStartJob(kind: string, onStarted: (id: string) => void) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submitWith = (params: () => Record<string, unknown>) => async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try { onStarted(await startJob(kind, params())); } catch (err) { setError(err); } finally { setBusy(false); }
  };
  return { error, busy, submitWith };
}
