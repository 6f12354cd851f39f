'use client';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SnapshotPoint } from '@/lib/api/presenters/lake';

const short = (iso: string) => new Date(iso).toLocaleString(undefined, { month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit' });

/** Rows added and deleted per snapshot, oldest on the left (from the snapshot summaries). */
export function SnapshotChart({ points }: { points: SnapshotPoint[] }) {
  const data = points.map((p, i) => ({ ...p, label: `#${i + 1} ${short(p.timestamp)}` }));
  return (
    <div data-testid="snapshot-chart" style={{ width: '100%', height: 240 }}>
      <ResponsiveContainer>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 11 }} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
          <Tooltip formatter={(v, name) => [Number(v).toLocaleString(), name]} labelFormatter={(l, p) => `${l} · ${p?.[0]?.payload?.operation ?? ''}`} />
          <Legend />
          <Bar dataKey="added" name="rows added" fill="#12b76a" isAnimationActive={false} />
          <Bar dataKey="deleted" name="rows deleted" fill="#f04438" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
