'use client';
import './assets.css';
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';
import { QueryState } from '../../_components/query-state';
import { useCan } from '../../_components/user-context';
import { collapseGroups, searchAssets } from '@/lib/assets/collapse';
import type { AssetGraph } from '@/lib/assets/types';
import { AssetGraphCanvas } from './asset-graph-canvas';
import { AssetDetail } from './asset-detail';
import { PageHeader } from '../../_components/page-header';

/**
 * The asset graph: source tables per branch → lake tables → models, seeds
 * and tests. Search finds a node, groups (branches, lake namespaces, model
 * folders) collapse into one node each, a click opens the node's detail
 * with its last load/build, DQ, schema, flows and run buttons.
 */
export function AssetsView() {
  const canRun = useCan('operator');
  const [query, setQuery] = useState('');
  const [showResults, setShowResults] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [fast, setFast] = useState(false);
  const q = useQuery({ queryKey: ['assets'], queryFn: () => api<AssetGraph>('/api/v1/assets'), refetchInterval: fast ? 2000 : 10_000 });
  const graph = q.data;
  const groups = useMemo(() => [...new Set((graph?.nodes ?? []).map((n) => n.group))].sort(), [graph]);
  const drawn = useMemo(() => (graph ? collapseGroups(graph.nodes, graph.edges, collapsed) : { nodes: [], edges: [] }), [graph, collapsed]);
  const results = useMemo(() => (graph ? searchAssets(graph.nodes, query) : []), [graph, query]);
  const matches = useMemo(() => new Set(results.map((n) => (collapsed.has(n.group) ? `group:${n.group}` : n.id))), [results, collapsed]);
  const node = graph?.nodes.find((n) => n.id === selected) ?? null;

  const pick = (id: string) => {
    const n = graph?.nodes.find((x) => x.id === id);
    // Picking a member of a collapsed group opens the group.
    if (n && collapsed.has(n.group)) setCollapsed((c) => { const s = new Set(c); s.delete(n.group); return s; });
    setSelected(id); setShowResults(false);
  };
  const onCanvasSelect = (id: string) => {
    if (id.startsWith('group:')) { const g = id.slice(6); setCollapsed((c) => { const s = new Set(c); s.delete(g); return s; }); return; }
    setSelected(id);
  };
  const toggle = (g: string) => setCollapsed((c) => { const s = new Set(c); if (s.has(g)) s.delete(g); else s.add(g); return s; });

  return (
    <div className="page">
      <PageHeader title="Assets" sub="Everything the data passes through, in one graph: source tables on each branch, lake tables, models and their tests — with last load or build, data quality and what to rerun." />
      <FormError error={q.error} />
      {graph && graph.problems.length > 0 && (
        <details className="card" data-testid="asset-problems"><summary>{graph.problems.length} part{graph.problems.length === 1 ? '' : 's'} could not be read</summary>
          <ul className="small">{graph.problems.map((p) => <li key={p}>{p}</li>)}</ul></details>
      )}
      <div className="assets-toolbar">
        <input type="search" placeholder="Find a table, model or test…" aria-label="Search assets" data-testid="asset-search" value={query}
          onChange={(e) => { setQuery(e.target.value); setShowResults(true); }} onFocus={() => setShowResults(true)}
          onKeyDown={(e) => { if (e.key === 'Enter' && results[0]) pick(results[0].id); if (e.key === 'Escape') setShowResults(false); }} />
        <span className="muted small">{graph ? `${graph.nodes.length} nodes · ${graph.edges.length} edges${query ? ` · ${results.length} match${results.length === 1 ? '' : 'es'}` : ''}` : ''}</span>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setCollapsed(new Set(groups))} disabled={!groups.length}>Collapse all</button>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setCollapsed(new Set())} disabled={!collapsed.size}>Expand all</button>
        {showResults && results.length > 0 && (
          <ul className="assets-results" data-testid="asset-search-results">
            {results.slice(0, 50).map((n) => (
              <li key={n.id}><button type="button" data-testid={`asset-result-${n.id}`} onClick={() => pick(n.id)}>
                <span className="asset-kind">{n.kind}</span>{n.kind === 'source' ? `${n.name} @${n.branch}` : n.name} <span className="muted small">{n.group}</span>
              </button></li>
            ))}
          </ul>
        )}
      </div>
      {groups.length > 1 && (
        <div className="asset-groups" data-testid="asset-groups" style={{ marginBottom: 10 }}>
          <span className="muted">Collapse:</span>
          {groups.map((g) => <label key={g}><input type="checkbox" checked={collapsed.has(g)} onChange={() => toggle(g)} data-testid={`asset-collapse-${g}`} />{g}</label>)}
        </div>
      )}
      <div className="assets-grid">
        <section>
          {!q.isSuccess ? <QueryState query={q} failure="Could not load the assets" /> : !graph?.nodes.length ? (
            <div className="card empty"><p><strong>No assets yet.</strong></p><p>Add tables on the Tables page and branches on the Connections page, load the lake, or write models.</p></div>
          ) : (
            <AssetGraphCanvas nodes={drawn.nodes} edges={drawn.edges} selected={selected} matches={query ? matches : new Set()} onSelect={onCanvasSelect} />
          )}
        </section>
        <aside className="card asset-detail" data-testid="asset-detail">
          {node ? <AssetDetail node={node} canRun={canRun} onQueued={() => { setFast(true); void q.refetch(); setTimeout(() => setFast(false), 120_000); }} />
            : <p className="muted">Pick a node in the graph, or find one by name, to see its last load or build, data quality, schema and flows, and to run it.</p>}
        </aside>
      </div>
    </div>
  );
}
