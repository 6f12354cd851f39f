import fs from 'node:fs/promises';
import path from 'node:path';
import type { Env } from '../config/env';
import type { FreshnessAlerts } from '../config/freshness';
import { jsonErrorPosition, parseTablesConfig, parseTablesSettings, TablesConfigError } from '../config/tables-json';
import { assembleExpectations } from './expectations';
import { parseYmlFreshness } from './schema-yml-freshness';
import type { AssetExpectation } from './status';

export interface FreshnessConfig {
  expectations: AssetExpectation[];
  /** tables.json's `freshness_alerts`; null: breaches are recorded and shown, no mail. */
  alerts: FreshnessAlerts | null;
  /** schema.yml freshness blocks that did not validate (skipped, the rest applies). */
  problems: string[];
}

export interface FreshnessSources {
  /** tables.json; a missing file declares nothing. */
  tablesFile: string;
  /** The models project (dbt layout); a missing folder declares nothing. */
  modelsDir: string;
  /** Lake namespace of tables.json's tables. (Default: etl) */
  namespace?: string;
}

/** The .yml / .yaml files below `dir` (skipping target/, dbt_packages/ and dot folders), as `{ path relative, text }`. */
async function ymlFiles(dir: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  const walk = async (d: string) => {
    let entries: import('node:fs').Dirent[];
    try { entries = await fs.readdir(d, { withFileTypes: true }); } catch { return; } // no project yet
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (!e.name.startsWith('.') && e.name !== 'target' && e.name !== 'dbt_packages' && e.name !== 'node_modules') await walk(p); }
      else if (/\.ya?ml$/.test(e.name) && e.name !== 'dbt_project.yml') out.push({ path: path.relative(dir, p), text: await fs.readFile(p, 'utf8') });
    }
  };
  await walk(dir);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** Read tables.json and the models project's schema.yml files; throws TablesConfigError when tables.json is invalid. */
export async function loadFreshnessConfig(src: FreshnessSources): Promise<FreshnessConfig> {
  let raw: unknown = [];
  let text: string | null = null;
  try { text = await fs.readFile(src.tablesFile, 'utf8'); } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new TablesConfigError(`${src.tablesFile}: cannot read (${(e as Error).message})`);
  }
  if (text !== null) {
    try { raw = JSON.parse(text); } catch (e) { throw new TablesConfigError(`${src.tablesFile}: not valid JSON (${jsonErrorPosition(e, text)})`); }
  }
  const file = path.basename(src.tablesFile);
  const defs = text === null ? [] : parseTablesConfig(raw, file);
  const settings = parseTablesSettings(raw, file);
  const yml = parseYmlFreshness(await ymlFiles(src.modelsDir));
  return { expectations: assembleExpectations(defs, settings, yml, src.namespace), alerts: settings.freshnessAlerts, problems: yml.problems };
}

/** Where this installation declares freshness: TRIBUTARY_TABLES_FILE and the models project (TRIBUTARY_MODELS_DIR, else `<data>/models`, as lib/models' projectDir). */
export function freshnessSources(env: Pick<Env, 'TRIBUTARY_TABLES_FILE' | 'TRIBUTARY_MODELS_DIR' | 'dataDir'>): FreshnessSources {
  return { tablesFile: env.TRIBUTARY_TABLES_FILE, modelsDir: env.TRIBUTARY_MODELS_DIR ?? path.join(env.dataDir, 'models') };
}
