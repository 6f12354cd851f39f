/**
 * The `tributary …` command line equivalent to a job spec, shown beside each
 * pipeline so an operator can run the same thing from cron or a shell.
 * Job kinds map to commands as the CLI names them (`etl.run` → `tributary
 * etl`, `slices.run` → `tributary slices run`); camelCase params become
 * kebab-case flags, `true` a bare flag, `false` a `--no-` flag, lists are
 * comma-joined.
 */
const COMMAND_OF: Record<string, string> = { 'etl.run': 'etl', 'dq.run': 'dq' };

const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function quote(v: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

export function commandLineFor(kind: string, params: Record<string, unknown>): string {
  const cmd = COMMAND_OF[kind] ?? kind.split('.').join(' ');
  const args: string[] = ['tributary', cmd];
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === undefined || v === null) continue;
    const flag = `--${kebab(k)}`;
    if (v === true) args.push(flag);
    else if (v === false) args.push(`--no-${kebab(k)}`);
    else if (Array.isArray(v)) { if (v.length) args.push(flag, quote(v.map(String).join(','))); }
    else if (typeof v === 'object') args.push(flag, quote(JSON.stringify(v)));
    else args.push(flag, quote(String(v)));
  }
  return args.join(' ');
}

/** Rows a finished job reports, when its result says (`rows`, or the sum over `units[].rows`). */
export function rowsOfResult(result: unknown): number | null {
  if (!result || typeof result !== 'object') return null;
  const r = result as Record<string, unknown>;
  for (const k of ['rows', 'rowCount', 'rowsWritten']) if (typeof r[k] === 'number') return r[k] as number;
  if (Array.isArray(r.units)) {
    let sum = 0; let any = false;
    for (const u of r.units as Record<string, unknown>[]) {
      const n = u?.rows ?? u?.rowCount ?? u?.lake;
      if (typeof n === 'number') { sum += n; any = true; }
    }
    return any ? sum : null;
  }
  return null;
}
