// The pipeline library: saved job specs, their run history, and the helpers
// flows share (job-spec checks, enqueueing inside a caller's transaction).
export { PipelineInputSchema, PipelinePatchSchema, type PipelineInput } from './spec';
export { checkJobSpec, checkJobSpecWithConfig, parseInput } from './job-spec';
export { fieldPath } from './field-path';
export { enqueueJobInTransaction } from '../jobs/enqueue-batch';
export { withTransaction } from './transaction';
export { commandLineFor, NO_COMMAND, pipelineCommandLine, rowsOfResult } from './command-line';
export {
  getPipeline, listPipelines, createPipeline, updatePipeline, clonePipeline, deletePipeline, flowsUsingPipeline,
  runPipeline, enqueuePipelineJobs, pipelineHistory, type PipelineStart, type PipelineView, type PipelineRunView,
} from './store';
