/**
 * How a finished job counts for its flow node. A job that succeeded can
 * still be a failed node: a data-quality run whose result has MISMATCH or
 * ERROR units (dq.run normally fails the job itself then; this holds even
 * for a result written by an older worker), or any job reporting `ok: false`.
 */
export function nodeOutcome(jobStatus: string, result: unknown, error: string | null): { status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'; error: string | null } {
  if (jobStatus === 'queued' || jobStatus === 'running') return { status: jobStatus, error: null };
  if (jobStatus === 'cancelled') return { status: 'cancelled', error: error ?? 'cancelled' };
  if (jobStatus === 'failed') return { status: 'failed', error: error ?? 'the job failed' };
  if (result && typeof result === 'object') {
    const r = result as { ok?: unknown; units?: { status?: unknown; table?: unknown; branch?: unknown }[] };
    const bad = Array.isArray(r.units) ? r.units.filter((u) => u?.status === 'MISMATCH' || u?.status === 'ERROR') : [];
    if (bad.length) {
      return { status: 'failed', error: `${bad.length} unit(s) MISMATCH or ERROR: ${bad.slice(0, 5).map((u) => `${u.table}@${u.branch} ${u.status}`).join(', ')}` };
    }
    if (r.ok === false) return { status: 'failed', error: 'the job reported ok: false' };
  }
  return { status: 'succeeded', error: null };
}
