import fs from 'node:fs/promises';
import path from 'node:path';
import type { SourceDb } from './source';

/** The CDC start position captured at fresh-run start (seed 001, "CDC watermark"). */
export interface Watermark { label: string; value: string; capturedAt: Date; sourceDsn: string }

/** Per engine: the label and the SQL tried in order (Oracle falls back to DBMS_FLASHBACK). */
export const WATERMARK_SQL: Record<'oracle' | 'postgres', { label: string; sql: string[] }> = {
  oracle: { label: 'Oracle SCN', sql: ['SELECT current_scn AS "W" FROM v$database', 'SELECT DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER AS "W" FROM dual'] },
  postgres: { label: 'PostgreSQL WAL LSN', sql: ['SELECT pg_current_wal_lsn()::text AS "W"'] },
};

/** Capture the watermark; throws with every attempt's error when none works. */
export async function captureWatermark(src: SourceDb): Promise<Watermark> {
  const spec = WATERMARK_SQL[src.engine];
  const errors: string[] = [];
  for (const sql of spec.sql) {
    try {
      const rows = await src.query(sql);
      const v = rows[0]?.W;
      if (v !== undefined && v !== null) return { label: spec.label, value: String(v), capturedAt: new Date(), sourceDsn: src.dsn };
      errors.push(`${sql}: no value`);
    } catch (e) {
      errors.push(`${sql}: ${(e as Error).message}`);
    }
  }
  throw new Error(`slices: watermark capture failed — ${errors.join('; ')}`);
}

/** The console banner (seed 001, section 13). */
export function watermarkBanner(w: Watermark, runId: number): string {
  const bar = '='.repeat(64);
  return [
    bar,
    ` INITIAL LOAD START WATERMARK [${w.label}]: ${w.value}`,
    ` captured ${w.capturedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}  (run ${runId})`,
    ' -> Set the downstream CDC reader\'s start point to this value.',
    bar,
  ].join('\n');
}

/** Write `run_<id>_watermark.json` into dir; returns its path. */
export async function writeWatermarkSidecar(dir: string, runId: number, w: Watermark): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `run_${runId}_watermark.json`);
  const body = { run_id: runId, label: w.label, value: w.value, captured_at: w.capturedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'), source_dsn: w.sourceDsn };
  await fs.writeFile(file + '.tmp', JSON.stringify(body, null, 2) + '\n');
  await fs.rename(file + '.tmp', file);
  return file;
}
