import type { SourceQuery } from './open-source';
import { AppError } from '../errors';

/** The CDC start position captured at fresh-run start (seed 001, "CDC watermark"). */
export interface Watermark { label: string; value: string; capturedAt: Date; sourceDsn: string }

/** Per engine: the label and the SQL tried in order (Oracle falls back to DBMS_FLASHBACK). */
export const WATERMARK_SQL: Record<'oracle' | 'postgres', { label: string; sql: string[] }> = {
  oracle: { label: 'Oracle SCN', sql: ['SELECT current_scn AS "W" FROM v$database', 'SELECT DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER AS "W" FROM dual'] },
  postgres: { label: 'PostgreSQL WAL LSN', sql: ['SELECT pg_current_wal_lsn()::text AS "W"'] },
};

/** Capture the watermark (Oracle SCN / Postgres WAL LSN); throws with every attempt's error when none works. */
export async function captureWatermark(src: Pick<SourceQuery, 'engine' | 'dsn' | 'query'>): Promise<Watermark> {
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
  throw new AppError('fatal', `slices: watermark capture failed — ${errors.join('; ')}`);
}
