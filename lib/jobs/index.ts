export { defineJob, type JobDefinition, type JobContext, type JobCheckDeps } from './types';
export { enqueueJob, validateJob, type EnqueueRequest, type EnqueueDeps } from './enqueue';
export { getJobRun, listJobRuns, requestCancel, type JobRunView, type JobLogLine, type JobStatus } from './runs';
export { createJobRegistry, type JobRegistry, type JobKindInfo } from './registry';
export { systemJobs } from './system-check';
export { ensureQueue, QUEUE } from './queue';
export { startWorker, type WorkerHandle, type WorkerOptions } from './worker';
export { reapStaleRuns } from './reaper';
export { findSecret, isSecretKey, credentialInText, redactSecrets, redactText, REDACTED } from '../log/secret-scan';
