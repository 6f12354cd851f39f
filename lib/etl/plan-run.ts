import crypto from 'node:crypto';
import { selectTables } from '../config/select-tables';
import type { TableDef } from '../config/tables-json';
import type { Watermark } from '../db';
import type { BranchHandle, Phase, TableState, Unit } from './run-types';
import { selectBranches } from './select-branches';
import { cutoverMessage, type EtlSettings } from './settings';

/** What one run covers, decided before anything is read. */
export interface RunPlan {
  runId: string;
  branches: BranchHandle[];
  tables: TableDef[];
  /** Every configured branch takes part (an INITIAL may then replace whole tables). */
  allBranches: boolean;
  /** Masters before transactions; never mixed. */
  phases: Phase[];
}

/** `etl-<UTC yyyymmddhhmmss>-<6 hex>`: sortable by start, unique across workers. */
export function newRunId(now = new Date()): string {
  return `etl-${now.toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${crypto.randomBytes(3).toString('hex')}`;
}

/** The run's id, branches, tables and phases; unknown --branch / --tables names are usage errors. */
export function planRun(o: { branches: BranchHandle[]; tables: TableDef[]; settings: EtlSettings; runId?: string }): RunPlan {
  const s = o.settings;
  const runId = o.runId ?? newRunId();
  const branches = selectBranches(o.branches, s.branches);
  const tables = selectTables(o.tables, s.tables);
  return {
    runId, branches, tables,
    allBranches: branches.length === o.branches.length,
    phases: s.category === 'both' ? ['masters', 'transactions'] : [s.category],
  };
}

/** A phase's work: per table a state holding one unit per branch, in table then branch order. */
export function planPhase(phase: Phase, defs: TableDef[], branches: BranchHandle[]): { states: Map<string, TableState>; units: Unit[] } {
  const states = new Map<string, TableState>();
  const units: Unit[] = [];
  for (const def of defs) {
    const st: TableState = { def, units: [], lakeColumns: null, drift: [], lock: Promise.resolve(), remaining: 0 };
    for (const b of branches) st.units.push({ def, branch: b, phase, attempts: 0, error: null, rows: 0, files: [], startedAt: new Date() });
    states.set(def.lakeName, st);
    units.push(...st.units);
  }
  return { states, units };
}

/**
 * The cutover rule: an INCREMENTAL unit reads from its committed watermark,
 * and one without a watermark is REFUSED (the first run must be INITIAL) —
 * except a keyless (query) entry's, which is read whole at every run anyway
 * (render-unit.ts `unitMode`). `watermarks` maps lake table → branch →
 * watermark. INITIAL units are left as they are.
 */
export function applyCutover(states: Map<string, TableState>, mode: EtlSettings['mode'], watermarks: Map<string, Map<string, Watermark>>): void {
  if (mode !== 'INCREMENTAL') return;
  for (const st of states.values()) {
    const wms = watermarks.get(st.def.lakeName);
    for (const u of st.units) {
      const wm = wms?.get(u.branch.key);
      if (wm) u.watermark = wm;
      else if (st.def.uniqueKey.length) { u.status = 'REFUSED'; u.error = cutoverMessage(st.def.lakeName, u.branch.key); }
    }
  }
}
