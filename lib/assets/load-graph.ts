import { assetKey, freshnessReport, freshnessSources } from '../freshness';
import path from 'node:path';
import type pg from 'pg';
import type { Env } from '../config/env';
import { readTablesFile } from '../config/tables-file';
import { getBranches } from '../connections';
// settings.ts only, not the engine's entry: the web process reads the graph and must not load the ETL engine.
import { DEFAULT_SETTINGS } from '../etl/settings';
import { listFlows } from '../flows';
import { openLake, typeString } from '../lake';
import { lastResults, loadModelsProjectConfined } from '../models';
import { buildAssetGraph, type AssetInputs } from './build-graph';
import type { AssetGraph } from './types';

/** What reading the graph needs: the database and the process's settings. */
export interface AssetDeps { pool: pg.Pool; env: Env }

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** Rows a reader sees in a snapshot: live data rows minus rows marked deleted (Iceberg summary fields). */
function liveRows(summary: Record<string, string> | undefined): number | null {
  if (!summary || summary['total-records'] === undefined) return null;
  const num = (k: string) => Number(summary[k] ?? 0) || 0;
  return Math.max(0, num('total-records') - num('total-position-deletes') - num('total-equality-deletes'));
}

async function lakeTables(d: AssetDeps, problems: string[]): Promise<AssetInputs['lakeTables']> {
  const lake = openLake({ pool: d.pool, warehouse: d.env.warehouse, s3: d.env.s3 });
  const idents = await lake.listTables();
  return Promise.all(idents.map(async (ident) => {
    try {
      const t = await lake.loadTable(ident);
      const m = t.metadata();
      const schema = m.schemas.find((s) => s['schema-id'] === m['current-schema-id']);
      const snap = m.snapshots.find((s) => String(s['snapshot-id']) === String(m['current-snapshot-id']));
      return {
        ident, columns: schema ? schema.fields.map((f) => ({ name: f.name, type: typeString(f.type) })) : null,
        lastUpdated: new Date(m['last-updated-ms']).toISOString(), rows: liveRows(snap?.summary),
      };
    } catch (e) {
      problems.push(`lake table ${ident}: ${(e as Error).message}`);
      return { ident, columns: null, lastUpdated: null, rows: null };
    }
  }));
}

/** The models project's nodes; seeds (or other resource types) are taken from a `seeds` map or a node's `kind` when the project has them. */
async function projectNodes(d: AssetDeps, problems: string[]): Promise<Pick<AssetInputs, 'models' | 'tests'>> {
  const p = await loadModelsProjectConfined({ pool: d.pool, env: d.env });
  for (const e of p.errors) problems.push(`${e.path}: ${e.message}`);
  type Raw = { name: string; kind?: string; resource_type?: string; path: string; refs?: string[]; sources?: string[]; columns?: { name: string; data_type?: string }[] };
  const kindOf = (x: Raw): 'model' | 'seed' => ((x.kind ?? x.resource_type) === 'seed' ? 'seed' : 'model');
  const seeds = (p as unknown as { seeds?: Map<string, Raw> | Record<string, Raw> }).seeds;
  const seedList: Raw[] = seeds instanceof Map ? [...seeds.values()] : seeds ? Object.values(seeds) : [];
  const models = [...(p.models.values() as Iterable<Raw>), ...seedList.map((s) => ({ ...s, kind: 'seed' }))].map((x) => ({
    name: x.name, kind: kindOf(x), path: x.path, refs: x.refs ?? [], sources: x.sources ?? [], columns: x.columns,
  }));
  const tests = [...p.tests.values()].map((t) => ({ name: t.name, path: t.path, refs: t.refs, sources: t.sources }));
  return { models, tests };
}

/** Flows with each step's job spec: an inline kind and params, or its pipeline's. */
async function flowSteps(pool: pg.Pool): Promise<AssetInputs['flows']> {
  const flows = await listFlows(pool);
  const pipelines = new Map<string, { kind: string; params: Record<string, unknown> }>();
  const ids = [...new Set(flows.flatMap((f) => f.nodes.map((x) => x.pipeline).filter((v): v is string => !!v)))];
  if (ids.length) {
    const r = await pool.query('SELECT id::text AS id, kind, params FROM pipelines WHERE id::text = ANY($1::text[]) OR name = ANY($1::text[])', [ids]);
    for (const x of r.rows) { pipelines.set(x.id, { kind: x.kind, params: x.params }); }
  }
  return flows.map((f) => ({
    id: f.id, name: f.name,
    steps: f.nodes.flatMap((x) => {
      if (x.pipeline) { const p = pipelines.get(x.pipeline); return p ? [p] : []; }
      return x.kind ? [{ kind: x.kind, params: x.params ?? {} }] : [];
    }),
  }));
}

/** Read every part of the graph (tables.json, branches, lake, models project, run records, flows) and build it. */
export async function loadAssetGraph(d: AssetDeps, now = new Date()): Promise<AssetGraph> {
  const problems: string[] = [];
  const file = await readTablesFile(path.resolve(/*turbopackIgnore: true*/ d.env.TRIBUTARY_TABLES_FILE));
  if (file.error) problems.push(`tables.json: ${file.error}`);
  const branches = (await getBranches({ pool: d.pool, keys: { secret: d.env.TRIBUTARY_SECRET, dataDir: d.env.dataDir } })).map((b) => b.key);
  const [lake, project, flows, control, dq, results] = await Promise.all([
    lakeTables(d, problems),
    projectNodes(d, problems),
    flowSteps(d.pool),
    d.pool.query(`SELECT namespace, table_name, branch_id, status, row_count, last_run_finished_at, last_success_at, error_details FROM etl_meta.etl_control`),
    d.pool.query(`SELECT DISTINCT ON (table_name, branch_id) table_name, branch_id, status, checked_at, row_count_delta,
                         coalesce(hash_only_in_oracle, 0) + coalesce(hash_only_in_iceberg, 0) + coalesce(hash_mismatch, 0) AS mismatches,
                         hash_matched IS NULL AND hash_mismatch IS NULL AS no_hash, error_details
                    FROM etl_meta.etl_dq_results ORDER BY table_name, branch_id, checked_at DESC, id DESC`),
    lastResults(d.pool),
  ]);
  const graph = buildAssetGraph({
    namespace: DEFAULT_SETTINGS.namespace,
    tables: file.tables.map((t) => ({ lakeName: t.lakeName, source: t.source })),
    branches, lakeTables: lake, ...project, flows, now,
    control: control.rows.map((x) => ({
      namespace: x.namespace, table: x.table_name, branch: x.branch_id, status: x.status, rows: n(x.row_count),
      finishedAt: x.last_run_finished_at, lastSuccessAt: x.last_success_at, error: x.error_details,
    })),
    dq: dq.rows.map((x) => ({ table: x.table_name, branch: x.branch_id, status: x.status, checkedAt: x.checked_at, delta: n(x.row_count_delta), mismatches: x.no_hash ? null : n(x.mismatches), error: x.error_details })),
    results: results.map((r) => ({ kind: r.kind, name: r.name, status: r.status, rows: r.rows, at: r.createdAt, error: r.error ?? null })),
  });
  // Each lake table's and model's freshness against its expectation (the Freshness section's statuses).
  const freshness = await freshnessReport(d.pool, freshnessSources(d.env), now).catch((e) => {
    problems.push(`freshness: ${(e as Error).message}`);
    return null;
  });
  if (freshness) {
    const byAsset = new Map(freshness.assets.map((a) => [a.asset, a]));
    for (const node of graph.nodes) {
      const key = node.kind === 'lake' && node.ident ? assetKey('lake_table', node.ident) : node.kind === 'model' ? assetKey('model', node.name) : null;
      if (key) node.freshness = byAsset.get(key) ?? null;
    }
  }
  return { ...graph, problems: [...problems, ...graph.problems] };
}
