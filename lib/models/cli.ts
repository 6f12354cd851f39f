/**
 * `tributary models run | test | build | seed | compile | list | query`: dbt's
 * commands over Tributary's model project. Runs in this process against the
 * target; the embedded ClickHouse's state folder is taken in turns with the
 * worker (see chdb-target.ts).
 */
import { Command, InvalidArgumentError } from 'commander';
import type { CliContext, CliEdge } from '../cli/context';
import { recordCliRun } from '../jobs/record-cli-run';
import { exitCodeFor } from '../errors';
import { csvLine } from '../lake';
import { parseCliVars } from './cli-vars';
import { buildGraph } from './graph';
import { NO_NODES_SELECTED, selectNodes } from './selector';
import { compileModels, loadModelsProject, queryModels, runModelsCommand, type ModelsDeps } from './service';
import type { Command as ModelsCommand, NodeResult } from './types';

interface Flags { select?: string[]; exclude?: string[]; project?: string; target?: string; fullRefresh?: boolean; vars?: Record<string, unknown>; json?: boolean }

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

/** dbt's `--vars`: a YAML mapping (cli-vars.ts). */
function parseVars(v: string): Record<string, unknown> {
  try { return parseCliVars(v); } catch (e) { throw new InvalidArgumentError((e as Error).message.replace(/^models: /, '')); }
}

function common(c: Command): Command {
  return c
    .option('-s, --select <selector...>', 'dbt selectors: name, +name, name+, @name, tag:x, path:dir, fqn/file/package/config.<key>/test_name/source:…, a,b (intersection); several = union')
    .option('--exclude <selector...>', 'selectors to leave out')
    .option('--project <dir>', 'model project folder (Default: $TRIBUTARY_MODELS_DIR or <data>/models)')
    .option('--target <name>', 'a clickhouse connection, or embedded (Default: embedded)')
    .option('--vars <yaml>', "values for var(), a YAML mapping: '{days: 7}' or 'days: 7' (JSON works too)", parseVars)
    .option('--json', 'print JSON');
}

function deps(ctx: CliContext): ModelsDeps {
  return { pool: ctx.pool, env: ctx.env, logger: ctx.logger, signal: ctx.signal };
}

function line(r: NodeResult): string {
  const rows = r.rows === null ? '' : r.kind === 'test' ? ` ${r.rows} failing` : ` ${r.rows} rows`;
  const extra = r.error ? `\n      ${r.error}` : r.skippedBecause ? ` (upstream ${r.skippedBecause} failed)` : '';
  let s = `${r.status.toUpperCase().padEnd(8)} ${r.kind.padEnd(5)} ${r.name}${r.materialized ? ` [${r.materialized}]` : ''}${rows} ${(r.durationMs / 1000).toFixed(2)}s${extra}`;
  if (r.failingRows?.length) s += '\n' + r.failingRows.slice(0, 10).map((x) => `      ${JSON.stringify(x)}`).join('\n');
  return s;
}

/** The flags of `models run|test|build` as the `models.*` job params they stand for (`project` is the CLI's alone). */
export function modelsParamsOf(f: Flags): Record<string, unknown> {
  return Object.fromEntries(Object.entries({ select: f.select, exclude: f.exclude, fullRefresh: f.fullRefresh, vars: f.vars, target: f.target, project: f.project }).filter(([, v]) => v !== undefined));
}

async function runCommand({ withCli }: CliEdge, command: ModelsCommand, f: Flags): Promise<void> {
  await withCli(async (ctx) => {
    try {
      // Recorded as a run (source cli) so the Runs page shows it live; stored like a models.* job's result.
      const params = modelsParamsOf(f);
      const s = await recordCliRun(ctx.pool, { kind: `models.${command}`, params, logger: ctx.logger, level: ctx.env.LOG_LEVEL },
        (run) => runModelsCommand({ ...deps(ctx), logger: run.logger }, {
          command, select: f.select, exclude: f.exclude, fullRefresh: f.fullRefresh, vars: f.vars, target: f.target, project: f.project,
          runId: `cli-${run.runId}`,
          onResult: (r, done, total) => { run.progress(done, total); if (!f.json) out(line(r)); },
        }),
        (x) => ({
          result: { command, ok: x.ok, target: x.target, durationMs: x.durationMs, warnings: x.warnings.map((w) => w.message), results: x.results.map(({ sql, failingRows, ...r }) => { void sql; return { ...r, failingRows: failingRows?.length ? failingRows.slice(0, 10) : undefined }; }) },
          error: x.ok ? null : `models: ${command}: ${x.results.filter((r) => r.status === 'error' || r.status === 'fail' || r.status === 'skipped').length} of ${x.results.length} did not succeed`,
        }));
      if (f.json) out(JSON.stringify({ command, ok: s.ok, target: s.target, durationMs: s.durationMs, results: s.results, warnings: s.warnings }, null, 2));
      else {
        printWarnings(s.warnings);
        const n = (st: string) => s.results.filter((r) => r.status === st).length;
        out(`${s.ok ? 'Done' : 'FAILED'}: ${s.results.length} nodes — ${n('success')} built, ${n('pass')} passed, ${n('warn')} warned, ${n('fail')} failed, ${n('error')} errors, ${n('skipped')} skipped (${(s.durationMs / 1000).toFixed(1)}s)`);
      }
      if (!s.ok) process.exitCode = 1;
    } catch (e) { process.exitCode = exitCodeFor(e); throw e; }
  });
}

function printWarnings(ws: { message: string }[]): void {
  for (const w of ws) process.stderr.write(`warning: ${w.message}\n`);
}

export function registerModelsCommands(program: Command, cli: CliEdge): void {
  const { withCli } = cli;
  const models = program.command('models').description('SQL models over the lake, materialised in ClickHouse (dbt-style run / test / build)');
  for (const [cmd, desc] of [
    ['run', 'materialise the selected models (views, tables, incremental tables)'],
    ['test', 'run the tests of the selected models'],
    ['build', 'seeds, models and their tests in DAG order, skipping what lies downstream of a failure'],
    ['seed', 'load the selected seeds (seeds/*.csv) into tables'],
  ] as const) {
    const c = common(models.command(cmd).description(desc));
    if (cmd === 'seed') c.option('--full-refresh', "dbt's flag, accepted: a seed is re-created on every load");
    else if (cmd !== 'test') c.option('--full-refresh', 'rebuild incremental models from scratch');
    c.action(async (f: Flags) => runCommand(cli, cmd, f));
  }
  common(models.command('compile').description('render the selected models and tests; SQL written under <project>/target/compiled/'))
    .action(async (f: Flags) => withCli(async (ctx) => {
      try {
        const r = await compileModels(deps(ctx), { select: f.select, exclude: f.exclude, vars: f.vars, target: f.target, project: f.project });
        if (!f.json) printWarnings(r.warnings);
        if (f.json) out(JSON.stringify(r, null, 2));
        else for (const n of r.nodes) out(n.error ? `ERROR ${n.kind} ${n.name}: ${n.error}` : `-- ${n.kind} ${n.name} (${n.path})\n${n.sql}\n`);
        if (!f.json) out(`${r.written.length} files written under target/compiled/`);
        if (r.nodes.some((n) => n.error)) process.exitCode = 1;
      } catch (e) { process.exitCode = exitCodeFor(e); throw e; }
    }));
  common(models.command('list').description('the selected models and tests with their materialisation, tags and dependencies'))
    .action(async (f: Flags) => withCli(async (ctx) => {
      try {
        const p = await loadModelsProject(deps(ctx), { project: f.project, vars: f.vars });
        for (const e of p.errors) process.stderr.write(`error: ${e.message}\n`);
        const g = buildGraph(p);
        const warnings = [...p.warnings];
        const chosen = selectNodes(p, g, f.select ?? [], f.exclude ?? [], (message) => warnings.push({ path: '', message }));
        if (chosen.size === 0) warnings.push({ path: '', message: NO_NODES_SELECTED });
        if (!f.json) printWarnings(warnings);
        const items = [
          ...g.order.filter((id) => chosen.has(id)).map((id) => {
            if (id.startsWith('seed:')) { const sd = p.seeds.get(id.slice(5))!; return { kind: 'seed', name: sd.name, path: sd.path, materialized: 'seed', tags: sd.config.tags, refs: [] as string[], sources: [] as string[] }; }
            const m = p.models.get(id.slice(6))!; return { kind: 'model', name: m.name, path: m.path, materialized: m.config.materialized, tags: m.config.tags, refs: m.refs, sources: m.sources };
          }),
          ...[...p.tests.values()].filter((t) => chosen.has(`test:${t.name}`)).map((t) => ({ kind: 'test', name: t.name, path: t.path, severity: t.severity, refs: t.refs })),
        ];
        if (f.json) out(JSON.stringify({ project: p.root, nodes: items, errors: p.errors, warnings }, null, 2));
        else for (const i of items) out(`${i.kind.padEnd(5)} ${i.name}${'materialized' in i ? ` [${i.materialized}]` : ''}  ${i.path}${i.refs.length ? `  ← ${i.refs.join(', ')}` : ''}`);
        if (p.errors.length) process.exitCode = 2;
      } catch (e) { process.exitCode = exitCodeFor(e); throw e; }
    }));
  models.command('query').description('a read-only SELECT on the target (first 1,000 rows)')
    .argument('<sql>', 'one SELECT statement')
    .option('--target <name>', 'a clickhouse connection, or embedded (Default: embedded)')
    .option('--format <format>', 'csv or json (Default: csv)', 'csv')
    .action(async (sql: string, f: { target?: string; format: string }) => {
      if (f.format !== 'csv' && f.format !== 'json') throw new InvalidArgumentError('--format must be csv or json');
      await withCli(async (ctx) => {
        try {
          const r = await queryModels(deps(ctx), { sql, target: f.target });
          if (f.format === 'json') out(JSON.stringify(r.rows, null, 2));
          else {
            out(csvLine(r.columns.map((c) => c.name)));
            for (const row of r.rows) out(csvLine(r.columns.map((c) => row[c.name])));
          }
          if (r.truncated) process.stderr.write('note: only the first 1000 rows are shown\n');
        } catch (e) { process.exitCode = exitCodeFor(e); throw e; }
      });
    });
}
