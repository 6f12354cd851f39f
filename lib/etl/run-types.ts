import type * as arrow from 'apache-arrow';
import type pg from 'pg';
import type { TableDef } from '../config/tables-json';
import type { Watermark } from '../db';
import type { Logger } from '../log';
import type { Bind, BranchSource, ReadStats, RenderedQuery, SourceColumn } from '../sources';
import type { UnitStatus } from './control';
import type { ControlBatch } from './control-batch';
import type { LakeTarget } from './lake-target';
import type { ParquetEncoderPool } from '../lake';
import type { Drift, UnionColumn } from '../sources';
import type { EtlSettings } from './settings';
import type { MemoryHold, StagedFile, StagingWriter } from './staging';

/**
 * The shapes one ETL run passes between its steps (planner → schema step →
 * extract with retry → load and record): what the caller sees (BranchHandle,
 * UnitResult, EtlRunSummary) and the run's working state (Unit, TableState,
 * RunContext).
 */

/** One branch the run reads: its key (what --branch takes) and its reader. */
export interface BranchHandle {
  key: string;
  source: BranchSource;
  /** Rows per round trip / batch for this branch. (Default: the run's fetchBatchSize) */
  fetchBatchSize?: number;
}

export type Phase = 'masters' | 'transactions';

export interface UnitResult {
  table: string;
  branch: string;
  phase: Phase;
  status: UnitStatus | 'PLANNED';
  rows: number;
  /** Rows deleted (or soft-deleted) in the lake because the source no longer has their keys (tables.json `deletes: detect`). */
  rowsDeleted?: number;
  attempts: number;
  writeDisposition: string | null;
  error: string | null;
  /** Rows dropped as older duplicates of a key (`dedupe: latest`); absent when none. */
  droppedDuplicates?: number;
  watermark?: Watermark;
  sql?: string;
  binds?: Bind[];
  /** The worker that extracted it, when the run fanned out (TRIBUTARY_FANOUT=on). */
  worker?: string;
}

export interface EtlRunSummary {
  runId: string;
  mode: EtlSettings['mode'];
  ok: boolean;
  phases: { phase: string; ran: boolean; ok: boolean }[];
  units: UnitResult[];
  drift: Record<string, Drift[]>;
  durationMs: number;
}

/** One (table, branch) of a phase, as it moves through the steps. */
export interface Unit {
  def: TableDef;
  branch: BranchHandle;
  phase: Phase;
  columns?: SourceColumn[];
  describeError?: Error;
  watermark?: Watermark;
  status?: UnitStatus;
  fatal?: boolean;
  attempts: number;
  error: string | null;
  rows: number;
  /** Rows dropped as older duplicates of a key (`dedupe: latest`). */
  dropped?: number;
  files: StagedFile[];
  /** The writer of `files` (gives held rows back to the run's memory budget once loaded). */
  staged?: StagingWriter;
  stats?: ReadStats;
  /** `deletes: detect`: canonical keys (unique_key order) the lake holds on this branch and the source no longer has. */
  deleteKeys?: (string | null)[][];
  /**
   * `deletes: detect` still running (RunContext.lateDeletes): settles once `deleteKeys` is set;
   * rejects when the comparison failed after its retries.
   */
  deletesPending?: Promise<void>;
  /** Where `deleteKeys`' lake rows are (data file, position) at a snapshot, when the comparison read them. */
  deletesAt?: { snapshotId: string; rows: { path: string; pos: number }[] };
  /** Rows those keys deleted in the lake (set by the load). */
  rowsDeleted?: number;
  startedAt: Date;
  finishedAt?: Date;
  query?: RenderedQuery;
  /** A sub-folder of the unit's staging (a fanned-out attempt's `a<N>`, so attempts never share files). (Default: none) */
  stagingSub?: string;
  /** The worker that extracted it (fan-out). */
  workerId?: string;
}

/** One table of a phase: its units on every branch and the lake schema they stage in. */
export interface TableState {
  def: TableDef;
  units: Unit[];
  schema?: arrow.Schema;
  lakeColumns: UnionColumn[] | null;
  drift: Drift[];
  /** Serialises schema changes of this table (see widenTable). */
  lock: Promise<void>;
  /** Units still extracting; the table is loaded when it reaches 0. */
  remaining: number;
  error?: string;
}

/** What every step of one run shares. */
export interface RunContext {
  runId: string;
  settings: EtlSettings;
  /** Tributary's own database (etl_meta). */
  pool: pg.Pool;
  target: LakeTarget;
  log: Logger;
  /** Folder for staged Parquet (`<root>/<runId>/…`). */
  stagingRoot: string;
  signal?: AbortSignal;
  /** Plan only: render and describe, extract and write nothing. */
  plan: boolean;
  /** Every configured branch takes part (an INITIAL may then replace the table). */
  allBranches: boolean;
  /** insert_at / Recorded_updated_at of every row this run writes (wall-clock micros). */
  loadTime: bigint;
  /** Null in plan mode. */
  encoder: ParquetEncoderPool | null;
  /** In-memory budget for small units' rows (INCREMENTAL without kept staging). */
  hold?: MemoryHold;
  /** Filled as tables finish (units) and as drift is found. */
  summary: EtlRunSummary;
  /** The phase's batched control writes (lib/etl/control-batch.ts). (Default: each table writes its own at once) */
  control?: ControlBatch;
  /**
   * A unit's `deletes: detect` comparison runs on after its extract (Unit.deletesPending) and its
   * table's merge takes the keys at its commit, so the merge's work overlaps the source's key scan.
   * Set where the load runs in the extracting process. (Default: the unit waits for it)
   */
  lateDeletes?: boolean;
}
