import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors';
import { parseTablesConfig, TableEntrySchema, TablesConfigError, type TableDef } from './tables-json';

/** tables.json as the Tables page edits it: the entries as written, their lake names, and a version to save against. */
export interface TablesFileView {
  file: string;
  /** SHA-256 of the file's bytes ('' when it does not exist yet): a save names it, so two editors never overwrite each other. */
  version: string;
  entries: unknown[];
  /** The file's top-level settings when it is the object form `{ "naming": …, "tables": [...] }` (kept on save); null for a plain array. */
  settings: Record<string, unknown> | null;
  /** Each entry's lake table, category and key, when the file is valid. */
  tables: { lakeName: string; source: string; category: string; uniqueKey: string[] }[];
  /** Why the file on disk is not valid (then `tables` is empty). */
  error: string | null;
}

const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

export async function readTablesFile(file: string): Promise<TablesFileView> {
  let text: string;
  try { text = await fs.readFile(file, 'utf8'); } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { file, version: '', entries: [], settings: null, tables: [], error: null };
    throw e;
  }
  let raw: unknown;
  try { raw = JSON.parse(text); } catch { return { file, version: sha(text), entries: [], settings: null, tables: [], error: `${path.basename(file)}: not valid JSON` }; }
  const { entries, settings } = splitFile(raw);
  try {
    const defs = parseTablesConfig(raw, path.basename(file));
    return { file, version: sha(text), entries, settings, tables: defs.map(summary), error: null };
  } catch (e) {
    return { file, version: sha(text), entries, settings, tables: [], error: (e as Error).message };
  }
}

/** A plain array of entries, or the object form whose `tables` are the entries and whose other keys are file-wide settings. */
function splitFile(raw: unknown): { entries: unknown[]; settings: Record<string, unknown> | null } {
  if (Array.isArray(raw)) return { entries: raw, settings: null };
  if (raw && typeof raw === 'object' && Array.isArray((raw as { tables?: unknown }).tables)) {
    const { tables, ...settings } = raw as { tables: unknown[] };
    return { entries: tables, settings };
  }
  return { entries: [], settings: null };
}

const summary = (d: TableDef) => ({ lakeName: d.lakeName, source: d.source, category: d.category, uniqueKey: d.uniqueKey });

/** The field of the first invalid entry (`tables[2].unique_key`), checking entries one by one and then together (duplicates). */
function firstBadField(entries: unknown[]): string {
  for (const [i, e] of entries.entries()) {
    const r = TableEntrySchema.safeParse(e);
    if (!r.success) {
      const iss = r.error.issues[0];
      const key = iss.code === 'unrecognized_keys' ? iss.keys[0] : iss.path.join('.');
      return key ? `tables[${i}].${key}` : `tables[${i}]`;
    }
    try { parseTablesConfig([e]); } catch (x) {
      const m = /field (\w+)/.exec((x as Error).message);
      return m ? `tables[${i}].${m[1]}` : `tables[${i}]`;
    }
  }
  const dup = /entry (\d+)/.exec((() => { try { parseTablesConfig(entries); return ''; } catch (x) { return (x as Error).message; } })());
  return dup ? `tables[${dup[1]}].name` : 'tables';
}

/**
 * Validate and write tables.json atomically (a temporary file in the same
 * folder, flushed, then renamed over it: a reader sees the old file or the
 * new one, never half of it). `version` must be the one the editor read;
 * another save since is a conflict, and nothing is written.
 */
export async function saveTablesFile(file: string, entries: unknown[], version: string): Promise<TablesFileView> {
  const current = await readTablesFile(file);
  // The object form keeps its file-wide settings (a default `naming`): only the entries are edited here.
  const content: unknown = current.settings ? { ...current.settings, tables: entries } : entries;
  try {
    parseTablesConfig(content, path.basename(file));
  } catch (e) {
    if (!(e instanceof TablesConfigError)) throw e;
    const field = firstBadField(entries);
    throw new AppError('validation', `tables: ${field}: ${e.message}`, { field });
  }
  if (current.version !== version) throw new AppError('conflict', `tables: ${path.basename(file)} changed since it was read (someone saved it, or it was edited on disk): reload and apply your change again`, { field: 'version' });
  const text = `${JSON.stringify(content, null, 2)}\n`;
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const h = await fs.open(tmp, 'wx', 0o644);
  try {
    await h.writeFile(text, 'utf8');
    await h.sync();
  } finally {
    await h.close();
  }
  try { await fs.rename(tmp, file); } catch (e) { await fs.rm(tmp, { force: true }); throw e; }
  return readTablesFile(file);
}
