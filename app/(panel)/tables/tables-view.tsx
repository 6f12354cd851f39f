'use client';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ACTIVE } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { startJob } from '../../_components/start-job';
import { useCan } from '../../_components/user-context';
import { useRunOutcome } from '../connections/use-run-outcome';
import { entryFromCatalog, suggestedChoice, type EntryChoice } from './entry-from-catalog';
import { useBranchPresence, type Presence } from './use-branch-presence';
import { PageHeader } from '../../_components/page-header';

interface TablesFile {
  file: string; version: string; entries: Record<string, unknown>[]; error: string | null;
  tables: { lakeName: string; source: string; category: string; uniqueKey: string[] }[];
}
interface CatalogTable { table: string; kind: string; columns: { name: string; type: string; nullable: boolean }[]; primaryKey: string[]; watermarkCandidates: { name: string; type: string }[] }
interface CatalogResult { schemas?: string[]; schema?: string; tables?: CatalogTable[] }

const PRESENCE_LABEL: Record<Presence['state'], string> = { checking: 'checking…', present: 'present', missing: 'missing', error: 'error', unchecked: '—' };
const PRESENCE_BADGE: Record<Presence['state'], string> = { checking: 'badge-running', present: 'badge-succeeded', missing: 'badge-failed', error: 'badge-cancelled', unchecked: 'badge-muted' };

const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : v === undefined || v === null ? '' : String(v));

/**
 * The Tables page: what tables.json loads, edited through its schema. Pick a
 * source connection, browse its catalog (a `connections.catalog` job, so the
 * web process never connects to a source), add tables with the suggested key
 * and watermark, and save: validated naming the entry and field, written
 * atomically; the CLI reads the same file.
 */
export function TablesView() {
  const canEdit = useCan('admin');
  const canCheck = useCan('operator');
  const qc = useQueryClient();
  const file = useQuery({ queryKey: ['tables-file'], queryFn: () => api<TablesFile>('/api/v1/tables') });
  const conns = useQuery({ queryKey: ['connections'], queryFn: () => api<{ connections: { name: string; kind: string; isBranch?: boolean; branchKey?: string | null }[] }>('/api/v1/connections') });
  const branches = (conns.data?.connections ?? []).filter((c) => c.isBranch);
  const presence = useBranchPresence();
  const [draft, setDraft] = useState<Record<string, unknown>[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [connection, setConnection] = useState('');
  const [schema, setSchema] = useState('');
  const [browseJob, setBrowseJob] = useState<string | null>(null);
  const [picks, setPicks] = useState<Record<string, EntryChoice & { on: boolean }>>({});
  const browse = useRunOutcome(browseJob);
  const entries = draft ?? file.data?.entries ?? [];
  const dirty = draft !== null;
  const sources = (conns.data?.connections ?? []).filter((c) => c.kind === 'postgres' || c.kind === 'oracle');
  const result = browse.data && !ACTIVE.includes(browse.data.status) ? browse.data : null;
  const catalog = result?.status === 'succeeded' ? (result.result as CatalogResult) : null;
  const present = new Set(entries.map((e) => String(e.table).toLowerCase()));

  const startBrowse = async (s: string) => {
    setError(null); setPicks({});
    try { setBrowseJob(await startJob('connections.catalog', { name: connection, ...(s ? { schema: s } : {}) })); } catch (e) { setError(e); }
  };
  const addPicked = () => {
    const add = (catalog?.tables ?? []).filter((t) => picks[t.table]?.on).map((t) => entryFromCatalog(t, picks[t.table]));
    setDraft([...entries, ...add]);
    setPicks({});
    setNote(`${add.length} table(s) added: save to write tables.json`);
  };
  const save = async () => {
    setError(null); setNote(null);
    try {
      await api('/api/v1/tables', { method: 'PUT', body: { entries, version: file.data?.version ?? '' } });
      setDraft(null);
      setNote('Saved.');
      await qc.invalidateQueries({ queryKey: ['tables-file'] });
    } catch (e) { setError(e); }
  };

  return (
    <div className="page">
      <PageHeader title="Tables" sub={<>What every ETL run loads from each branch: <code>{file.data?.file ?? 'tables.json'}</code>, edited through its schema. The CLI reads the same file.</>} />
      {file.data?.error && <p className="form-error" role="alert" data-testid="tables-file-error">{file.data.error}</p>}
      <section className="card card-flush">
        <div className="card-head">
          <h2>Entries</h2>
          <span className="muted small">{entries.length} table(s){dirty ? ' · unsaved changes' : ''}</span>
          {canCheck && branches.length > 0 && (
            // One connections.test job per branch (the worker connects): it checks the saved file, so unsaved entries read "—".
            <button type="button" className="btn btn-small" disabled={presence.checking} title="Test each branch connection: which saved entries it has"
              onClick={() => void presence.check(branches.map((b) => b.name))}>{presence.checking ? 'Checking branches…' : 'Check branches'}</button>
          )}
        </div>
        <FormError error={presence.startError} />
        <div className="table-scroll">
          <table className="table table-compact" data-testid="tables-entries">
            <thead><tr><th>Source table</th><th>Key</th><th>Watermark</th><th>Category</th><th>Initial range</th>
              {branches.map((b) => <th key={b.name} data-branch={b.name} title={`connection ${b.name}`}>{b.branchKey ?? b.name}</th>)}
              {canEdit && <th />}</tr></thead>
            <tbody>
              {entries.map((e, i) => (
                <tr key={`${String(e.table)}-${i}`} data-table={String(e.table)}>
                  <td className="mono small">{String(e.name ?? e.table).slice(0, 80)}</td>
                  <td className="mono small">{list(e.unique_key)}</td>
                  <td className="mono small">{list(e.cdc_column) || <span className="muted">full load</span>}</td>
                  <td>{list(e.category) || <span className="muted">auto</span>}</td>
                  <td className="small">{e.where_operator ? `${list(e.where_date_column)} ${list(e.where_operator)} ${list(e.where_value_of_initial_run)}` : '—'}</td>
                  {branches.map((b) => {
                    const p = presence.presence(b.name, String(e.table));
                    return (
                      <td key={b.name} data-branch={b.name} data-presence={p.state}>
                        <span className={`badge ${PRESENCE_BADGE[p.state]}`} title={'why' in p ? p.why : undefined}>{PRESENCE_LABEL[p.state]}</span>
                      </td>
                    );
                  })}
                  {canEdit && <td className="right"><button type="button" className="btn btn-ghost btn-small" onClick={() => setDraft(entries.filter((_, j) => j !== i))}>Remove</button></td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {canEdit && (
          <div className="form-actions" style={{ padding: '8px 14px' }}>
            <button type="button" className="btn btn-primary" disabled={!dirty} onClick={() => void save()}>Save tables.json</button>
            {dirty && <button type="button" className="btn btn-ghost" onClick={() => { setDraft(null); setNote(null); }}>Discard changes</button>}
            {note && <span className="muted small" role="status" data-testid="tables-note">{note}</span>}
          </div>
        )}
        <FormError error={error} />
      </section>

      {canEdit && (
        <section className="card" data-testid="tables-browse">
          <h2>Add tables from a source</h2>
          <div className="form-grid">
            <label className="field"><span>Connection</span>
              <select name="connection" value={connection} onChange={(e) => { setConnection(e.target.value); setSchema(''); setBrowseJob(null); }}>
                <option value="">pick a postgres or oracle connection</option>
                {sources.map((c) => <option key={c.name} value={c.name}>{c.name} ({c.kind})</option>)}
              </select>
            </label>
            <div className="form-actions"><button type="button" className="btn" disabled={!connection} onClick={() => void startBrowse('')}>Browse schemas</button></div>
            {catalog?.schemas && (
              <label className="field"><span>Schema</span>
                <select name="schema" value={schema} onChange={(e) => { setSchema(e.target.value); if (e.target.value) void startBrowse(e.target.value); }}>
                  <option value="">pick a schema</option>
                  {catalog.schemas.map((s) => <option key={s} value={s}>{s}</option>)}
                </select>
              </label>
            )}
          </div>
          {browseJob && !result && <p className="muted small" role="status">Reading the catalog…</p>}
          {result && result.status !== 'succeeded' && <p className="form-error" role="alert">Could not read the catalog: {result.error}</p>}
          {catalog?.tables && schema && (
            <>
              <table className="table table-compact" data-testid="catalog-tables">
                <thead><tr><th /><th>Table</th><th>Kind</th><th>Key</th><th>Watermark</th><th>Category</th></tr></thead>
                <tbody>
                  {catalog.tables.map((t) => {
                    const added = present.has(t.table.toLowerCase());
                    const p = picks[t.table] ?? { ...suggestedChoice(t), on: false };
                    const set = (patch: Partial<typeof p>) => setPicks({ ...picks, [t.table]: { ...p, ...patch } });
                    return (
                      <tr key={t.table} data-table={t.table}>
                        <td><input type="checkbox" aria-label={`add ${t.table}`} disabled={added} checked={p.on} onChange={(e) => set({ on: e.target.checked })} /></td>
                        <td className="mono small">{t.table}{added && <span className="muted small"> · in tables.json</span>}</td>
                        <td className="small">{t.kind}</td>
                        <td><input name={`key-${t.table}`} aria-label={`key of ${t.table}`} value={p.key.join(', ')} placeholder={t.primaryKey.length ? '' : 'no primary key: name the key'}
                          onChange={(e) => set({ key: e.target.value.split(/[,\s]+/).filter(Boolean) })} /></td>
                        <td>
                          <select aria-label={`watermark of ${t.table}`} value={p.watermark ?? ''} onChange={(e) => set({ watermark: e.target.value || null })}>
                            <option value="">none (full load)</option>
                            {t.watermarkCandidates.map((c) => <option key={c.name} value={c.name}>{c.name} ({c.type})</option>)}
                          </select>
                        </td>
                        <td>
                          <select aria-label={`category of ${t.table}`} value={p.category} onChange={(e) => set({ category: e.target.value as EntryChoice['category'] })}>
                            <option value="masters">masters</option><option value="transactions">transactions</option>
                          </select>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              <div className="form-actions"><button type="button" className="btn btn-primary" disabled={!Object.values(picks).some((p) => p.on)} onClick={addPicked}>Add selected</button></div>
            </>
          )}
        </section>
      )}
    </div>
  );
}
