import YAML from 'yaml';
import { parseFreshnessBlock, type FreshnessExpectation } from '../config/freshness';

/**
 * The freshness expectations a models project's schema.yml files declare, as
 * dbt declares them:
 * - sources: `sources: - name: etl, freshness: {…}, loaded_at_field: …,
 *   tables: - name: customers, freshness: {…}` — a table's block overrides
 *   its source's, `freshness: null` on a table switches it off. A source
 *   names lake tables as `source()` does (lib/models/project.ts sourceIdent):
 *   source `etl` table `customers` → lake table `etl.customers`; source
 *   `lake` table `etl.customers` → `etl.customers`;
 * - models: `models: - name: m, config: { freshness: {warn_after, error_after} }`.
 * `loaded_at_field` and `filter` are accepted (dbt projects carry them) but
 * Tributary measures a lake table's age from its last successful load.
 * Pure: the caller hands in the files' text.
 */
export interface YmlFreshness {
  /** Lake table (`namespace.table`) → expectation (null: switched off). */
  lakeTables: Map<string, FreshnessExpectation | null>;
  /** Model name → expectation. */
  models: Map<string, FreshnessExpectation>;
  problems: string[];
}

const SOURCE_KEYS = ['loaded_at_field', 'filter'] as const;
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : null);

export function parseYmlFreshness(files: { path: string; text: string }[]): YmlFreshness {
  const out: YmlFreshness = { lakeTables: new Map(), models: new Map(), problems: [] };
  for (const f of files) {
    let doc: unknown;
    try { doc = YAML.parse(f.text); } catch { continue; } // the models engine reports a broken schema.yml; freshness reads what parses
    const root = obj(doc);
    if (!root) continue;
    const at = (where: string, list: string[]) => out.problems.push(...list.map((p) => `${f.path}: ${where}: ${p}`));
    if (Array.isArray(root.sources)) {
      root.sources.forEach((s, i) => {
        const src = obj(s);
        const name = typeof src?.name === 'string' ? src.name : '';
        if (!src || !name) return;
        let srcFresh: FreshnessExpectation | null | undefined;
        if ('freshness' in src) {
          const r = parseFreshnessBlock(src.freshness, 'freshness', SOURCE_KEYS);
          if (r.problems.length) at(`sources[${i}] (${name})`, r.problems); else srcFresh = r.value;
        }
        const tables = Array.isArray(src.tables) ? src.tables : [];
        tables.forEach((t, j) => {
          const tbl = obj(t);
          const tname = typeof tbl?.name === 'string' ? tbl.name : '';
          if (!tbl || !tname) return;
          const lake = name === 'lake' ? tname : `${name}.${tname}`;
          if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$/.test(lake)) return; // not a lake table source() can name
          let fresh = srcFresh;
          if ('freshness' in tbl) {
            const r = parseFreshnessBlock(tbl.freshness, 'freshness', SOURCE_KEYS);
            if (r.problems.length) { at(`sources[${i}].tables[${j}] (${name}.${tname})`, r.problems); return; }
            fresh = r.value;
          }
          if (fresh !== undefined) out.lakeTables.set(lake.toLowerCase(), fresh);
        });
      });
    }
    if (Array.isArray(root.models)) {
      root.models.forEach((m, i) => {
        const mo = obj(m);
        const name = typeof mo?.name === 'string' ? mo.name : '';
        const cfg = obj(mo?.config);
        if (!mo || !name || !cfg || !('freshness' in cfg) || cfg.freshness === null) return;
        const r = parseFreshnessBlock(cfg.freshness, 'config.freshness');
        if (r.problems.length) at(`models[${i}] (${name})`, r.problems); else if (r.value) out.models.set(name, r.value);
      });
    }
  }
  return out;
}
