import { clickhouseDataset, locationDataset, type LineageDataset, type LineageDatasets, type LineageInputField } from '../lineage';
import { sourceIdent } from './project';
import type { Target } from './target';
import type { NodeResult, Project } from './types';

/**
 * `select a, b as c from {{ ref('x') }}` (or `source('ns', 't')`), nothing else: the only shape
 * whose column lineage is plain from the SQL text. Anything more (expressions, joins, `*`,
 * where clauses, CTEs) gives none rather than a guess.
 */
const PLAIN = /^\s*select\s+([\s\S]+?)\s+from\s+\{\{\s*(ref|source)\(\s*(['"])([^'"]+)\3(?:\s*,\s*(['"])([^'"]+)\5)?\s*\)\s*\}\}\s*;?\s*$/i;
const COLUMN = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/i;

/** Output column → input column of a plain select, or null. Exported for its unit test. */
export function plainColumnLineage(raw: string): { from: { ref?: string; source?: string }; columns: Record<string, string> } | null {
  // A `{{ config(...) }}` block and line comments change no column.
  const m = PLAIN.exec(raw.replace(/\{\{\s*config\([\s\S]*?\)\s*\}\}/g, '').replace(/--[^\n]*/g, ''));
  if (!m) return null;
  const columns: Record<string, string> = {};
  for (const part of m[1].split(',')) {
    const c = COLUMN.exec(part);
    if (!c) return null;
    columns[c[2] ?? c[1]] = c[1];
  }
  let from: { ref?: string; source?: string };
  try { from = m[2].toLowerCase() === 'ref' ? { ref: m[4] } : { source: sourceIdent(m[4], m[6]) }; } catch { return null; }
  return { from, columns };
}

/**
 * The datasets of a models run for OpenLineage: each model built is an output
 * (`clickhouse://host:port` + `database.model`) with its columns as the target
 * reports them and the rows written (tables, incremental); its refs and lake
 * sources are inputs; a plain select adds column lineage.
 */
export async function modelsLineage(project: Project, results: NodeResult[], target: Target, address: { host: string; port?: number },
  locate: (lakeIdent: string) => Promise<string>): Promise<LineageDatasets> {
  const built = results.filter((r) => r.kind === 'model' && r.status === 'success');
  if (!built.length) return { inputs: [], outputs: [] };
  const model = (name: string) => clickhouseDataset(address.host, address.port, target.database, name);
  const q = await target.query(`select table, name, type from system.columns where database = '${target.database.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}' order by table, position`);
  const columns = new Map<string, { name: string; type: string }[]>();
  for (const row of q.rows) {
    const t = String(row.table);
    if (!columns.has(t)) columns.set(t, []);
    columns.get(t)!.push({ name: String(row.name), type: String(row.type) });
  }
  const lakeSets = new Map<string, LineageDataset>();
  const lakeSet = async (ident: string) => {
    if (!lakeSets.has(ident)) lakeSets.set(ident, locationDataset(await locate(ident)));
    return lakeSets.get(ident)!;
  };
  const inputs = new Map<string, LineageDataset>();
  const outputs: LineageDataset[] = [];
  for (const r of built) {
    const node = project.models.get(r.name);
    if (!node) continue;
    for (const ref of node.refs) { const d = model(ref); inputs.set(`${d.namespace} ${d.name}`, d); }
    for (const src of node.sources) { const d = await lakeSet(src).catch(() => null); if (d) inputs.set(`${d.namespace} ${d.name}`, d); }
    const out: LineageDataset = { ...model(r.name), fields: columns.get(r.name) ?? [] };
    if (r.rows !== null && r.rows !== undefined) out.rowCount = r.rows;
    const plain = plainColumnLineage(node.raw);
    if (plain) {
      const from = plain.from.ref ? model(plain.from.ref) : await lakeSet(plain.from.source!).catch(() => null);
      if (from) {
        out.columnLineage = Object.fromEntries(Object.entries(plain.columns).map(([o, i]): [string, LineageInputField[]] => [o, [{ namespace: from.namespace, name: from.name, field: i }]]));
      }
    }
    outputs.push(out);
  }
  return { inputs: [...inputs.values()], outputs };
}
