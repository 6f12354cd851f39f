import { topologicalOrder } from './dag';
import { nodeOutcome } from './outcome';
import type { AlertEvent } from './alert-mail';
import type { NodeStatus } from './runs';

/**
 * The executor's decision, as a pure function of one run's state: what
 * changes, which nodes start, whether the run ends. No I/O: step-apply.ts
 * loads the state under the run's lock and writes the plan back, one
 * statement per kind (pyiceberg's "plan, then commit").
 */

/** The job run behind a node, as the job table shows it now. */
export interface StepJob {
  status: string;
  result: unknown;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface StepNode {
  nodeId: string;
  label: string | null;
  pipelineId: string | null;
  kind: string;
  params: Record<string, unknown>;
  parents: string[];
  status: NodeStatus;
  jobRunId: string | null;
  error: string | null;
  /** Null when the node has no job run, or its job run no longer exists. */
  job: StepJob | null;
}

export interface StepRun {
  id: string;
  status: 'queued' | 'running';
  cancelRequested: boolean;
  maxParallel: number;
  startedAt: Date | null;
  longAlertSent: boolean;
}

/** The flow's alert settings (null when the flow was deleted under its run). */
export interface StepFlow {
  alertOnFailure: boolean;
  alertOnSuccess: boolean;
  alertLongRunningMinutes: number | null;
}

export interface StepState {
  run: StepRun;
  flow: StepFlow | null;
  nodes: StepNode[];
  /**
   * A queued run waits while another run of its flow is running or an older
   * one is queued (one run of a flow at a time). Read under the flow's lock.
   */
  flowBusy: boolean;
}

/** A node row change. Fields left undefined keep the stored value (the UPDATE coalesces). */
export interface NodeChange {
  nodeId: string;
  status: NodeStatus;
  error?: string;
  /** Set by the applier when it queued the node's job (the UPDATE then counts an attempt). */
  jobRunId?: string;
  startedAt?: Date | null;
  finishedAt?: Date | null;
}

export interface LogLine { level: 'info' | 'warn' | 'error'; message: string }

export interface RunClose {
  status: 'succeeded' | 'failed' | 'cancelled';
  error: string | null;
  /** The first failed node in DAG order, named by the alert. */
  failedNodeId: string | null;
  alert: AlertEvent | null;
}

export interface FlowStepPlan {
  /** The run is held behind another run of its flow: nothing else happens. */
  wait: boolean;
  /** queued → running. */
  startRun: boolean;
  nodeChanges: NodeChange[];
  /** Nodes to enqueue, in DAG order (their outcome, queued or "could not start", is the applier's). */
  starts: string[];
  logs: LogLine[];
  /** Job runs to ask to stop, after commit. */
  cancelJobs: string[];
  close: RunClose | null;
  longRunningAlert: boolean;
  /** Every node as it stands once the plan is applied (starts counted as queued): what an alert names. */
  after: StepNode[];
}

const TERMINAL = new Set<NodeStatus>(['succeeded', 'failed', 'skipped', 'cancelled']);
const ACTIVE = new Set<NodeStatus>(['queued', 'running']);

const emptyPlan = (nodes: StepNode[]): FlowStepPlan => ({
  wait: true, startRun: false, nodeChanges: [], starts: [], logs: [], cancelJobs: [], close: null, longRunningAlert: false,
  after: nodes,
});

/**
 * Plan one step of a run: sync node states from their job runs, skip
 * downstream of failures (cancel downstream of cancellations), cancel what
 * has not started if cancel was asked, start ready nodes up to the run's
 * parallelism, and close the run once every node has ended.
 */
export function planFlowStep(state: StepState, now: Date): FlowStepPlan {
  const { run, flow } = state;
  if (run.status === 'queued' && !run.cancelRequested && state.flowBusy) return emptyPlan(state.nodes);

  // Working copies: each phase reads what the previous one decided.
  const nodes = new Map(state.nodes.map((n) => [n.nodeId, { ...n }]));
  const changes = new Map<string, NodeChange>();
  const logs: LogLine[] = [];
  const set = (c: NodeChange) => {
    const n = nodes.get(c.nodeId)!;
    n.status = c.status;
    if (c.error) n.error = c.error;
    const prev = changes.get(c.nodeId);
    changes.set(c.nodeId, prev ? { ...prev, ...c } : c);
  };
  const startedAt = run.status === 'queued' ? (run.startedAt ?? now) : run.startedAt;

  // 1. Node states from their job runs.
  for (const n of nodes.values()) {
    if (!ACTIVE.has(n.status)) continue;
    if (!n.job) {
      set({ nodeId: n.nodeId, status: 'failed', error: 'its job run no longer exists', finishedAt: now });
      continue;
    }
    const out = nodeOutcome(n.job.status, n.job.result, n.job.error);
    if (out.status === n.status) continue;
    if (out.status === 'running') set({ nodeId: n.nodeId, status: 'running', startedAt: n.job.startedAt });
    else if (out.status !== 'queued') {
      set({ nodeId: n.nodeId, status: out.status, error: out.error ?? undefined, startedAt: n.job.startedAt, finishedAt: n.job.finishedAt ?? now });
      logs.push(out.status === 'failed'
        ? { level: 'error', message: `node ${n.nodeId} failed: ${(out.error ?? '').slice(0, 500)}` }
        : { level: 'info', message: `node ${n.nodeId} ${out.status}` });
    }
  }

  const order = topologicalOrder([...nodes.keys()], [...nodes.values()].flatMap((n) => n.parents.map((p) => ({ from: p, to: n.nodeId }))));

  // 2. Downstream of a failure is skipped; of a cancellation, cancelled (in order, so it propagates in one pass).
  for (const id of order) {
    const n = nodes.get(id)!;
    if (n.status !== 'pending') continue;
    const bad = n.parents.map((p) => nodes.get(p)!).find((p) => p.status === 'failed' || p.status === 'skipped' || p.status === 'cancelled');
    if (!bad) continue;
    if (bad.status === 'cancelled') set({ nodeId: id, status: 'cancelled', error: `upstream cancelled (${bad.nodeId})`, finishedAt: now });
    else set({ nodeId: id, status: 'skipped', error: `upstream failed (${rootFailure(bad)})`, finishedAt: now });
  }

  // 3. Cancel: nothing new starts; running jobs are asked to stop after commit.
  let cancelJobs: string[] = [];
  if (run.cancelRequested) {
    for (const n of nodes.values()) if (n.status === 'pending') set({ nodeId: n.nodeId, status: 'cancelled', error: 'cancelled', finishedAt: now });
    cancelJobs = [...nodes.values()].filter((n) => ACTIVE.has(n.status) && n.jobRunId).map((n) => n.jobRunId!);
  }

  // 4. Start ready nodes, up to the run's parallelism.
  const starts: string[] = [];
  if (!run.cancelRequested) {
    let active = [...nodes.values()].filter((n) => ACTIVE.has(n.status)).length;
    for (const id of order) {
      if (active >= run.maxParallel) break;
      const n = nodes.get(id)!;
      if (n.status !== 'pending' || !n.parents.every((p) => nodes.get(p)!.status === 'succeeded')) continue;
      starts.push(id);
      n.status = 'queued'; // the applier records the job run id, or turns it into "could not start"
      active++;
    }
  }

  // 5. Close the run once every node has ended; otherwise maybe say it runs long.
  const all = [...nodes.values()];
  let close: RunClose | null = null;
  let longRunningAlert = false;
  if (all.every((n) => TERMINAL.has(n.status))) {
    const failed = order.map((id) => nodes.get(id)!).find((n) => n.status === 'failed');
    const status = failed ? 'failed' : all.some((n) => n.status === 'cancelled') ? 'cancelled' : 'succeeded';
    const error = failed ? `node ${failed.nodeId} failed: ${failed.error ?? ''}`.slice(0, 2000) : status === 'cancelled' ? 'cancelled' : null;
    const alert: AlertEvent | null = status === 'failed' && flow?.alertOnFailure ? 'failure' : status === 'succeeded' && flow?.alertOnSuccess ? 'success' : null;
    close = { status, error, failedNodeId: failed?.nodeId ?? null, alert };
  } else if (flow?.alertLongRunningMinutes && !run.longAlertSent && startedAt
             && now.getTime() - startedAt.getTime() > flow.alertLongRunningMinutes * 60_000) {
    longRunningAlert = true;
  }

  return {
    wait: false, startRun: run.status === 'queued', nodeChanges: [...changes.values()], starts, logs, cancelJobs, close, longRunningAlert,
    after: all,
  };
}

/** The failed node a skip traces back to: a skipped parent names its own root ("upstream failed (x)"). */
function rootFailure(bad: { nodeId: string; status: NodeStatus; error: string | null }): string {
  if (bad.status === 'failed') return bad.nodeId;
  return (bad.error ?? bad.nodeId).replace(/^upstream failed \((.*)\)$/, '$1');
}
