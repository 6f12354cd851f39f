/** A byte count as people read it: 512 B, 3.2 MB, 12.0 GB (1024ⁿ, as PostgreSQL's units). */
export function formatBytes(n: number | null): string {
  if (n === null) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n; let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

export interface LagAlertChange { branch: string; to: 'alerting' | 'recovered'; retainedBytes: number; lagBytes: number | null; thresholdBytes: number; status: string }

/** The mail of one branch's lag alert changing state. Pure. */
export function buildLagAlertMail(c: LagAlertChange, publicUrl: string): { subject: string; text: string } {
  const head = c.to === 'alerting'
    ? `branch ${c.branch}: its replication slot retains ${formatBytes(c.retainedBytes)} of WAL on the source (alert at ${formatBytes(c.thresholdBytes)})`
    : `branch ${c.branch}: recovered, its replication slot retains ${formatBytes(c.retainedBytes)} of WAL (under 80 % of ${formatBytes(c.thresholdBytes)})`;
  const advice = c.to === 'alerting'
    ? ['The source keeps every WAL segment the slot has not had acknowledged: left alone, it fills the source\'s disk.',
      `The stream is ${c.status}. Start it (panel: CDC, or \`tributary cdc start --branch ${c.branch}\`) so it catches up, or drop the slot of a branch no longer streamed (\`tributary cdc drop --branch ${c.branch} --yes\`).`]
    : ['The slot is back under the threshold; no further mail is sent until it passes it again.'];
  return {
    subject: `[tributary] CDC lag ${c.to === 'alerting' ? 'alert' : 'recovered'}: ${head}`,
    text: [head, '', `retained WAL: ${formatBytes(c.retainedBytes)}`, `unacknowledged WAL (lag): ${formatBytes(c.lagBytes)}`, `stream state: ${c.status}`, '',
      ...advice, '', 'This mail is sent once when the slot passes the threshold (TRIBUTARY_CDC_LAG_ALERT_BYTES) and once when it is back under 80 % of it.',
      `Open the live view: ${publicUrl.replace(/\/+$/, '')}/cdc`].join('\n'),
  };
}
