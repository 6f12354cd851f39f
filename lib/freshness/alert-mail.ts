import type { AssetFreshness } from './status';

/** A lag or threshold as people read it: 2h 5m, 45m, 3d 4h. */
export function formatLag(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${m % 60 ? ` ${m % 60}m` : ''}`;
  return `${Math.floor(h / 24)}d${h % 24 ? ` ${h % 24}h` : ''}`;
}

const describe = (a: AssetFreshness) =>
  `${a.asset.padEnd(36)} ${a.status.toUpperCase().padEnd(6)} last success ${a.lastSuccessAt ?? 'never'} (${formatLag(a.lagSeconds)} ago${a.worstBranch ? `, branch ${a.worstBranch}` : ''}); warn after ${formatLag(a.warnAfterSeconds)}, error after ${formatLag(a.errorAfterSeconds)}`;

/** The alert mail of the assets that went into warn or error at one check. Pure. */
export function buildFreshnessAlertMail(breaches: AssetFreshness[], publicUrl: string): { subject: string; text: string } {
  const worst = breaches.some((b) => b.status === 'error') ? 'error' : 'warn';
  const head = breaches.length === 1
    ? `${breaches[0].asset} is stale (${breaches[0].status}: ${formatLag(breaches[0].lagSeconds)} since its last success)`
    : `${breaches.length} assets are stale (worst: ${worst})`;
  return {
    subject: `[tributary] Freshness: ${head}`,
    text: [
      head, '',
      ...breaches.map(describe), '',
      'This alert is sent once when an asset enters warn or error; it is not repeated while the state holds.',
      `Open the overview: ${publicUrl.replace(/\/+$/, '')}/`,
    ].join('\n'),
  };
}
