import type pg from 'pg';
import type { Command, NodeResult } from './types';

/** Record one model/test outcome (table model_results). */
export async function saveResult(pool: pg.Pool, runId: string, command: Command, target: string, r: NodeResult): Promise<void> {
  await pool.query(
    `INSERT INTO model_results (run_id, command, node, kind, status, materialized, rows, duration_ms, sql, error, failing_rows, skipped_because, target)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [runId, command, r.name, r.kind, r.status, r.materialized ?? null, r.rows, Math.round(r.durationMs), r.sql ?? null, r.error ?? null,
      r.failingRows ? JSON.stringify(r.failingRows) : null, r.skippedBecause ?? null, target]);
}

export interface StoredResult extends NodeResult { runId: string; command: Command; target: string; createdAt: Date }

function fromRow(x: Record<string, unknown>): StoredResult {
  return {
    runId: x.run_id as string, command: x.command as Command, target: x.target as string, createdAt: x.created_at as Date,
    name: x.node as string, kind: x.kind as 'model' | 'test', status: x.status as NodeResult['status'],
    materialized: (x.materialized as NodeResult['materialized']) ?? undefined, rows: x.rows === null ? null : Number(x.rows),
    durationMs: Number(x.duration_ms), sql: (x.sql as string) ?? undefined, error: (x.error as string) ?? undefined,
    failingRows: (x.failing_rows as Record<string, unknown>[] | null) ?? undefined, skippedBecause: (x.skipped_because as string) ?? undefined,
  };
}

/** The latest outcome of every model and test. */
export async function lastResults(pool: pg.Pool): Promise<StoredResult[]> {
  const r = await pool.query(`SELECT DISTINCT ON (kind, node) * FROM model_results ORDER BY kind, node, created_at DESC, id DESC`);
  return r.rows.map(fromRow);
}

/** Results of recent runs, newest first (or of one run). */
export async function listResults(pool: pg.Pool, f: { runId?: string; node?: string; limit?: number } = {}): Promise<StoredResult[]> {
  const r = await pool.query(
    `SELECT * FROM model_results WHERE ($1::text IS NULL OR run_id = $1) AND ($2::text IS NULL OR node = $2) ORDER BY created_at DESC, id DESC LIMIT $3`,
    [f.runId ?? null, f.node ?? null, Math.min(f.limit ?? 200, 1000)]);
  return r.rows.map(fromRow);
}
