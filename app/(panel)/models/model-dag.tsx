'use client';
import { layoutDag } from '@/lib/models/dag-layout';
import type { ProjectModel } from './types';
import css from './models.module.css';

const NODE_W = 170; const NODE_H = 40;
const COLOR: Record<string, string> = { success: '#12b76a', pass: '#12b76a', error: '#d92d20', fail: '#d92d20', warn: '#f79009', skipped: '#f79009' };

/** The models' ref graph, laid out by `layoutDag` (pure) and drawn as SVG; a click opens the model. */
export function ModelDag({ models, selected, onSelect }: { models: ProjectModel[]; selected?: string; onSelect: (m: ProjectModel) => void }) {
  if (!models.length) return <p className="empty">No models yet.</p>;
  const l = layoutDag(models.map((m) => ({ id: m.name, parents: m.refs })), { nodeWidth: NODE_W });
  const byName = new Map(models.map((m) => [m.name, m]));
  return (
    <div className={css.dag}>
      <svg width={l.width} height={l.height + 10} data-testid="model-dag" role="img" aria-label="Model dependency graph">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#98a2b3" /></marker>
        </defs>
        {l.edges.map((e) => {
          const [[x1, y1], [x2, y2]] = e.points; const mid = (x1 + x2) / 2;
          return <path key={`${e.from}-${e.to}`} d={`M ${x1} ${y1 + NODE_H / 2 - 12} C ${mid} ${y1 + NODE_H / 2 - 12}, ${mid} ${y2 + NODE_H / 2 - 12}, ${x2 - 2} ${y2 + NODE_H / 2 - 12}`} fill="none" stroke="#98a2b3" strokeWidth={1.4} markerEnd="url(#arrow)" />;
        })}
        {l.nodes.map((n) => {
          const m = byName.get(n.id)!;
          const status = m.last?.status;
          return (
            <g key={n.id} transform={`translate(${n.x}, ${n.y + 4})`} className={css.dagNode} onClick={() => onSelect(m)} data-testid={`dag-node-${n.id}`} data-status={status ?? 'none'}>
              <rect width={NODE_W} height={NODE_H} rx={7} fill={selected === n.id ? '#e8efff' : '#fff'} stroke={selected === n.id ? '#3b5bdb' : '#d0d5dd'} />
              <rect width={5} height={NODE_H} rx={2} fill={status ? COLOR[status] ?? '#d0d5dd' : '#d0d5dd'} />
              <text x={14} y={17} fontSize={12.5} fontFamily="var(--mono)" fontWeight={600}>{n.id.length > 20 ? n.id.slice(0, 19) + '…' : n.id}</text>
              <text x={14} y={32} fontSize={11} fill="#667085">{m.materialized}{status ? ` · ${status}` : ''}{m.last?.rows != null ? ` · ${m.last.rows} rows` : ''}</text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
