import type { FreshnessExpectation } from '../config/freshness';
import type { TableDef, TablesSettings } from '../config/tables-json';
import type { YmlFreshness } from './schema-yml-freshness';
import { assetKey, type AssetExpectation } from './status';

/**
 * Every asset's expectation, from tables.json and the models project. For a
 * lake table the most specific declaration wins: the tables.json entry's own
 * `freshness`, then schema.yml (table over source), then tables.json's
 * top-level default. `null` anywhere in that order switches it off. Pure.
 * @param namespace the lake namespace tables.json loads into (Default: etl)
 */
export function assembleExpectations(defs: TableDef[], settings: TablesSettings, yml: YmlFreshness, namespace = 'etl'): AssetExpectation[] {
  const out: AssetExpectation[] = [];
  const seen = new Set<string>();
  const lake = (name: string, e: FreshnessExpectation | null, declaredIn: string) => {
    seen.add(name);
    if (e) out.push({ asset: assetKey('lake_table', name), kind: 'lake_table', name, expectation: e, declaredIn });
  };
  for (const d of defs) {
    const name = `${namespace}.${d.lakeName}`.toLowerCase();
    if (d.freshness !== undefined) lake(name, d.freshness, 'tables.json');
    else if (yml.lakeTables.has(name)) lake(name, yml.lakeTables.get(name)!, 'schema.yml');
    else lake(name, settings.freshness, 'tables.json default');
  }
  // Lake tables schema.yml names that tables.json does not load (another namespace, a foreign writer).
  for (const [name, e] of yml.lakeTables) if (!seen.has(name)) lake(name, e, 'schema.yml');
  for (const [name, e] of yml.models) out.push({ asset: assetKey('model', name), kind: 'model', name, expectation: e, declaredIn: 'schema.yml' });
  return out.sort((a, b) => a.asset.localeCompare(b.asset));
}
