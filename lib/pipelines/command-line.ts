import { z } from 'zod';

/**
 * The `tributary …` command line equivalent to a job spec, shown beside each
 * pipeline so an operator can run the same thing from cron or a shell.
 * Job kinds map to commands as the CLI names them (`etl.run` → `tributary
 * etl`, `slices.run` → `tributary slices run`); camelCase params become
 * kebab-case flags and lists are comma-joined.
 *
 * Booleans follow how the CLI declares them (commander): a field whose
 * default is true is a `--no-x` flag, any other a bare `--x`. So a value
 * equal to its default is left out (the CLI has no `--no-plan`, only
 * `--plan`; no `--hash`, only `--no-hash`), which needs the kind's payload
 * schema: without it a `false` is left out, as most boolean flags default off.
 * An optional field whose default is decided later (from the environment) but
 * is on says so with `.meta({ cliNegated: true })`, as the CLI's `--no-x` does.
 */
const COMMAND_OF: Record<string, string> = { 'etl.run': 'etl', 'dq.run': 'dq', 'lake.remove_orphans': 'lake remove-orphans', 'cdc.stream': 'cdc start' };

/**
 * Fields the CLI takes as positional arguments, in order (`tributary lake
 * expire <table>`, `tributary flows run <flow>`), written right after the
 * command so a variadic option cannot swallow them.
 */
const POSITIONAL_OF: Record<string, readonly string[]> = {
  'lake.expire': ['table'], 'lake.compact': ['table'], 'lake.remove_orphans': ['table'],
  'models.query': ['sql'], 'flows.run': ['flow'], 'pipelines.run': ['pipeline'],
};

/**
 * Lists the CLI takes as a variadic option (`--select a b`): one word per item,
 * since a comma means something else there (a dbt intersection `a,b`).
 */
const VARIADIC_OF: Record<string, readonly string[]> = {
  'models.run': ['select', 'exclude'], 'models.test': ['select', 'exclude'], 'models.build': ['select', 'exclude'],
  'models.seed': ['select', 'exclude'],
};

/**
 * Fields whose CLI flag holds one value where the payload holds an object:
 * `lake compact --partition <value>` names the value of the table's one
 * partition column (the CLI reads the column from the table's spec).
 */
const SINGLE_VALUE_OF: Record<string, readonly string[]> = { 'lake.compact': ['partition'] };

const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function quote(v: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

type Def = { type?: string; in?: Schema; innerType?: Schema; schema?: Schema; defaultValue?: unknown; shape?: Record<string, Schema> };
type Schema = { _zod?: { def?: Def } };

/** The object shape under pipes (transform), optional and default wrappers; null when there is none. */
function shapeOf(schema: Schema | undefined): Record<string, Schema> | null {
  for (let s = schema, i = 0; s && i < 8; i++) {
    const def = s._zod?.def;
    if (!def) return null;
    if (def.type === 'object') return def.shape ?? null;
    s = def.in ?? def.innerType ?? def.schema;
  }
  return null;
}

/** The default a field declares (`z.boolean().default(true)` → true), if any. */
function defaultOf(field: Schema | undefined): unknown {
  for (let s = field, i = 0; s && i < 8; i++) {
    const def = s._zod?.def;
    if (!def) return undefined;
    if (def.type === 'default' || def.type === 'prefault') return typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
    s = def.innerType ?? def.in;
  }
  return undefined;
}

/**
 * Job kinds `tributary` has no command of their own for, and why; a saved
 * pipeline of one of these kinds shows `tributary pipelines run <name>`
 * (pipelineCommandLine), which runs the same spec.
 */
export const NO_COMMAND: Readonly<Record<string, string>> = {
  'system.check': "the worker's self-check, started from the panel, the API or a flow",
  'connections.test': '`tributary connections` has import and list only; a connection is tested from the panel or the API',
  'connections.catalog': "browsing a source's catalog is the Tables page's (the API)",
  'mail.send': 'queued by the flow executor, the freshness check and the CDC lag check for alert mail',
  'mail.test': "the Settings page's test mail",
  'webhook.send': 'queued by the flow executor for alert webhooks',
};

/** The command line shown for a saved pipeline: its kind's command, or `pipelines run <name>` when the kind has none. */
export function pipelineCommandLine(p: { name: string; kind: string; params: Record<string, unknown> }, schema?: z.ZodType): string {
  return p.kind in NO_COMMAND ? commandLineFor('pipelines.run', { pipeline: p.name }) : commandLineFor(p.kind, p.params, schema);
}

/** `schema`: the kind's payload schema, so booleans render as the CLI declares them. (Default: none) */
export function commandLineFor(kind: string, params: Record<string, unknown>, schema?: z.ZodType): string {
  const cmd = COMMAND_OF[kind] ?? kind.split('.').join(' ');
  const shape = shapeOf(schema as Schema | undefined);
  const args: string[] = ['tributary', cmd];
  const positional = POSITIONAL_OF[kind] ?? [];
  for (const k of positional) {
    const v = params?.[k];
    if (v !== undefined && v !== null) args.push(quote(String(v)));
  }
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === undefined || v === null || positional.includes(k)) continue;
    const flag = `--${kebab(k)}`;
    if (VARIADIC_OF[kind]?.includes(k)) {
      const items = (Array.isArray(v) ? v : [v]).map(String).flatMap((x) => x.split(/\s+/)).filter(Boolean);
      if (items.length) args.push(flag, ...items.map(quote));
      continue;
    }
    if (SINGLE_VALUE_OF[kind]?.includes(k) && typeof v === 'object' && !Array.isArray(v)) {
      const values = Object.values(v as Record<string, unknown>);
      if (values.length === 1) { args.push(flag, quote(String(values[0]))); continue; }
    }
    if (typeof v === 'boolean') {
      const field = shape?.[k];
      const negatable = defaultOf(field) === true || (field !== undefined && z.globalRegistry.get(field as z.ZodType)?.cliNegated === true);
      if (negatable && !v) args.push(`--no-${kebab(k)}`);
      else if (!negatable && v) args.push(flag);
      continue;
    }
    if (Array.isArray(v)) { if (v.length) args.push(flag, quote(v.map(String).join(','))); }
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
