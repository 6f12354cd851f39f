import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from '../../testing/pg';
import { createPgExecutor, PostgresDialect, type SourceExecutor } from '../../sources';
import { runProbe } from './probe';
import { chunkCount, concurrencyKnee, formatPanel, rankCandidates, type CandidateResult } from './recommendation';
import { latestRecommendation, storeRecommendation } from './store-recommendation';
import { parseTemplate } from './template';
import { buildSourceTables } from './testing-source';

let src: { url: string; drop(): Promise<void> };
let db: TestDatabase;
let exec: SourceExecutor;
let dir: string;

beforeAll(async () => {
  src = await createScratchDatabase('src');
  await buildSourceTables(src.url, { rows: 300_000, partRows: 40_000 });
  const c = new pg.Client({ connectionString: src.url });
  await c.connect();
  await c.query('CREATE TABLE public.resp AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 150000) g; ANALYZE public.resp');
  await c.end();
  db = await createTestDatabase();
  exec = await createPgExecutor(src.url);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'probe-'));
});
afterAll(async () => {
  await exec?.close();
  await db?.drop();
  await src?.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Every statement that reads the source table's rows is capped: LIMIT wrapper, TABLESAMPLE+LIMIT, or EXPLAIN. */
function assertBounded(e: SourceExecutor, sampleRows: number, budgetMs: number) {
  expect(e.log.length).toBeGreaterThan(0);
  for (const s of e.log) {
    expect(s.readOnly).toBe(true);
    expect(s.timeoutMs).toBeGreaterThan(0);
    if (!/\bpublic\.(big|events|resp)\b/.test(s.sql)) continue;
    if (s.purpose === 'timing') {
      expect(s.sql).toMatch(new RegExp(`^DECLARE tributary_probe NO SCROLL CURSOR FOR SELECT \\* FROM \\(.*\\) tributary_cap LIMIT ${sampleRows}$`));
      expect(s.timeoutMs).toBeLessThanOrEqual(budgetMs);
    } else if (s.purpose === 'sample') {
      expect(s.sql).toMatch(/TABLESAMPLE SYSTEM \([\d.e-]+\) WHERE .* LIMIT \d+\) q ORDER BY q\.v$/);
    } else {
      expect(s.purpose).toBe('explain');
      expect(s.sql).toMatch(/^EXPLAIN \(FORMAT JSON, VERBOSE\) /);
    }
  }
}

describe('probe on real Postgres', () => {
  it('bakeoff: races ctid and indexed columns, measures MB/s, recommends, never scans uncapped', async () => {
    exec.log.length = 0;
    const t = parseTemplate('SELECT s.id, s.created_at, s.amount, s.note FROM public.big s WHERE ~SPLIT~', { table: 'public.big' });
    const rec = await runProbe({ dialect: new PostgresDialect(exec), template: t, depth: 'bakeoff', sampleRows: 20_000, timeBudgetSeconds: 20, targetSliceSeconds: 1, runId: 7, queryFile: 'q.sql' });
    expect(rec.candidates.map((c) => c.label)).toEqual(['ctid', 'id', 'created_at']);
    for (const c of rec.candidates) {
      expect(c.verdict).toBe('good');
      expect(c.rows).toBe(20_000);
      expect(c.mbPerSec).toBeGreaterThan(0);
    }
    expect(rec.candidates[0].accessPath).toBe('Tid Range Scan');
    expect(rec.winner_MB_per_sec).toBeGreaterThan(0);
    expect(['rowid', 'column']).toContain(rec.strategy);
    expect(rec.chunk_count).toBe(chunkCount(rec.segment_bytes, 1, rec.winner_MB_per_sec));
    expect(rec.concurrency).toBe('keep configured');
    expect(rec.partitioned).toBe(false);
    const panel = formatPanel(rec);
    expect(panel).toContain('PROBE RECOMMENDATION');
    expect(panel).toMatch(/\n {2}ctid {11}physical +\d+\.\d\d {2}Tid Range Scan +good/);
    assertBounded(exec, 20_000, 20_000);

    const stored = await storeRecommendation(db.pool, rec, path.join(dir, 'runs', '7'));
    const file = JSON.parse(await fs.readFile(stored.file, 'utf8'));
    expect(file).toMatchObject({ strategy: rec.strategy, chunk_count: rec.chunk_count, table: 'public.big', query_file: 'q.sql', depth: 'bakeoff' });
    expect((await latestRecommendation(db.pool, 7))?.chunk_count).toBe(rec.chunk_count);
  });

  it('lightweight times only the physical slice; partitioned tables are noted', async () => {
    exec.log.length = 0;
    const t = parseTemplate('SELECT e.* FROM public.events e', { table: 'public.events' });
    const rec = await runProbe({ dialect: new PostgresDialect(exec), template: t, depth: 'lightweight', sampleRows: 5000 });
    expect(rec.candidates.map((c) => c.kind)).toEqual(['physical']);
    expect(rec.partitioned).toBe(true);
    expect(formatPanel(rec)).toContain('partition: table IS partitioned — consider --strategy partition');
    assertBounded(exec, 5000, 20_000);
  });

  it('flags AMPLIFYING when a large inner table is fully scanned per slice', async () => {
    exec.log.length = 0;
    const t = parseTemplate('SELECT s.id, r.k FROM public.big s JOIN public.resp r ON r.id = s.id WHERE ~SPLIT~', { table: 'public.big' });
    const rec = await runProbe({ dialect: new PostgresDialect(exec), template: t, depth: 'bakeoff', sampleRows: 5000, maxColumns: 1 });
    expect(rec.candidates.every((c) => c.verdict === 'AMPLIFYING')).toBe(true);
    expect(rec.warnings).toContain("AMPLIFYING: candidate 'ctid' full-scans public.resp (join amplification)");
    expect(formatPanel(rec)).toContain("    - AMPLIFYING: candidate 'ctid' full-scans public.resp (join amplification)");
    assertBounded(exec, 5000, 20_000);
  });

  it('adaptive ramps concurrency 1, 2, 4 and stops at the knee', async () => {
    exec.log.length = 0;
    const t = parseTemplate('SELECT s.* FROM public.big s WHERE ~SPLIT~', { table: 'public.big' });
    const rec = await runProbe({ dialect: new PostgresDialect(exec), template: t, depth: 'adaptive', sampleRows: 10_000, maxConcurrency: 4, maxColumns: 1 });
    expect(rec.ramp.length).toBeGreaterThanOrEqual(2);
    expect(rec.ramp.map((s) => s.k)).toEqual([1, 2, 4].slice(0, rec.ramp.length));
    expect(typeof rec.concurrency).toBe('number');
    expect(rec.concurrency).toBe(concurrencyKnee(rec.ramp));
    assertBounded(exec, 10_000, 20_000);
  });
});

describe('probe arithmetic', () => {
  const c = (label: string, kind: 'physical' | 'column', mbPerSec: number, verdict: CandidateResult['verdict'] = 'good'): CandidateResult =>
    ({ label, kind, mbPerSec, rowsPerSec: 1, rows: 10, bytes: 1, seconds: 1, timedOut: false, accessPath: '', verdict, fullScans: [] });
  it('chunk count = ceil(segment / (target seconds × MB/s))', () => {
    expect(chunkCount(64 * 1024 * 1024 * 600, 600, 1)).toBe(64);
    expect(chunkCount(64 * 1024 * 1024 * 600 + 1, 600, 1)).toBe(65);
    expect(chunkCount(10, 600, 0)).toBe(1);
  });
  it('ranks by MB/s among non-amplifying plans, ties to physical', () => {
    expect(rankCandidates([c('ROWID', 'physical', 28.1), c('CREATED_DT', 'column', 41.2), c('ENTITY_ID', 'column', 90, 'AMPLIFYING')])?.label).toBe('CREATED_DT');
    expect(rankCandidates([c('ROWID', 'physical', 40), c('CREATED_DT', 'column', 41.2)])?.label).toBe('ROWID');
    expect(rankCandidates([c('X', 'column', 5, 'AMPLIFYING')])).toBeUndefined();
  });
  it('knee: stop doubling when the gain falls under 15%', () => {
    expect(concurrencyKnee([{ k: 1, mbPerSec: 10 }, { k: 2, mbPerSec: 19 }, { k: 4, mbPerSec: 36 }, { k: 8, mbPerSec: 38 }])).toBe(4);
    expect(concurrencyKnee([{ k: 1, mbPerSec: 10 }, { k: 2, mbPerSec: 10.5 }])).toBe(1);
  });
});
