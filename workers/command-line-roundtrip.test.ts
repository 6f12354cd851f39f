import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../lib/cli/main';
import { commandLineFor, NO_COMMAND, pipelineCommandLine } from '../lib/pipelines/command-line';
import { requestFromFlags } from '../lib/etl/cli';
import { dqOptionsFromFlags } from '../lib/dq/cli';
import { EtlRequest } from '../lib/etl/request';
import { DqRequest } from '../lib/dq/request';
import { jobDefinitions } from './jobs';
import { parseFlags } from '../lib/slices/execute/context';
import { urlConnections } from '../lib/slices/cli-support';
import { AssortRequest, BoardRequest, ClearRequest, ProbeRequest, ReconcileRequest, ResetRequest, RunRequest, SplitRequest, StatusRequest } from '../lib/slices/requests';
import { expireRequestOf, removeOrphansRequestOf } from '../lib/lake-admin/cli';
import { modelsParamsOf } from '../lib/models/cli';
import { requestFromFlags as cdcRequestFromFlags } from '../lib/cdc/cli';
import type { Env } from '../lib/config/env';
import { testCliEdge } from '../lib/testing/cli-edge';

/** Every command the CLI registers, built as `tributary` builds them. */
async function program(): Promise<Command> {
  const p = new Command('tributary').exitOverride();
  for (const m of COMMANDS) (await m.load())(p, testCliEdge());
  return p;
}

/** The sub-command a shown line names (`tributary slices run …` → slices › run), and the words after it. */
function commandOf(p: Command, words: string[]): { cmd: Command; rest: string[] } | null {
  let cmd = p; let i = 0;
  for (; i < words.length && !words[i].startsWith('-'); i++) {
    const sub = cmd.commands.find((c) => c.name() === words[i]);
    if (!sub && cmd !== p && !cmd.commands.length) break; // a positional argument (`lake expire <table>`)
    if (!sub) return null;
    cmd = sub;
  }
  return { cmd, rest: words.slice(i) };
}

/** POSIX shell words of a line quoted the way commandLineFor quotes ('…' with '\'' for a quote). */
function shellWords(line: string): string[] {
  const out: string[] = []; let cur = ''; let q = false; let any = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) { if (c === "'") q = false; else cur += c; continue; }
    if (c === "'") { q = true; any = true; continue; }
    if (c === '\\') { cur += line[++i]; any = true; continue; }
    if (c === ' ') { if (cur || any) out.push(cur); cur = ''; any = false; continue; }
    cur += c;
  }
  if (cur || any) out.push(cur);
  return out;
}

/** Parse a shown line with the real commander command, without running its action. */
async function parse(line: string): Promise<{ cmd: Command; opts: Record<string, unknown>; unknown: string[]; operands: string[] }> {
  const words = shellWords(line);
  expect(words[0]).toBe('tributary');
  const found = commandOf(await program(), words.slice(1));
  if (!found) throw new Error(`no command for: ${line}`);
  const r = found.cmd.parseOptions(found.rest);
  return { cmd: found.cmd, opts: found.cmd.opts(), unknown: r.unknown, operands: r.operands };
}

describe('a pipeline\'s shown command line is one the CLI accepts', () => {
  it('etl: payload → command → flags → the same request', async () => {
    const payloads = [
      { mode: 'INITIAL', plan: false, selfTest: true, branch: ['b1', 'b2'], tables: ['A.X'], snapshotMaintenance: true },
      { mode: 'INCREMENTAL', plan: true, keepStaging: false, snapshotMaintenance: false, retries: 2, category: 'masters' },
    ];
    const def = jobDefinitions.find((d) => d.kind === 'etl.run')!;
    for (const p of payloads) {
      const line = commandLineFor('etl.run', p, def.payload);
      const { opts, unknown } = await parse(line);
      expect(unknown, line).toEqual([]);
      expect(requestFromFlags(opts), line).toEqual(EtlRequest.parse(p));
    }
    expect(commandLineFor('etl.run', payloads[0], def.payload)).not.toContain('--no-plan');
  });

  it('dq: payload → command → flags → the same request', async () => {
    const def = jobDefinitions.find((d) => d.kind === 'dq.run')!;
    for (const p of [{ hash: true, write: true, repair: true }, { hash: false, write: false, tables: ['T'] }]) {
      const line = commandLineFor('dq.run', p, def.payload);
      const { opts, unknown } = await parse(line);
      expect(unknown, line).toEqual([]);
      expect(dqOptionsFromFlags(opts), line).toEqual(DqRequest.parse(p));
    }
    expect(commandLineFor('dq.run', { hash: true }, def.payload)).toBe('tributary dq');
    expect(commandLineFor('dq.run', { hash: false }, def.payload)).toBe('tributary dq --no-hash');
  });

  /**
   * Per kind: payloads to render, and the CLI's own flags → request step (the
   * function its action calls), so the parsed line must equal the parsed payload.
   */
  type Flags = Record<string, unknown>;
  const env = {} as Env;
  const slices = (schema: Parameters<typeof parseFlags>[0], style: 'slices' | 'argparse' = 'slices') =>
    (o: Flags) => parseFlags(schema, { ...o, ...urlConnections(o, env).names }, style);
  const payloadOf = (kind: string) => jobDefinitions.find((d) => d.kind === kind)!.payload;
  const models = (kind: string) => (o: Flags) => payloadOf(kind).parse(modelsParamsOf(o));
  const quoted = "it's \"x\" & $HOME";
  const CASES: Record<string, { payloads: Record<string, unknown>[]; fromCli: (opts: Flags, operands: string[]) => unknown }> = {
    'slices.run': {
      payloads: [
        { runId: 7, connection: 'src', targetConnection: 'tgt', executor: 'native', concurrency: 5, monitorInterval: 0.5, retryFailed: false, snapshot: false, forceFresh: true, targetLake: 'default', mergeKeys: 'id, region', batchRows: 1000, queryFile: 'runs/7/query file.txt' },
        { runId: 8, queryFileText: `select * from t where x = ${quoted} ~SPLIT~|T\nselect 2|T`, templateText: 'CREATE APP x;', retryFailed: true, snapshot: true, forceFresh: false, striimConnection: 'env:striim', sourceEngine: 'oracle', targetEngine: 'postgres', striimRetries: 0 },
      ],
      fromCli: slices(RunRequest),
    },
    'slices.reset': { payloads: [{ runId: 1, includeFaileddrop: true, includeQuarantined: false, withStriimCleanup: true, striimConnection: 's' }], fromCli: slices(ResetRequest) },
    'slices.clear': { payloads: [{ runId: 2, hard: true, withStriimCleanup: false }, { runId: 3 }], fromCli: slices(ClearRequest) },
    'slices.reconcile': { payloads: [{ runId: 4, connection: 'src', sourceEngine: 'postgres', targetConnection: 'tgt' }, { runId: 4, targetLake: 'default' }], fromCli: slices(ReconcileRequest) },
    'slices.status': { payloads: [{ runId: 5, failed: true, rows: false }, { allRuns: true }], fromCli: slices(StatusRequest) },
    'slices.board': { payloads: [{ runId: 6, striim: false }, { runId: 6, striim: true, striimConnection: 'env:striim' }], fromCli: slices(BoardRequest) },
    'slices.assort': { payloads: [{ input: 'a b/queryfile.txt', output: 'out.txt', waveSize: 3 }], fromCli: slices(AssortRequest, 'argparse') },
    'slices.probe': { payloads: [{ table: 'SHOP.ORDERS', query: `select * from shop.orders o where ~SPLIT~ and note = ${quoted}`, depth: 'adaptive', sampleRows: 1000, runId: 9, connection: 'src' }], fromCli: slices(ProbeRequest, 'argparse') },
    'slices.split': {
      payloads: [{ table: 'SHOP.ORDERS', target: 'shop.orders', queryFile: 'q.sql', strategy: 'column', column: 'o.id', chunks: 8, subpartitions: false, assort: true, waveSize: 4, explain: true, asOfScn: 'current', runId: 9, output: 'query file.txt' }],
      fromCli: (o) => payloadOf('slices.split').parse(slices(SplitRequest, 'argparse')(o)),
    },
    'lake.expire': {
      payloads: [{ table: 'default.orders' }, { table: 'sales.orders', maxSnapshotAgeMs: 86_400_000, minSnapshotsToKeep: 2 }],
      fromCli: (o, [table]) => expireRequestOf(table, o),
    },
    'lake.remove_orphans': {
      payloads: [{ table: 'default.orders', olderThan: '3d', dryRun: true }, { table: 'default.orders', olderThan: 3600, dryRun: false }],
      fromCli: (o, [table]) => removeOrphansRequestOf(table, o),
    },
    'lake.compact': {
      // The flag holds the partition's value; the CLI names its column from the table's spec (partitionArg), so compare the value.
      payloads: [{ table: 'default.orders' }, { table: 'default.orders', partition: { region: 'north east' } }],
      fromCli: (o, [table]) => ({ table, ...(o.partition !== undefined ? { partition: { region: o.partition } } : {}) }),
    },
    'models.run': {
      payloads: [{ select: ['+orders', 'tag:daily'], exclude: 'stg_a stg_b', fullRefresh: true, vars: { days: 7, note: quoted }, target: 'ch' }, { select: ['a,b'], fullRefresh: false }],
      fromCli: models('models.run'),
    },
    'models.test': { payloads: [{ select: 'orders+', target: 'embedded' }], fromCli: models('models.test') },
    'models.build': { payloads: [{ exclude: ['path:staging'], vars: {} }], fromCli: models('models.build') },
    'models.seed': { payloads: [{ select: ['raw_customers', 'resource_type:seed'], exclude: 'raw_payments' }, {}], fromCli: models('models.seed') },
    'models.query': {
      payloads: [{ sql: `select 'a b' as x, ${JSON.stringify(quoted)} as y`, target: 'ch' }, { sql: 'select 1' }],
      fromCli: (o, [sql]) => payloadOf('models.query').parse({ sql, target: o.target }),
    },
    'flows.run': { payloads: [{ flow: 'nightly load' }], fromCli: (_o, [flow]) => ({ flow }) },
    'cdc.stream': { payloads: [{ branch: 'shop1', flushInterval: '5s', flushRows: 500, namespace: 'sales' }, { branch: 'b-2' }], fromCli: (o) => cdcRequestFromFlags(o) },
    'pipelines.run': { payloads: [{ pipeline: "orders 'daily'" }], fromCli: (_o, [pipeline]) => ({ pipeline }) },
  };

  /**
   * A request with each boolean that equals the CLI's default left out: the
   * line omits a flag at its default (no `--hard` for false, no `--no-snapshot`
   * for true), so the CLI hands `undefined` (or commander's `true` for a
   * `--no-x`) where the payload said it outright; both mean the same run.
   */
  function same(kind: string, r: unknown): unknown {
    const out: Record<string, unknown> = {};
    const flagless = (k: string, v: boolean) => commandLineFor(kind, { [k]: v }, payloadOf(kind)) === commandLineFor(kind, {}, payloadOf(kind));
    for (const [k, v] of Object.entries(r as Record<string, unknown>)) if (!(typeof v === 'boolean' && flagless(k, v))) out[k] = v;
    return out;
  }

  it('every job kind is round-tripped or listed as having no command', () => {
    const kinds = jobDefinitions.filter((d) => !d.internal).map((d) => d.kind);
    const missing = kinds.filter((k) => !CASES[k] && !NO_COMMAND[k] && k !== 'etl.run' && k !== 'dq.run');
    expect(missing).toEqual([]);
    for (const k of Object.keys(CASES)) expect(kinds, k).toContain(k);
  });

  it('a kind listed as having no command has none, and its saved pipeline shows `pipelines run <name>`, which the CLI accepts', async () => {
    const p = await program();
    for (const kind of Object.keys(NO_COMMAND)) {
      expect(jobDefinitions.map((d) => d.kind), kind).toContain(kind);
      const head = commandLineFor(kind, {}).split(' ').slice(1);
      const found = commandOf(p, head);
      expect(found && found.rest.length === 0 && found.cmd.name() === head.at(-1) ? kind : null, `${kind} has a command now: move it to CASES`).toBeNull();
      const line = pipelineCommandLine({ name: 'probe it', kind, params: { name: 'x' } }, payloadOf(kind));
      expect(line).toBe("tributary pipelines run 'probe it'");
      const { unknown, operands } = await parse(line);
      expect(unknown).toEqual([]);
      expect(operands).toEqual(['probe it']);
    }
  });

  for (const [kind, c] of Object.entries(CASES)) {
    it(`${kind}: payload → command → CLI parse → the same request`, async () => {
      const schema = payloadOf(kind);
      for (const p of c.payloads) {
        const line = commandLineFor(kind, p, schema);
        const { opts, unknown, operands } = await parse(line);
        expect(unknown, line).toEqual([]);
        expect(same(kind, c.fromCli(opts, operands)), line).toEqual(same(kind, schema.parse(p)));
      }
    });
  }

  it('the fixed command lines the panel shows as hints are ones the CLI accepts', async () => {
    // Copied from app/(panel): slice board, slice runs, overview, lake, pipelines and connections pages.
    for (const line of [
      'tributary slices reset --run-id 1 --include-quarantined', 'tributary slices split',
      'tributary slices run --run-id 1 --query-file slices.sql --executor native', 'tributary worker',
      'tributary lake import NS.TABLE FILE.parquet --mode append', 'tributary lake list', 'tributary lake describe NS.TABLE',
      'tributary lake scan NS.TABLE --limit 20', 'tributary etl --mode INITIAL', 'tributary connections list', 'tributary connections import FILE.toml',
    ]) {
      const { cmd, unknown, operands } = await parse(line);
      expect(unknown, line).toEqual([]);
      expect(operands.length, `${line}: its required arguments`).toBeGreaterThanOrEqual(cmd.registeredArguments.filter((a) => a.required).length);
    }
  });

  it('every boolean field of every kind with a command renders a flag that command declares', async () => {
    const p = await program();
    const checked: string[] = [];
    const bad: string[] = [];
    for (const def of jobDefinitions) {
      if (def.internal) continue;
      const head = commandLineFor(def.kind, {}, def.payload).split(' ').slice(1);
      const found = commandOf(p, head);
      if (!found) continue; // a kind with no command of its own (mail.send, flows.run…)
      const shape = (def.payload as unknown as { _zod: { def: { type: string; in?: unknown; shape?: Record<string, { _zod: { def: { type: string; innerType?: unknown } } }> } } });
      let o: unknown = def.payload;
      for (let i = 0; i < 4 && (o as typeof shape)?._zod?.def?.type === 'pipe'; i++) o = (o as typeof shape)._zod.def.in;
      const fields = (o as typeof shape)?._zod?.def?.shape ?? {};
      const longs = new Set(found.cmd.options.map((x) => x.long));
      for (const [k, f] of Object.entries(fields)) {
        let t = f._zod.def; for (let i = 0; i < 4 && (t.type === 'default' || t.type === 'optional'); i++) t = (t.innerType as typeof f)._zod.def;
        if (t.type !== 'boolean') continue;
        for (const v of [true, false]) {
          const flags = commandLineFor(def.kind, { [k]: v }, def.payload).split(' ').filter((w) => w.startsWith('--'));
          for (const fl of flags) if (!longs.has(fl)) bad.push(`${def.kind}.${k}=${v} → ${fl}: not an option of '${head.join(" ")}'`);
        }
        checked.push(`${def.kind}.${k}`);
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toContain('etl.run.plan');
    expect(checked).toContain('dq.run.hash');
  });
});
