import type pg from 'pg';
import { parseTablesConfig } from '../config/tables-json';
import { createLogger, type LogRecord } from '../log';
import { createSyntheticSource, SYNTHETIC_TABLES, type BranchSource } from '../sources';
import { MemoryTarget } from './memory-target';
import type { BranchHandle, RunContext } from './run-types';
import { DEFAULT_SETTINGS, type EtlSettings } from './settings';

/** Tests of the run's steps: the synthetic tables and branches, an in-memory write step, a logger that keeps its records. */
export const syntheticDefs = parseTablesConfig(SYNTHETIC_TABLES, 'self-test tables');

export function syntheticBranch(key: string, index: number, wrap?: (s: BranchSource) => BranchSource): BranchHandle {
  const source = createSyntheticSource({ branch: key, branchIndex: index, rowsPerTable: 40 });
  return { key, source: wrap ? wrap(source) : source };
}

export function testContext(o: { settings?: Partial<EtlSettings>; pool?: pg.Pool; stagingRoot?: string; plan?: boolean; allBranches?: boolean; signal?: AbortSignal } = {}): RunContext & { records: LogRecord[]; target: MemoryTarget } {
  const records: LogRecord[] = [];
  return {
    runId: 'etl-test', settings: { ...DEFAULT_SETTINGS, retries: 2, retryDelayMs: 1, ...o.settings }, pool: o.pool as pg.Pool,
    target: new MemoryTarget(), log: createLogger((r) => records.push(r), { level: 'debug' }), stagingRoot: o.stagingRoot ?? '/nonexistent',
    signal: o.signal, plan: !!o.plan, allBranches: o.allBranches ?? true, loadTime: 1_704_067_200_000_000n, encoder: null,
    summary: { runId: 'etl-test', mode: o.settings?.mode ?? DEFAULT_SETTINGS.mode, ok: true, phases: [], units: [], drift: {}, durationMs: 0 },
    records,
  };
}
