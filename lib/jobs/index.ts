export { defineJob, type JobDefinition, type JobContext } from './types';
export { enqueueJob, validateJob, type EnqueueRequest } from './enqueue';
export { getJobRun, listJobRuns, requestCancel, type JobRunView, type JobLogLine, type JobStatus } from './runs';
export { jobKinds, getJobDefinition, jobRole } from './registry';
export { ensureQueue, QUEUE } from './queue';
export { startWorker, type WorkerHandle, type WorkerOptions } from './worker';
export { reapStaleRuns } from './reaper';
export { findSecret, isSecretKey, credentialInText, redactSecrets, redactText, REDACTED } from './secret-scan';
