import { buildGraph } from './graph';
import { assertParsed } from './project';
import { renderModel, renderTest } from './render';
import { NOTHING_TO_DO, selectNodes } from './selector';
import { renderSource, type LakeAccess } from './source-sql';
import type { Node, Project } from './types';

/**
 * Where a node's compiled SQL goes below `target/compiled/<project>/`, as
 * dbt lays it out: its own path, or for a generic test, below its schema.yml
 * by its alias (`models/schema.yml/unique_orders_order_id.sql`).
 */
export function compiledPath(node: Node): string {
  return node.kind === 'test' && node.generic ? `${node.path}/${node.alias ?? node.name}.sql` : node.path;
}

/** A rendered node; `path` is below target/compiled/<project>/ (compiledPath). */
export interface CompiledNode { name: string; kind: 'model' | 'test'; path: string; sql?: string; error?: string }

/**
 * Render the selected models and tests as they would run, without touching
 * the target (is_incremental() answers false: compile shows the full build).
 * The caller writes them under target/compiled/.
 */
export async function compileProject(p: Project & { errors?: { path: string; message: string }[] }, o: {
  database: string; lake: LakeAccess; select?: string[]; exclude?: string[]; resolveSource(ident: string): Promise<string>;
  /** What the selection warns of, as dbt does: a criterion matching nothing, nothing to do. (Default: not told) */
  onWarning?(message: string): void;
}): Promise<CompiledNode[]> {
  if (p.errors) assertParsed({ errors: p.errors });
  const g = buildGraph(p);
  const chosen = selectNodes(p, g, o.select ?? [], o.exclude ?? [], o.onWarning);
  const resolved = new Map<string, string>();
  const env = { database: o.database, source: (id: string) => resolved.get(id)! };
  const out: CompiledNode[] = [];
  // seeds have nothing to render: their CSV is loaded as it is
  const ids = [...g.order.filter((id) => id.startsWith('model:')), ...[...p.tests.keys()].sort().map((n) => `test:${n}`)].filter((id) => chosen.has(id));
  if (ids.length === 0) o.onWarning?.(NOTHING_TO_DO);
  for (const id of ids) {
    const isModel = id.startsWith('model:');
    const node = isModel ? p.models.get(id.slice(6))! : p.tests.get(id.slice(5))!;
    const path = compiledPath(node);
    try {
      for (const s of node.sources) if (!resolved.has(s)) resolved.set(s, renderSource(await o.resolveSource(s), o.lake));
      const sql = node.kind === 'model' ? renderModel(p, node, env) : renderTest(p, node, env);
      out.push({ name: node.name, kind: node.kind, path, sql });
    } catch (e) { out.push({ name: node.name, kind: node.kind, path, error: (e as Error).message }); }
  }
  return out;
}
