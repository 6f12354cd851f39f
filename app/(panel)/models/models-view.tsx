'use client';
import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { useCan } from '../../_components/user-context';
import { ModelDag } from './model-dag';
import { ModelDocs } from './model-docs';
import { QueryBox } from './query-box';
import { ResultsTable } from './results-table';
import { RunPanel } from './run-panel';
import { SqlEditor } from './sql-editor';
import type { NodeResult, ProjectData, ProjectModel } from './types';
import css from './models.module.css';
import { newFilePath } from './new-file-path';
import { PageHeader } from '../../_components/page-header';

const GROUPS: [ProjectData['files'][number]['kind'], string][] = [['model', 'Models'], ['seed', 'Seeds'], ['schema', 'Schema & tests'], ['docs', 'Docs'], ['test', 'Singular tests'], ['macro', 'Macros'], ['project', 'Project']];

const NEW_MODEL = (name: string) => `{{ config(materialized='view') }}\n\nSELECT *\nFROM {{ ref('${name}') }}\n`;

/** The Models page: project tree, DAG, editor with compile preview, run/test/build, results, query box. */
export function ModelsView() {
  const canEdit = useCan('operator');
  const qc = useQueryClient();
  const project = useQuery({ queryKey: ['models-project'], queryFn: () => api<ProjectData>('/api/v1/models'), refetchInterval: 15_000 });
  const history = useQuery({ queryKey: ['model-history'], queryFn: () => api<{ results: NodeResult[] }>('/api/v1/models/results?limit=50'), refetchInterval: 15_000 });
  const [path, setPath] = useState<string | null>(null);
  // The file whose text is in the editor: Save writes only there, never to a file picked since.
  const [loaded, setLoaded] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [saved, setSaved] = useState('');
  const [compiled, setCompiled] = useState<{ name: string; sql?: string; error?: string }[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [newPath, setNewPath] = useState('');
  const p = project.data;

  useEffect(() => {
    if (path || !p?.files.length) return;
    // `?file=models/x.sql` (the Assets page's "Model editor" link) opens that file first.
    const asked = new URLSearchParams(window.location.search).get('file');
    setPath(p.files.find((f) => f.path === asked)?.path ?? (p.files.find((f) => f.kind === 'model') ?? p.files[0]).path);
  }, [p, path]);
  const file = useQuery({
    queryKey: ['model-file', path],
    enabled: !!path,
    queryFn: () => api<{ path: string; content: string }>(`/api/v1/models/files?path=${encodeURIComponent(path!)}`),
  });
  useEffect(() => { if (file.data) { setText(file.data.content); setSaved(file.data.content); setLoaded(file.data.path); setCompiled(null); } }, [file.data]);

  const model = p?.models.find((m) => m.path === path);
  // a seed's description and column docs show as a model's do
  const seedDocs = p?.seeds?.find((s) => s.path === path);
  const dirty = text !== saved;
  const editing = !!path && loaded === path && !!file.data;

  // Unsaved text is never dropped silently: leaving the page or opening another file asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => { e.preventDefault(); e.returnValue = ''; };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
  const open = (next: string) => {
    if (next === path) return;
    if (dirty && loaded && !window.confirm(`${loaded} has unsaved changes. Discard them and open ${next}?`)) return;
    setError(null); setNote(null);
    setPath(next);
  };

  async function save() {
    setError(null); setNote(null);
    if (!editing || !loaded) return;
    const target = loaded;
    try {
      const r = await api<{ errors: ProjectData['errors'] }>('/api/v1/models/files', { method: 'PUT', body: { path: target, content: text } });
      setSaved(text);
      setNote(r.errors.length ? `Saved, but the project has ${r.errors.length} error(s).` : 'Saved.');
      await qc.invalidateQueries({ queryKey: ['models-project'] });
    } catch (e) { setError(e); }
  }
  async function compile() {
    setError(null);
    try {
      const sel = model ? [model.name] : undefined;
      const r = await api<{ nodes: { name: string; sql?: string; error?: string }[] }>('/api/v1/models/compile', { method: 'POST', body: { select: sel, files: path ? { [path]: text } : undefined } });
      setCompiled(r.nodes);
    } catch (e) { setError(e); }
  }
  async function create(e: React.FormEvent) {
    e.preventDefault(); setError(null);
    const full = newFilePath(newPath);
    if (p?.files.some((f) => f.path === full)) { setError(new Error(`${full} already exists: open it from the tree`)); return; }
    if (dirty && loaded && !window.confirm(`${loaded} has unsaved changes. Discard them and create ${full}?`)) return;
    const first = p?.models[0]?.name ?? 'stg_model';
    try {
      await api('/api/v1/models/files', { method: 'PUT', body: { path: full, content: full.endsWith('.sql') ? NEW_MODEL(first) : full.endsWith('.csv') ? 'id\n' : full.endsWith('.md') ? `{% docs ${full.slice(full.lastIndexOf('/') + 1, -3).replace(/\W/g, '_')} %}\n\n{% enddocs %}\n` : 'version: 2\nmodels: []\n' } });
      setNewPath('');
      await qc.invalidateQueries({ queryKey: ['models-project'] });
      setPath(full);
    } catch (err) { setError(err); } // the typed path stays in the field, the editor keeps its file and text

  }
  const selectModel = (m: ProjectModel) => open(m.path);

  return (
    <div className="page" style={{ maxWidth: 1400 }}>
      <PageHeader title="Models" sub={<span>SQL models over the lake, materialised in ClickHouse (dbt-style). Project <code>{p?.root ?? '…'}</code></span>} />
      {project.isError && <p className="form-error" role="alert">Could not load the project: {(project.error as Error).message}</p>}
      {p && p.errors.length > 0 && (
        <div className="form-error" role="alert" data-testid="project-errors">
          <strong>The project has {p.errors.length} error(s):</strong>
          <ul>{p.errors.map((e, i) => <li key={i}><code>{e.path}</code> {e.message}</li>)}</ul>
        </div>
      )}
      {p && (p.warnings ?? []).length > 0 && (
        <div className="card" role="status" data-testid="project-warnings" style={{ marginBottom: 16 }}>
          <strong>{p.warnings.length} setting(s) of the project are not applied:</strong>
          <ul>{p.warnings.map((w, i) => <li key={i} className="small"><code>{w.path}</code> {w.message.replace(/^models: /, '')}</li>)}</ul>
        </div>
      )}
      <div className={css.layout}>
        <section className="card card-flush">
          <div className="card-head"><h2>Project</h2><span className="muted small">{p ? `${p.models.length} models · ${(p.seeds ?? []).length} seeds · ${p.tests.length} tests` : ''}</span></div>
          <nav className={css.tree} data-testid="project-tree">
            {GROUPS.map(([kind, label]) => {
              const files = p?.files.filter((f) => f.kind === kind) ?? [];
              if (!files.length) return null;
              return (
                <div key={kind}>
                  <div className={css.treeGroup}>{label}</div>
                  {files.map((f) => {
                    const m = p!.models.find((x) => x.path === f.path) ?? (p!.seeds ?? []).map((x) => ({ ...x, materialized: 'seed' })).find((x) => x.path === f.path);
                    return (
                      <button key={f.path} type="button" className={`${css.treeItem} ${f.path === path ? css.treeItemActive : ''}`} onClick={() => open(f.path)} title={f.path} data-testid={`tree-${f.path}`}>
                        {m && <span className={`${css.dot} ${m.last ? css[`dot_${m.last.status}`] : ''}`} title={m.last ? `last: ${m.last.status}` : 'never run'} />}
                        <span className={css.treeName}>{m ? m.name : f.path.replace(/^(models|tests|macros|seeds)\//, '')}</span>
                        {m && <span className={css.mat}>{m.materialized}</span>}
                      </button>
                    );
                  })}
                </div>
              );
            })}
          </nav>
          {canEdit && (
            <form onSubmit={create} style={{ padding: '8px 14px 14px', display: 'flex', gap: 6 }}>
              <input name="newPath" aria-label="New file path" value={newPath} onChange={(e) => setNewPath(e.target.value)} placeholder="marts/new_model.sql → models/marts/new_model.sql" title="a path under models/ (the prefix is added when missing), or tests/…, macros/…, seeds/…" style={{ minWidth: 0, flex: 1 }} />
              <button type="submit" className="btn btn-small" disabled={!newPath.trim()}>New</button>
            </form>
          )}
        </section>

        <div style={{ display: 'flex', flexDirection: 'column', gap: 16, minWidth: 0 }}>
          <section className="card card-flush">
            <div className="card-head"><h2>Graph</h2><span className="muted small">click a model to edit it</span></div>
            <ModelDag models={p?.models ?? []} selected={model?.name} onSelect={selectModel} />
          </section>

          <section className="card card-flush">
            <div className={css.editorHead}>
              <span className={css.editorPath} data-testid="editor-path">{path ?? 'no file'}{dirty ? ' •' : ''}</span>
              {model && <span className="muted small">{model.materialized}{model.tags.length ? ` · tags ${model.tags.join(', ')}` : ''}{model.refs.length ? ` · refs ${model.refs.join(', ')}` : ''}</span>}
              {path?.endsWith('.sql') && canEdit && <button type="button" className="btn btn-small" onClick={compile}>Compile</button>}
              {canEdit ? <button type="button" className="btn btn-small btn-primary" onClick={save} disabled={!dirty || !editing}>Save</button> : <span className="muted small">read-only (viewer)</span>}
            </div>
            {(model ?? seedDocs) && <ModelDocs model={(model ?? seedDocs)!} />}
            {path && file.data ? (
              <div className={css.editor}>
                <SqlEditor key={path} value={text} onChange={setText} readOnly={!canEdit} language={path.endsWith('.sql') ? 'sql' : 'yaml'} />
              </div>
            ) : <p className="empty">{file.isPending && path ? 'Loading…' : 'Pick a file.'}</p>}
            {note && <p className="muted small" style={{ padding: '6px 14px' }} data-testid="save-note">{note}</p>}
            <FormError error={error} />
            {compiled && (
              <div data-testid="compiled">
                {compiled.length === 0 ? <p className="empty small">Nothing compiled.</p> : compiled.map((c) => (
                  <div key={c.name}>
                    <div className="small muted" style={{ padding: '8px 14px 0' }}>compiled <span className="mono">{c.name}</span></div>
                    {c.error ? <pre className={css.failing} style={{ padding: '0 14px 10px' }}>{c.error}</pre> : <pre className={css.compiled}>{c.sql}</pre>}
                  </div>
                ))}
              </div>
            )}
          </section>

          <RunPanel canRun={canEdit} selection={model ? model.name : ''} />
          <QueryBox initial={model ? `SELECT * FROM models.${model.name}` : 'SELECT 1'} key={model?.name ?? 'none'} />

          <section className="card card-flush">
            <div className="card-head"><h2>History</h2><span className="muted small">latest results of every run</span></div>
            <ResultsTable results={history.data?.results ?? []} testid="history" showRun />
          </section>
        </div>
      </div>
    </div>
  );
}
