'use client';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DqPoint } from '@/lib/api/presenters/dq';

const short = (iso: string) => new Date(iso).toLocaleString(undefined, { month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** One table × branch over time: the row-count delta and the hash mismatches of each check. */
export function DqTrend({ points }: { points: DqPoint[] }) {
  const data = points.map((p) => ({ at: short(p.checkedAt), delta: p.delta, mismatches: p.mismatches, status: p.status }));
  return (
    <div data-testid="dq-trend" data-points={points.length} style={{ width: '100%', height: 220 }}>
      <ResponsiveContainer>
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="at" tick={{ fontSize: 11 }} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
          <Tooltip labelFormatter={(l, p) => `${l} · ${p?.[0]?.payload?.status ?? ''}`} />
          <Legend />
          <Line type="monotone" dataKey="delta" name="row-count delta" stroke="#f79009" dot isAnimationActive={false} connectNulls />
          <Line type="monotone" dataKey="mismatches" name="hash mismatches" stroke="#f04438" dot isAnimationActive={false} connectNulls />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
