// The executor's decisions, table-driven over every node state, with no
// database: each case is a run's state and the plan expected of it.
import { describe, expect, it } from 'vitest';
import { planFlowStep, type StepFlow, type StepJob, type StepNode, type StepRun, type StepState } from './step-plan';
import type { NodeStatus } from './runs';

const NOW = new Date('2030-01-01T12:00:00Z');
const T0 = new Date('2030-01-01T11:00:00Z');
const T1 = new Date('2030-01-01T11:30:00Z');

const job = (status: string, extra: Partial<StepJob> = {}): StepJob => ({ status, result: null, error: null, startedAt: T0, finishedAt: status === 'queued' || status === 'running' ? null : T1, ...extra });
function node(nodeId: string, status: NodeStatus, o: { parents?: string[]; job?: StepJob | null; error?: string | null } = {}): StepNode {
  const hasJob = o.job !== undefined ? o.job !== null : status !== 'pending';
  return {
    nodeId, label: null, pipelineId: null, kind: 'system.check', params: {}, parents: o.parents ?? [], status,
    jobRunId: hasJob || o.job === null && status !== 'pending' ? `job-${nodeId}` : null, error: o.error ?? null,
    job: o.job !== undefined ? o.job : hasJob ? job(status === 'pending' ? 'queued' : status) : null,
  };
}
const run = (o: Partial<StepRun> = {}): StepRun => ({ id: 'r1', status: 'running', cancelRequested: false, maxParallel: 4, startedAt: T1, longAlertSent: false, ...o });
const flow = (o: Partial<StepFlow> = {}): StepFlow => ({ alertOnFailure: true, alertOnSuccess: false, alertLongRunningMinutes: null, ...o });
const state = (nodes: StepNode[], o: { run?: Partial<StepRun>; flow?: StepFlow | null; flowBusy?: boolean } = {}): StepState =>
  ({ run: run(o.run), flow: o.flow === undefined ? flow() : o.flow, nodes, flowBusy: o.flowBusy ?? false });
const statuses = (p: ReturnType<typeof planFlowStep>) => Object.fromEntries(p.after.map((n) => [n.nodeId, n.status]));

describe('planFlowStep: node states from their job runs', () => {
  const cases: [string, StepNode, NodeStatus, Record<string, unknown> | null, string | null][] = [
    ['queued job still queued: no change', node('a', 'queued'), 'queued', null, null],
    ['queued node, job running: running with the job start', node('a', 'queued', { job: job('running') }), 'running', { status: 'running', startedAt: T0 }, null],
    ['running job still running: no change', node('a', 'running'), 'running', null, null],
    ['job succeeded', node('a', 'running', { job: job('succeeded') }), 'succeeded', { status: 'succeeded', startedAt: T0, finishedAt: T1 }, 'node a succeeded'],
    ['job failed: its error', node('a', 'running', { job: job('failed', { error: 'boom' }) }), 'failed', { status: 'failed', error: 'boom', finishedAt: T1 }, 'node a failed: boom'],
    ['job failed without error', node('a', 'running', { job: job('failed') }), 'failed', { error: 'the job failed' }, 'node a failed: the job failed'],
    ['job cancelled', node('a', 'running', { job: job('cancelled') }), 'cancelled', { status: 'cancelled', error: 'cancelled' }, 'node a cancelled'],
    ['succeeded job reporting MISMATCH units fails the node', node('a', 'running', { job: job('succeeded', { result: { units: [{ table: 'T', branch: 'b1', status: 'MISMATCH' }] } }) }),
      'failed', { error: '1 unit(s) MISMATCH or ERROR: T@b1 MISMATCH' }, null],
    ['succeeded job reporting ok: false fails the node', node('a', 'running', { job: job('succeeded', { result: { ok: false } }) }), 'failed', { error: 'the job reported ok: false' }, null],
    ['finished job with no finish time: now', node('a', 'running', { job: job('succeeded', { finishedAt: null }) }), 'succeeded', { finishedAt: NOW }, null],
    ['job run gone', node('a', 'running', { job: null }), 'failed', { error: 'its job run no longer exists', finishedAt: NOW }, null],
    ['ended nodes are not looked at again', node('a', 'succeeded', { job: job('failed') }), 'succeeded', null, null],
  ];
  for (const [what, n, want, change, log] of cases) {
    it(what, () => {
      const p = planFlowStep(state([n]), NOW);
      expect(statuses(p).a).toBe(want);
      if (change) expect(p.nodeChanges).toEqual([expect.objectContaining({ nodeId: 'a', ...change })]);
      else expect(p.nodeChanges).toEqual([]);
      if (log) expect(p.logs.map((l) => l.message)).toContain(log);
    });
  }
});

describe('planFlowStep: propagation, cancel, starts and parallelism', () => {
  it('skips the whole chain below a failure in one pass, naming the failed root', () => {
    const p = planFlowStep(state([
      node('a', 'running', { job: job('failed', { error: 'x' }) }), node('b', 'pending', { parents: ['a'] }), node('c', 'pending', { parents: ['b'] }),
    ]), NOW);
    expect(statuses(p)).toEqual({ a: 'failed', b: 'skipped', c: 'skipped' });
    expect(p.nodeChanges.find((c) => c.nodeId === 'c')).toMatchObject({ error: 'upstream failed (a)', finishedAt: NOW });
    expect(p.close).toEqual({ status: 'failed', error: 'node a failed: x', failedNodeId: 'a', alert: 'failure' });
  });
  it('a node skipped earlier passes its root on', () => {
    const p = planFlowStep(state([node('b', 'skipped', { error: 'upstream failed (a)' }), node('c', 'pending', { parents: ['b'] })]), NOW);
    expect(p.nodeChanges).toEqual([expect.objectContaining({ nodeId: 'c', status: 'skipped', error: 'upstream failed (a)' })]);
  });
  it('cancels downstream of a cancelled node', () => {
    const p = planFlowStep(state([node('a', 'cancelled'), node('b', 'pending', { parents: ['a'] })]), NOW);
    expect(p.nodeChanges).toEqual([expect.objectContaining({ nodeId: 'b', status: 'cancelled', error: 'upstream cancelled (a)' })]);
    expect(p.close).toMatchObject({ status: 'cancelled', error: 'cancelled', alert: null });
  });
  it('a node waits for every parent to succeed', () => {
    const p = planFlowStep(state([node('a', 'succeeded'), node('b', 'running'), node('c', 'pending', { parents: ['a', 'b'] })]), NOW);
    expect(p.starts).toEqual([]);
    expect(p.close).toBeNull();
  });
  it('starts ready nodes in DAG order up to the run\'s parallelism, counting active ones', () => {
    const p = planFlowStep(state([node('x', 'running'), ...['a', 'b', 'c', 'd'].map((id) => node(id, 'pending'))], { run: { maxParallel: 3 } }), NOW);
    expect(p.starts).toEqual(['a', 'b']);
    expect(statuses(p)).toMatchObject({ a: 'queued', b: 'queued', c: 'pending', d: 'pending' });
  });
  it('a node whose parent just succeeded starts in the same step', () => {
    const p = planFlowStep(state([node('a', 'running', { job: job('succeeded') }), node('b', 'pending', { parents: ['a'] })]), NOW);
    expect(p.starts).toEqual(['b']);
  });
  it('cancel requested: pending nodes cancelled, active jobs asked to stop, nothing starts', () => {
    const p = planFlowStep(state([node('a', 'succeeded'), node('b', 'running'), node('c', 'pending', { parents: ['b'] }), node('d', 'pending')], { run: { cancelRequested: true } }), NOW);
    expect(p.starts).toEqual([]);
    expect(p.cancelJobs).toEqual(['job-b']);
    expect(statuses(p)).toEqual({ a: 'succeeded', b: 'running', c: 'cancelled', d: 'cancelled' });
    expect(p.close).toBeNull();
  });
  it('cancel requested and the last job ended cancelled: the run closes cancelled', () => {
    const p = planFlowStep(state([node('a', 'succeeded'), node('b', 'running', { job: job('cancelled') }), node('c', 'pending', { parents: ['b'] })], { run: { cancelRequested: true } }), NOW);
    expect(p.close).toMatchObject({ status: 'cancelled' });
    expect(p.cancelJobs).toEqual([]);
  });
  it('a failure outranks a cancellation, and the first failed in DAG order is named', () => {
    const p = planFlowStep(state([node('z', 'failed', { error: 'late' }), node('a', 'cancelled'), node('y', 'failed', { parents: ['z'], error: 'e' })]), NOW);
    expect(p.close).toMatchObject({ status: 'failed', failedNodeId: 'z', error: 'node z failed: late' });
  });
});

describe('planFlowStep: the run', () => {
  it('a queued run behind another run of its flow waits and writes nothing', () => {
    const p = planFlowStep(state([node('a', 'pending')], { run: { status: 'queued', startedAt: null }, flowBusy: true }), NOW);
    expect(p).toMatchObject({ wait: true, startRun: false, starts: [], nodeChanges: [], logs: [], close: null });
  });
  it('a queued run with cancel asked does not wait for the busy flow', () => {
    const p = planFlowStep(state([node('a', 'pending')], { run: { status: 'queued', cancelRequested: true }, flowBusy: true }), NOW);
    expect(p).toMatchObject({ wait: false, startRun: true, close: { status: 'cancelled' } });
  });
  it('a queued run starts and its first nodes with it', () => {
    const p = planFlowStep(state([node('a', 'pending')], { run: { status: 'queued', startedAt: null } }), NOW);
    expect(p).toMatchObject({ wait: false, startRun: true, starts: ['a'], close: null });
  });
  const closing: [string, NodeStatus[], StepFlow | null, string, string | null][] = [
    ['all succeeded, success alerts off', ['succeeded', 'succeeded'], flow(), 'succeeded', null],
    ['all succeeded, success alerts on', ['succeeded', 'succeeded'], flow({ alertOnSuccess: true }), 'succeeded', 'success'],
    ['a failure, failure alerts off', ['succeeded', 'failed'], flow({ alertOnFailure: false }), 'failed', null],
    ['a failure, the flow deleted', ['failed', 'skipped'], null, 'failed', null],
    ['skipped only (no failure left in the run)', ['succeeded', 'skipped'], flow({ alertOnSuccess: true }), 'succeeded', 'success'],
  ];
  for (const [what, sts, f, want, alert] of closing) {
    it(`closes: ${what}`, () => {
      const p = planFlowStep(state(sts.map((s, i) => node(`n${i}`, s)), { flow: f }), NOW);
      expect(p.close).toMatchObject({ status: want, alert });
    });
  }
  const longRunning: [string, Partial<StepRun>, Partial<StepFlow>, boolean][] = [
    ['over the limit', { startedAt: new Date(NOW.getTime() - 61 * 60_000) }, { alertLongRunningMinutes: 60 }, true],
    ['under the limit', { startedAt: new Date(NOW.getTime() - 59 * 60_000) }, { alertLongRunningMinutes: 60 }, false],
    ['already alerted', { startedAt: T0, longAlertSent: true }, { alertLongRunningMinutes: 1 }, false],
    ['no limit set', { startedAt: T0 }, {}, false],
  ];
  for (const [what, r, f, want] of longRunning) {
    it(`long-running alert: ${what}`, () => {
      expect(planFlowStep(state([node('a', 'running')], { run: r, flow: flow(f) }), NOW).longRunningAlert).toBe(want);
    });
  }
  it('no long-running alert for a run that closes', () => {
    expect(planFlowStep(state([node('a', 'succeeded')], { run: { startedAt: T0 }, flow: flow({ alertLongRunningMinutes: 1 }) }), NOW)).toMatchObject({ longRunningAlert: false, close: { status: 'succeeded' } });
  });
  it('is pure: the state handed in is not changed', () => {
    const s = state([node('a', 'running', { job: job('failed') }), node('b', 'pending', { parents: ['a'] })]);
    const copy = structuredClone(s);
    planFlowStep(s, NOW);
    expect(s).toEqual(copy);
  });
});
