import type pg from 'pg';
import { lastResults, type StoredResult } from './results-store';
import type { ColumnDoc, Project, TestNode } from './types';

/** What the Models page shows of a project: its files, models and tests with their last outcome. */
export interface ProjectView {
  root: string;
  name: string;
  files: { path: string; kind: 'model' | 'seed' | 'schema' | 'docs' | 'test' | 'macro' | 'project' }[];
  seeds: { name: string; path: string; tags: string[]; description?: string; columns?: ColumnDoc[]; last: LastRun | null }[];
  models: { name: string; path: string; materialized: string; tags: string[]; refs: string[]; sources: string[]; description?: string; columns?: ColumnDoc[]; last: LastRun | null }[];
  tests: { name: string; path: string; model?: string; refs: string[]; severity: string; type: string; last: LastRun | null }[];
  errors: { path: string; message: string }[];
  /** Settings read but not applied (unknown config keys, folder paths matching nothing). */
  warnings: { path: string; message: string }[];
}
export type LastRun = Pick<StoredResult, 'status' | 'rows' | 'durationMs' | 'error' | 'runId' | 'createdAt'>;

export function fileKind(path: string): ProjectView['files'][number]['kind'] {
  if (path === 'dbt_project.yml') return 'project';
  if (path.endsWith('.md')) return 'docs';
  if (path.startsWith('macros/')) return 'macro';
  if (path.startsWith('tests/')) return 'test';
  if (path.startsWith('seeds/') && path.endsWith('.csv')) return 'seed';
  return path.endsWith('.sql') ? 'model' : 'schema';
}

/**
 * The name Tributary gave a generic test before it took dbt's names
 * (`accepted_values_<model>_<column>` without the values,
 * `relationships_<model>_<column>__<field>__<to>`), so a project's last
 * results stay on the page until its next run.
 */
export function legacyTestName(t: TestNode): string | undefined {
  const g = t.generic;
  if (!g || !t.model) return undefined;
  if (g.type === 'accepted_values') return `accepted_values_${t.model}_${g.column}`;
  if (g.type === 'relationships') return `relationships_${t.model}_${g.column}__${g.field}__${g.to}`;
  return undefined;
}

export async function projectView(pool: pg.Pool, p: Project & { errors: { path: string; message: string }[] }, files: string[]): Promise<ProjectView> {
  const last = new Map<string, LastRun>();
  for (const r of await lastResults(pool)) last.set(`${r.kind}:${r.name}`, { status: r.status, rows: r.rows, durationMs: r.durationMs, error: r.error, runId: r.runId, createdAt: r.createdAt });
  return {
    root: p.root, name: p.name,
    files: files.sort().map((path) => ({ path, kind: fileKind(path) })),
    models: [...p.models.values()].sort((a, b) => a.name.localeCompare(b.name)).map((m) => ({
      name: m.name, path: m.path, materialized: m.config.materialized, tags: m.config.tags, refs: m.refs, sources: m.sources, description: m.description, columns: m.columns,
      last: last.get(`model:${m.name}`) ?? null,
    })),
    seeds: [...p.seeds.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({
      name: s.name, path: s.path, tags: s.config.tags, description: s.description, columns: s.columns, last: last.get(`seed:${s.name}`) ?? null,
    })),
    tests: [...p.tests.values()].sort((a, b) => a.name.localeCompare(b.name)).map((t) => ({
      name: t.name, path: t.path, model: t.model, refs: t.refs, severity: t.severity, type: t.generic?.type ?? 'singular',
      last: last.get(`test:${t.name}`) ?? (legacyTestName(t) ? last.get(`test:${legacyTestName(t)}`) : undefined) ?? null,
    })),
    errors: p.errors,
    warnings: p.warnings,
  };
}
