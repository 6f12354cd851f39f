// Flows: DAGs of pipelines and inline jobs, their cron schedules in IANA
// zones, the leader-elected scheduler, the database-driven executor and
// alert mail. Public entry of `lib/flows/`.
export { FlowInputSchema, FlowPatchSchema, FlowNodeSchema, FlowEdgeSchema, type FlowInput, type FlowPatch, type FlowDefinition } from './spec';
export { checkDag, findCycle, topologicalOrder, parentsOf, childrenOf, descendantsOf, type DagEdge } from './dag';
export { checkSchedule, isValidTimeZone, nextFireTimes, nextFireTime, fireTimesBetween, latestFireAtOrBefore, describeCron, formatInZone } from './schedule';
export { layoutFlow, NODE_SIZE, type LayoutNode, type LayoutResult } from './layout';
export { validateFlow } from './validate';
export { getFlow, mustGetFlow, listFlows, createFlow, updateFlow, setFlowEnabled, deleteFlow, definitionOf, type FlowView, type FlowNodeView } from './store';
export { startFlowRun, getFlowRun, listFlowRuns, cancelFlowRun, retryFlowRun, type FlowRunView, type FlowRunNodeView, type FlowRunStatus, type NodeStatus } from './runs';
export { advanceFlowRuns, advanceFlowRun } from './executor';
export { planFlowStep, type FlowStepPlan, type StepState, type StepNode } from './step-plan';
export { startFlowScheduler, fireDue, SCHEDULER_LOCK_KEY, type SchedulerOptions, type SchedulerHandle } from './scheduler';
export { planFire, planOverlap } from './fire-plan';
export { nodeOutcome } from './outcome';
export { buildAlertMail, runLink, formatDuration, type AlertFacts, type AlertEvent } from './alert-mail';
export { roleOfWork, roleOfPipeline, roleOfFlow, roleOfNodes, roleOfNode, roleOfFlowRun } from './work-role';
