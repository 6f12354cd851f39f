import fs from 'node:fs/promises';
import path from 'node:path';
import type { Watermark } from '../../sources';

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
