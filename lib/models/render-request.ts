import { AppError } from '../errors';
import { compileProject, type CompiledNode } from './compile';
import { parseProject, type ProjectFiles } from './project';
import type { LakeAccess } from './source-sql';
import type { DocBlock, ModelNode, Project, SeedNode, TestNode } from './types';

/**
 * What the rendering child process is asked to do (render-child.ts), as plain
 * JSON: parse a project (which renders every template once, dbt's parse
 * phase) or compile a selection. It is handed the files and everything the
 * templates may need, and reaches nothing else: no database, no lake, no
 * environment (dbt_project.yml's env_var() reads the `DBT_…` variables the
 * parent hands it in `env`). A lake table's location is asked of the parent
 * (`resolveSource`), which reads the catalog.
 */
export type RenderRequest =
  | { op: 'parse'; root: string; files: ProjectFiles; vars: Record<string, unknown>; env?: Record<string, string> }
  | {
    op: 'compile'; root: string; files: ProjectFiles; vars: Record<string, unknown>; env?: Record<string, string>;
    database: string; lake: LakeAccess; select?: string[]; exclude?: string[];
  };

/** A parsed project as JSON (Project holds Maps). */
export interface ParsedProject {
  root: string; name: string; macros: string; vars: Record<string, unknown>;
  models: ModelNode[]; tests: TestNode[]; seeds: SeedNode[]; docs?: DocBlock[]; errors: { path: string; message: string }[];
  warnings: { path: string; message: string }[];
}

export type RenderResult = ParsedProject | CompiledNode[];

export function toParsed(p: Project & { errors: { path: string; message: string }[] }): ParsedProject {
  return { root: p.root, name: p.name, macros: p.macros, vars: p.vars, models: [...p.models.values()], tests: [...p.tests.values()], seeds: [...p.seeds.values()], docs: p.docs, errors: p.errors, warnings: p.warnings };
}

export function fromParsed(p: ParsedProject): Project & { errors: { path: string; message: string }[] } {
  return {
    root: p.root, name: p.name, macros: p.macros, vars: p.vars, docs: p.docs, errors: p.errors, warnings: p.warnings ?? [],
    models: new Map(p.models.map((m) => [m.name, m])), tests: new Map(p.tests.map((t) => [t.name, t])), seeds: new Map((p.seeds ?? []).map((s) => [s.name, s])),
  };
}

/** Run one request; what the child process does with its stdin. */
export async function handleRenderRequest(req: RenderRequest, resolveSource: (ident: string) => Promise<string>): Promise<RenderResult> {
  const project = parseProject(req.root, req.files, req.vars, { env: req.env });
  if (req.op === 'parse') return toParsed(project);
  if (req.op !== 'compile') throw new AppError('bad_request', `models: unknown render request ${(req as { op: string }).op}`);
  return compileProject(project, {
    database: req.database, lake: req.lake, select: req.select, exclude: req.exclude,
    resolveSource,
  });
}
