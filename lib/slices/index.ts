/**
 * Slices engine (seed 001): parallel initial loads, one Striim app (or native
 * copier) per slice, with state in Postgres. Public entry of `lib/slices/`.
 */
export { registerSlices, type SliceSpec } from './run/register';
export { runSlices, type RunDeps, type RunResult, type Verdict } from './run/orchestrator';
export { resolveSettings, publicSettings, type RunSettings, type RunFlags, type StriimSettings } from './run/settings';
export { buildBoard, type BoardFeed } from './run/board';
export { getStatus, resetRun, clearRun, readLogs, striimCleanup } from './run/manage';
export { reconcileRun, sourceCountSql, targetCountSql, withAsOfScn, type ReconcileReport, type ReconcileTarget } from './run/reconcile';
export { createStriimClient, isTokenRejection, parseMon, StriimError, type StriimClient, type StriimAppStatus, type TungstenResult } from './run/striim-client';
export { startStriimEmulator, type StriimEmulator, type StriimEmulatorOptions, type EmulatorFaults } from './testing/striim-emulator';
export { DEFAULT_TQL_TEMPLATE, renderTql, providerType, escapeTqlDoubleQuoted, lintTemplate } from './run/tql-template';
export { parseQueryFile } from './run/queryfile';
export { watermarkBanner, writeWatermarkSidecar } from './run/watermark';
export { captureWatermark, WATERMARK_SQL, type Watermark } from '../sources';
export { createNativeExecutor } from './run/native-executor';
export { acquireRunLock, describeLockHolder, isRunLocked, runRefused } from './run/run-lock';
export { checkSetup } from './run/setup';
export { STATUSES, getRun, hasStarted, type SliceStatus, type SliceRow, type RunRow } from './run/state';
export { slicesJobs } from './jobs';
export { RunRequest, ResetRequest, ClearRequest, ReconcileRequest, StatusRequest, BoardRequest, ProbeRequest, SplitRequest, AssortRequest } from './requests';
export { executeRun, settingsOf } from './execute/run';
export { executeReset, executeClear, executeStatus, executeBoard, executeReconcile } from './execute/manage';
export { executeProbe, executeSplit, executeAssort } from './execute/planning';
export type { SlicesContext } from './execute/context';
