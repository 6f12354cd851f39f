export { SlotPool } from './slot-pool';
export { runPool, WorkQueue } from './run-pool';
