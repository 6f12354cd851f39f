import { describe, expect, it } from 'vitest';
import { buildAlertMail, formatDuration } from './alert-mail';
import { nodeOutcome } from './outcome';

describe('alert mail', () => {
  const base = {
    flowName: 'nightly', flowId: 'f1', runId: 'r1', publicUrl: 'https://tributary.example.com/',
    startedAt: new Date('2026-06-01T02:00:00Z'), endedAt: new Date('2026-06-01T02:03:05Z'), scheduledFor: new Date('2026-06-01T02:00:00Z'),
    nodes: [{ id: 'a', label: null, status: 'succeeded' }, { id: 'b', label: 'transactions', status: 'failed' }, { id: 'c', label: null, status: 'skipped' }],
  };
  it('names the flow, the failed node, the error, start and duration, and links to the run (text and HTML)', () => {
    const m = buildAlertMail({ ...base, event: 'failure', failedNode: { id: 'b', label: 'transactions', kind: 'etl.run', error: 'etl: ORA-12541 <no listener>' } });
    expect(m.subject).toBe('[tributary] Flow nightly failed at node b (transactions)');
    for (const part of [m.text, m.html]) {
      expect(part).toContain('nightly');
      expect(part).toContain('2026-06-01T02:00:00.000Z');
      expect(part).toContain('3m 5s');
      expect(part).toContain('https://tributary.example.com/flows/f1/runs/r1');
    }
    expect(m.text).toContain('etl: ORA-12541 <no listener>');
    expect(m.html).toContain('etl: ORA-12541 &lt;no listener&gt;');
    expect(m.text).toMatch(/c\s+skipped/);
  });
  it('has success and long-running forms', () => {
    expect(buildAlertMail({ ...base, event: 'success' }).subject).toBe('[tributary] Flow nightly succeeded');
    expect(buildAlertMail({ ...base, event: 'long_running' }).subject).toMatch(/still running after 3m 5s/);
    expect(formatDuration(3_723_000)).toBe('1h 2m');
  });
});

describe('nodeOutcome', () => {
  it('counts a dq result with MISMATCH or ERROR as failed, whatever the job status', () => {
    expect(nodeOutcome('succeeded', { ok: true, units: [{ table: 'T', branch: 'b1', status: 'MATCH' }] }, null).status).toBe('succeeded');
    expect(nodeOutcome('succeeded', { units: [{ table: 'T', branch: 'b1', status: 'MISMATCH' }] }, null)).toEqual({ status: 'failed', error: '1 unit(s) MISMATCH or ERROR: T@b1 MISMATCH' });
    expect(nodeOutcome('succeeded', { ok: false }, null).status).toBe('failed');
    expect(nodeOutcome('failed', null, 'dq: 2 of 2 units MISMATCH')).toEqual({ status: 'failed', error: 'dq: 2 of 2 units MISMATCH' });
    expect(nodeOutcome('running', null, null).status).toBe('running');
    expect(nodeOutcome('cancelled', null, null).status).toBe('cancelled');
  });
});
