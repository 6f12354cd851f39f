import { stringify } from 'smol-toml';
import type { ConnectionView } from './store';

const SECTION = { oracle: 'oracle_branches', postgres: 'postgres_branches' } as const;

/** TOML holds no null: a param set to null (or an unrepresentable value) is left out. */
function tomlValue(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) return v.map(tomlValue).filter((x) => x !== undefined);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, tomlValue(x)]).filter(([, x]) => x !== undefined));
  return v;
}

/**
 * Branch connections as the seed's `[oracle_branches.<key>]` /
 * `[postgres_branches.<key>]` sections (what `connectionsFromToml` reads back),
 * non-secret fields only: the names of the stored secrets are a comment, never
 * their values, so an import of this file keeps them.
 */
export function connectionsToToml(list: ConnectionView[]): string {
  const branches = list.filter((c) => c.isBranch && !c.builtIn && (c.kind === 'oracle' || c.kind === 'postgres'))
    .sort((a, b) => (a.branchKey ?? a.name).localeCompare(b.branchKey ?? b.name));
  const lines = ['# Tributary branch connections: non-secret fields only.', '# Secrets stay in the panel; importing this file keeps the stored ones.', ''];
  for (const c of branches) {
    const section = SECTION[c.kind as keyof typeof SECTION];
    const key = c.branchKey ?? c.name;
    const body = stringify({ [section]: { [key]: tomlValue(c.params) ?? {} } }).trim();
    if (c.secretKeys.length) lines.push(`# secrets stored for ${key} (not exported): ${c.secretKeys.join(', ')}`);
    // An empty params table still needs its header, so the branch round-trips.
    lines.push(body || `[${section}.${key}]`, '');
  }
  return lines.join('\n');
}
