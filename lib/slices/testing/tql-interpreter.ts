import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../log';
import { silentLogger } from '../../log';
import { parseComponent, prop, splitTql } from '../run/tql-parse';
import type { Copier } from './copier';

/**
 * The Striim emulator's TQL interpreter, with no HTTP and no database: the
 * statements the orchestrator sends (namespaces, property variables,
 * CREATE APPLICATION … END APPLICATION, DEPLOY / START / STOP / UNDEPLOY /
 * DROP, `mon`), Striim's application status lifecycle and the injected
 * faults. A started application hands its rows to the `copier`; when that
 * resolves with QuiesceOnILCompletion set, the app goes QUIESCING → QUIESCED.
 */
export interface EmulatorFaults {
  /** DEPLOY of an app whose full name matches fails. (Default: none) */
  failDeploy?: RegExp | null;
  /** STOP/UNDEPLOY/DROP APPLICATION of a matching app fails (cleanup failure). (Default: none) */
  failUndeploy?: RegExp | null;
  /** The next N HTTP requests (any endpoint) answer 503. (Default: 0) */
  http503?: number;
  /** Matching apps copy everything but never quiesce (stay RUNNING). (Default: none) */
  neverQuiesce?: RegExp | null;
  /** Matching apps die (TERMINATED) after copying half their rows… */
  dieHalfway?: RegExp | null;
  /** …this many times in all (counts down), then copy normally. (Default: 1) */
  dieHalfwayTimes?: number;
  /** Pause after each written batch, in ms, to make copies last. (Default: 0) */
  batchDelayMs?: number;
}

export interface EmulatorApp {
  namespace: string;
  name: string;
  fullName: string;
  status: string;
  source: Record<string, string> | null;
  target: Record<string, string> | null;
  rowsRead: number;
  rowsWritten: number;
  startedAt: number | null;
  lastActivity: number | null;
  copyMs: number;
  error: string | null;
  abort: AbortController | null;
  task: Promise<void> | null;
}

export interface EmulatorStats {
  requests: number;
  http503Served: number;
  tokensIssued: number;
  tokenRejections: number;
  deploys: number;
  starts: number;
  batches: number;
  rowsWritten: number;
  /** Sum of every app's copy time (ms): what a copy costs, to subtract from orchestration time. */
  copyMs: number;
  commands: string[];
}

export interface CommandResult { command: string; executionStatus: 'Success' | 'Failure'; failureMessage: string | null; output: unknown }


export interface TqlInterpreterOptions {
  copier: Copier;
  faults?: EmulatorFaults;
  /** Pre-set property variables, by full name (`admin.SourceConnectionString` …). */
  propertyVariables?: Record<string, string>;
  /** Status an app reaches when its read is exhausted with QuiesceOnILCompletion. (Default: QUIESCED) */
  completionStatus?: 'QUIESCED' | 'COMPLETED';
  logger?: Logger;
}

export interface TqlInterpreter {
  faults: EmulatorFaults;
  stats: EmulatorStats;
  apps: Map<string, EmulatorApp>;
  namespaces: Set<string>;
  /** Run TQL statements in a session (its current namespace changes with USE). */
  execute(tql: string, session?: { ns: string }): Promise<CommandResult[]>;
  /** Stop every copy and wait for them to end. */
  stopAll(): Promise<void>;
}

const ok = (command: string, output: unknown = null): CommandResult => ({ command, executionStatus: 'Success', failureMessage: null, output });
const fail = (command: string, msg: string): CommandResult => ({ command, executionStatus: 'Failure', failureMessage: msg, output: null });

const DEPLOYED = new Set(['DEPLOYED', 'RUNNING', 'QUIESCING', 'QUIESCED', 'COMPLETED', 'STOPPED', 'HALTED', 'TERMINATED']);

/** The interpreter's state the command groups below work on. */
interface InterpreterState { apps: Map<string, EmulatorApp>; namespaces: Set<string>; faults: EmulatorFaults; stats: EmulatorStats }

const findIn = (st: InterpreterState, ref: string, ns: string): EmulatorApp | undefined => st.apps.get(ref.includes('.') ? ref : `${ns}.${ref}`);

function monEntry(a: EmulatorApp) {
  const secs = a.startedAt ? Math.max(0.001, ((a.lastActivity ?? Date.now()) - a.startedAt) / 1000) : 0;
  const rate = a.status === 'RUNNING' && secs > 0 ? Math.round(a.rowsWritten / secs) : 0;
  return {
    entityType: 'APPLICATION', fullName: a.fullName, statusChange: a.status,
    rate, sourceRate: a.status === 'RUNNING' && secs > 0 ? Math.round(a.rowsRead / secs) : 0,
    cpuRate: 0, numServers: DEPLOYED.has(a.status) ? 1 : 0,
    latestActivity: a.lastActivity ? new Date(a.lastActivity).toISOString() : null,
  };
}

/** USE, CREATE NAMESPACE, DROP NAMESPACE; null for any other command. */
function namespaceCommand(st: InterpreterState, cmd: string, short: string, session: { ns: string }): CommandResult | null {
  const { apps, namespaces, faults } = st;
  const stopCopy = (a: EmulatorApp) => { a.abort?.abort(); a.abort = null; };
  let m: RegExpExecArray | null;
  if ((m = /^use (\w+)$/i.exec(cmd))) {
    if (!namespaces.has(m[1])) return fail(short, `Namespace ${m[1]} does not exist`);
    session.ns = m[1];
    return ok(short);
  }
  if ((m = /^create namespace (\w+)$/i.exec(cmd))) {
    if (namespaces.has(m[1])) return fail(short, `Namespace ${m[1]} already exists`);
    namespaces.add(m[1]);
    return ok(short);
  }
  if ((m = /^drop namespace (\w+)( cascade)?$/i.exec(cmd))) {
    const ns = m[1];
    if (!namespaces.has(ns)) return fail(short, `No objects found: namespace ${ns} does not exist`);
    const inNs = [...apps.values()].filter((a) => a.namespace === ns);
    if (inNs.length && !m[2]) return fail(short, `Namespace ${ns} is not empty; use CASCADE`);
    const stuck = inNs.find((a) => faults.failUndeploy?.test(a.fullName));
    if (stuck) return fail(short, `DROP NAMESPACE ${ns} failed: ${stuck.fullName} could not be removed (injected cleanup failure)`);
    for (const a of inNs) { stopCopy(a); apps.delete(a.fullName); }
    namespaces.delete(ns);
    if (session.ns === ns) session.ns = 'admin';
    return ok(short);
  }
  return null;
}

/** DEPLOY, START, STOP, UNDEPLOY, DROP APPLICATION and MON; null for any other command. */
function appCommand(st: InterpreterState, cmd: string, short: string, session: { ns: string }, startApp: (a: EmulatorApp) => void): CommandResult | null {
  const { apps, faults, stats } = st;
  const findApp = (ref: string, ns: string) => findIn(st, ref, ns);
  const stopCopy = (a: EmulatorApp) => { a.abort?.abort(); a.abort = null; };
  let m: RegExpExecArray | null;
  if ((m = /^deploy application ([\w.]+)(?: (?:in|on) .*)?$/i.exec(cmd))) {
    const a = findApp(m[1], session.ns);
    if (!a) return fail(short, `Application ${m[1]} not found`);
    if (a.status !== 'CREATED') return fail(short, `Application ${a.fullName} is already ${a.status}`);
    if (faults.failDeploy?.test(a.fullName)) return fail(short, `Deployment of ${a.fullName} failed: com.webaction.exception.FatalException: injected deploy failure`);
    if (!a.source || !a.target) return fail(short, `Application ${a.fullName} has no source or target`);
    stats.deploys++;
    a.status = 'DEPLOYED';
    return ok(short);
  }
  if ((m = /^start application ([\w.]+)$/i.exec(cmd))) {
    const a = findApp(m[1], session.ns);
    if (!a) return fail(short, `Application ${m[1]} not found`);
    if (a.status !== 'DEPLOYED' && a.status !== 'STOPPED') return fail(short, `Application ${a.fullName} cannot start from ${a.status}`);
    startApp(a);
    return ok(short);
  }
  if ((m = /^(stop|undeploy) application ([\w.]+)$/i.exec(cmd))) {
    const a = findApp(m[2], session.ns);
    if (!a) return fail(short, `Application ${m[2]} not found`);
    if (faults.failUndeploy?.test(a.fullName)) return fail(short, `${m[1].toUpperCase()} of ${a.fullName} failed: injected cleanup failure`);
    stopCopy(a);
    if (m[1].toLowerCase() === 'stop') {
      if (!DEPLOYED.has(a.status)) return fail(short, `Application ${a.fullName} is not running (${a.status})`);
      a.status = 'STOPPED';
    } else {
      if (!DEPLOYED.has(a.status)) return fail(short, `Application ${a.fullName} is not deployed (${a.status})`);
      a.status = 'CREATED';
    }
    return ok(short);
  }
  if ((m = /^drop application ([\w.]+)( cascade)?$/i.exec(cmd))) {
    const a = findApp(m[1], session.ns);
    if (!a) return fail(short, `No objects found: application ${m[1]}`);
    if (faults.failUndeploy?.test(a.fullName)) return fail(short, `DROP of ${a.fullName} failed: injected cleanup failure`);
    if (a.status !== 'CREATED' && a.status !== 'STOPPED' && a.status !== 'TERMINATED' && a.status !== 'HALTED') return fail(short, `Application ${a.fullName} is ${a.status}; undeploy it first`);
    stopCopy(a);
    apps.delete(a.fullName);
    return ok(short);
  }
  if ((m = /^mon(?: ([\w.]+))?$/i.exec(cmd))) {
    if (m[1]) {
      const a = findApp(m[1], session.ns);
      if (!a) return fail(short, `No objects found: ${m[1]}`);
      return ok(short, { striimApplications: [{ ...monEntry(a), rowsRead: a.rowsRead, rowsWritten: a.rowsWritten, exception: a.error }] });
    }
    return ok(short, {
      striimApplications: [...apps.values()].map(monEntry),
      striimClusterNodes: [{ entityType: 'SERVER', name: 'emulator-node-1', version: 'emulator', freeMemory: 0, cpuRate: 0, uptime: 0 }],
    });
  }
  return null;
}

export function createTqlInterpreter(opts: TqlInterpreterOptions): TqlInterpreter {
  const log = opts.logger ?? silentLogger;
  const faults: EmulatorFaults = opts.faults ?? {};
  const stats: EmulatorStats = { requests: 0, http503Served: 0, tokensIssued: 0, tokenRejections: 0, deploys: 0, starts: 0, batches: 0, rowsWritten: 0, copyMs: 0, commands: [] };
  const namespaces = new Set<string>(['admin', 'Global']);
  const apps = new Map<string, EmulatorApp>();
  const propVars = new Map<string, string>(Object.entries(opts.propertyVariables ?? {}));

  const resolveVar = (v: string | undefined, ns: string): string | undefined => {
    if (!v || !v.startsWith('$')) return v;
    const name = v.slice(1);
    return propVars.get(name) ?? propVars.get(`${ns}.${name}`) ?? propVars.get(`admin.${name}`);
  };

  const findApp = (ref: string, ns: string): EmulatorApp | undefined => apps.get(ref.includes('.') ? ref : `${ns}.${ref}`);

  function stopCopy(app: EmulatorApp) {
    app.abort?.abort();
    app.abort = null;
  }

  /** The copy, then Striim's end of an initial load: QUIESCING → QUIESCED when asked to quiesce, else still RUNNING. */
  async function run(app: EmulatorApp, signal: AbortSignal): Promise<void> {
    await opts.copier(app, signal, { resolveVar, faults, stats });
    if (signal.aborted) return;
    const quiesce = /^true$/i.test(prop(app.source ?? {}, 'QuiesceOnILCompletion') ?? 'false');
    if (!quiesce || faults.neverQuiesce?.test(app.fullName)) return; // stays RUNNING, as Striim does without QuiesceOnILCompletion
    app.status = 'QUIESCING';
    await sleep(5); // a `mon` between the two may see QUIESCING, as on a real node
    if (!signal.aborted && app.status === 'QUIESCING') app.status = opts.completionStatus ?? 'QUIESCED';
  }

  function startApp(app: EmulatorApp) {
    const ac = new AbortController();
    app.abort = ac;
    app.status = 'RUNNING';
    app.startedAt = Date.now();
    app.lastActivity = Date.now();
    app.rowsRead = 0;
    app.rowsWritten = 0;
    app.error = null;
    stats.starts++;
    app.task = run(app, ac.signal).catch((e) => {
      if (ac.signal.aborted) return;
      app.status = 'TERMINATED';
      app.error = (e as Error).message;
      log.warn('striim-emulator: app terminated', { app: app.fullName, error: app.error });
    });
  }

  let building: EmulatorApp | null = null;

  async function command(stmt: string, session: { ns: string }): Promise<CommandResult> {
    const cmd = stmt.replace(/\s+/g, ' ').trim();
    const short = cmd.length > 120 ? cmd.slice(0, 117) + '...' : cmd;
    stats.commands.push(short);
    if (stats.commands.length > 500) stats.commands.shift();
    const st = { apps, namespaces, faults, stats };
    const known = namespaceCommand(st, cmd, short, session) ?? appCommand(st, cmd, short, session, startApp);
    if (known) return known;
    let m: RegExpExecArray | null;
    if ((m = /^create (?:or replace )?propertyvariable ([\w.]+) ?= ?(.*)$/i.exec(cmd))) {
      const name = m[1].includes('.') ? m[1] : `${session.ns}.${m[1]}`;
      propVars.set(name, m[2].trim().replace(/^["']|["']$/g, ''));
      return ok(short);
    }
    if ((m = /^create (or replace )?application (\w+)(?: .*)?$/i.exec(cmd))) {
      const full = `${session.ns}.${m[2]}`;
      const existing = apps.get(full);
      if (existing && !m[1]) return fail(short, `Application ${full} already exists`);
      if (existing && existing.status !== 'CREATED') return fail(short, `Application ${full} is ${existing.status}; undeploy it before replacing`);
      const app: EmulatorApp = { namespace: session.ns, name: m[2], fullName: full, status: 'CREATED', source: null, target: null, rowsRead: 0, rowsWritten: 0, startedAt: null, lastActivity: null, copyMs: 0, error: null, abort: null, task: null };
      apps.set(full, app);
      building = app;
      return ok(short);
    }
    if (/^create (or replace )?(source|target) /i.test(cmd)) {
      if (!building) return fail(short, 'No application is being defined (CREATE APPLICATION first)');
      let c;
      try { c = parseComponent(stmt); } catch (e) { return fail(short, (e as Error).message); }
      if (!c) return fail(short, 'Syntax error in component definition');
      if (c.kind === 'SOURCE') {
        if (c.adapter !== 'DatabaseReader') return fail(short, `Adapter ${c.adapter} is not supported by the emulator`);
        building.source = c.props;
      } else {
        if (c.adapter !== 'DatabaseWriter') return fail(short, `Adapter ${c.adapter} is not supported by the emulator`);
        building.target = c.props;
      }
      return ok(short);
    }
    if ((m = /^end application (\w+)$/i.exec(cmd))) {
      if (!building || building.name !== m[1]) return fail(short, `No application ${m[1]} is being defined`);
      building = null;
      return ok(short);
    }
    return fail(short, `Unsupported command in the Striim emulator: ${short}`);
  }

  async function execute(tql: string, session: { ns: string } = { ns: 'admin' }): Promise<CommandResult[]> {
    const out: CommandResult[] = [];
    for (const stmt of splitTql(tql)) out.push(await command(stmt, session));
    building = null;
    return out;
  }

  return {
    faults, stats, apps, namespaces, execute,
    stopAll: async () => {
      for (const a of apps.values()) stopCopy(a);
      // A copy's own failure was already recorded on its app (TERMINATED); here we only wait for it to end.
      await Promise.all([...apps.values()].map((a) => a.task?.catch(() => undefined)));
    },
  };
}
