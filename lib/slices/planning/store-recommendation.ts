import path from 'node:path';
import type pg from 'pg';
import { writeTextFile } from './queryfile';
import type { Recommendation } from './recommendation';

/** `<dataDir>/runs/<runId>/` — the run folder sidecars land in. */
export function runFolder(dataDir: string, runId: number): string {
  return path.join(dataDir, 'runs', String(runId));
}

/**
 * Keep a recommendation: `probe_recommendation.json` in `dir` and one row of
 * slice_probe_recommendations. Returns the file path and the row id.
 */
export async function storeRecommendation(pool: pg.Pool | null, rec: Recommendation, dir: string): Promise<{ file: string; id: string | null }> {
  const file = path.join(dir, 'probe_recommendation.json');
  await writeTextFile(file, JSON.stringify(rec, null, 2) + '\n');
  if (!pool) return { file, id: null };
  const r = await pool.query<{ id: string }>(
    `INSERT INTO slice_probe_recommendations (run_id, table_name, engine, depth, strategy, key, chunk_count, concurrency, winner_mb_per_sec, segment_bytes, recommendation)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id::text AS id`,
    [rec.run_id, rec.table, rec.engine, rec.depth, rec.strategy, rec.key, rec.chunk_count,
      typeof rec.concurrency === 'number' ? rec.concurrency : null, rec.winner_MB_per_sec, rec.segment_bytes, JSON.stringify(rec)],
  );
  return { file, id: r.rows[0].id };
}

/** The latest stored recommendation of a run, or null. */
export async function latestRecommendation(pool: pg.Pool, runId: number): Promise<Recommendation | null> {
  const r = await pool.query(`SELECT recommendation FROM slice_probe_recommendations WHERE run_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, [runId]);
  return (r.rows[0]?.recommendation as Recommendation) ?? null;
}
