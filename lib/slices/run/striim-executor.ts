import { pause } from './backoff';
import type { RunLog } from './run-log';
import type { RunSettings } from './settings';
import type { SliceRow } from './state';
import type { StriimAppStatus, StriimClient } from './striim-client';
import { deferred, formatDuration, type RunningSlice, type SliceExecutor, type SliceOutcome } from './executor';
import { providerType, renderTql } from './tql-template';

const DONE = new Set(['QUIESCED', 'COMPLETED']);
const DEAD = new Set(['HALTED', 'TERMINATED', 'STOPPED', 'CRASH']);

interface Watched {
  slice: SliceRow;
  full: string;
  namespace: string;
  since: number;
  misses: number;
  settle(o: SliceOutcome): void;
}

/** Namespace of slice n of run r: `ILA_<r>_<n>` (seed 001, section 13). */
export function sliceNamespace(prefix: string, runId: number, roworder: number): string {
  return `${prefix}${runId}_${roworder}`;
}

/** One TQL exchange; a thrown error (Striim unreachable) reads as a failed command. */
async function execQuietly(client: StriimClient, tql: string) {
  try { return await client.exec(tql); } catch (e) { return { ok: false, failureMessage: (e as Error).message, results: [] }; }
}

/** Undeploy, drop app, drop namespace; returns failure messages (empty = clean). */
async function cleanupApp(client: StriimClient, full: string, ns: string, opts: { stop?: boolean } = {}): Promise<string[]> {
  const exec = (tql: string) => execQuietly(client, tql);
  const errs: string[] = [];
  if (opts.stop) await exec(`STOP APPLICATION ${full};`); // may legitimately fail (not running)
  const u = await exec(`UNDEPLOY APPLICATION ${full};`);
  if (!u.ok && !/not deployed|No objects|not found|Cannot find/i.test(u.failureMessage)) errs.push(`undeploy: ${u.failureMessage}`);
  const d = await exec(`DROP APPLICATION ${full} CASCADE;`);
  if (!d.ok && !/No objects|not found|Cannot find/i.test(d.failureMessage)) errs.push(`drop application: ${d.failureMessage}`);
  const n = await exec(`DROP NAMESPACE ${ns} CASCADE;`);
  if (!n.ok && !/No objects|does not exist/i.test(n.failureMessage)) errs.push(`drop namespace: ${n.failureMessage}`);
  return errs;
}

/** `: <exception>` of a dead app as `mon <app>` reports it, or '' (the status alone will do). */
async function exceptionOf(client: StriimClient, full: string): Promise<string> {
  try {
    const r = await client.tungsten(`mon ${full};`);
    const ex = (r[0]?.output as { striimApplications?: { exception?: string }[] } | null)?.striimApplications?.[0]?.exception;
    return ex ? `: ${ex}` : '';
  } catch { return ''; }
}

const failed = (namespace: string, full: string, notes: string): RunningSlice =>
  ({ namespace, appname: full, done: Promise.resolve({ status: 'FAILED', notes }), cancel: async () => {} });

/** Create, deploy and start a slice's app in its own namespace; the failure's notes (undoing what was made), or null. */
async function startApp(client: StriimClient, s: RunSettings, template: string, slice: SliceRow, ns: string, full: string): Promise<string | null> {
  const exec = (tql: string) => execQuietly(client, tql);
  let tql: string;
  try {
    tql = renderTql(template, {
      query: slice.query, target: slice.targettbl,
      providerSrc: providerType(s.sourceEngine, s.providerSrc), providerTgt: providerType(s.targetEngine, s.providerTgt),
    });
  } catch (e) { return `[create] ${(e as Error).message}`; }
  await exec(`DROP NAMESPACE ${ns} CASCADE;`); // leftovers of an earlier attempt; "No objects" is fine
  const c = await exec(`CREATE NAMESPACE ${ns};`);
  if (!c.ok) return `[create] Unable to create namespace: ${c.failureMessage}`;
  const a = await exec(`USE ${ns}; ${tql}`);
  if (!a.ok) { await exec(`DROP NAMESPACE ${ns} CASCADE;`); return `[create] Unable to create: ${a.failureMessage}`; }
  const d = await exec(`DEPLOY APPLICATION ${full} IN ${s.deploymentGroup};`);
  if (!d.ok) { await exec(`DROP APPLICATION ${full} CASCADE; DROP NAMESPACE ${ns} CASCADE;`); return `[deploy] Unable to deploy: ${d.failureMessage}`; }
  const st = await exec(`START APPLICATION ${full};`);
  if (!st.ok) { await cleanupApp(client, full, ns); return `[start] Start App Failed: ${st.failureMessage}`; }
  return null;
}

/**
 * Runs each slice as one Striim application: drop + create its namespace,
 * create the app from the run's template, DEPLOY … IN <group>, START; one `mon`
 * poll per interval for all apps in flight; on QUIESCED/COMPLETED undeploy,
 * drop app, drop namespace (COMPLETED-FAILEDDROP when that cleanup fails).
 */
export function createStriimExecutor(deps: {
  client: StriimClient; settings: RunSettings; template: string; appName: string; log: RunLog;
}): SliceExecutor {
  const { client, settings: s, template, appName, log } = deps;
  const watched = new Map<string, Watched>();
  const rates = new Map<number, number>();
  let closed = false;
  let poller: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  const exec = (tql: string) => execQuietly(client, tql);
  const cleanup = (full: string, ns: string, opts: { stop?: boolean } = {}) => cleanupApp(client, full, ns, opts);

  async function onStatus(w: Watched, app: StriimAppStatus | undefined) {
    if (!app) {
      // An app that vanished (dropped by hand, node restart) cannot finish.
      if (++w.misses >= 3) {
        watched.delete(w.full);
        w.settle({ status: 'FAILED', notes: `[runtime] application ${w.full} disappeared from Striim` });
      }
      return;
    }
    w.misses = 0;
    if (app.rate !== null) rates.set(w.slice.id, app.rate);
    if (DONE.has(app.statusChange)) {
      watched.delete(w.full);
      rates.delete(w.slice.id);
      const errs = await cleanup(w.full, w.namespace);
      const took = `Total Execution time: ${formatDuration(Date.now() - w.since)}`;
      log.info(`slice ${w.slice.roworder} ${app.statusChange} → ${errs.length ? 'COMPLETED-FAILEDDROP' : 'COMPLETED'}`, { slice: w.slice.roworder, fields: { app: w.full } });
      w.settle(errs.length
        ? { status: 'COMPLETED-FAILEDDROP', notes: `${took}; cleanup failed: ${errs.join('; ')}` }
        : { status: 'COMPLETED', notes: took });
    } else if (DEAD.has(app.statusChange)) {
      watched.delete(w.full);
      rates.delete(w.slice.id);
      const detail = await exceptionOf(client, w.full);
      await cleanup(w.full, w.namespace, { stop: true });
      w.settle({ status: 'FAILED', notes: `[runtime] application ${app.statusChange}${detail}` });
    }
  }

  async function pollLoop() {
    while (!closed && watched.size > 0) {
      try {
        const apps = await client.mon();
        const byName = new Map(apps.map((a) => [a.fullName, a]));
        for (const w of [...watched.values()]) await onStatus(w, byName.get(w.full));
      } catch (e) {
        log.warn(`striim: mon failed (${(e as Error).message}); will poll again`);
      }
      if (watched.size === 0) break;
      // Wait one monitor interval; `wake()` (a slice started, or close) cuts it short.
      const woken = new AbortController();
      wake = () => woken.abort();
      await pause(s.monitorIntervalSeconds * 1000, woken.signal);
      wake = null;
    }
    poller = null;
  }

  function watch(slice: SliceRow, full: string, namespace: string, since: number): RunningSlice {
    const d = deferred<SliceOutcome>();
    const w: Watched = { slice, full, namespace, since, misses: 0, settle: d.resolve };
    watched.set(full, w);
    if (!poller) poller = pollLoop();
    return {
      namespace, appname: full, done: d.promise,
      cancel: async (reason) => {
        if (!watched.has(full)) return;
        watched.delete(full);
        rates.delete(slice.id);
        const errs = await cleanup(full, namespace, { stop: true });
        d.resolve({ status: 'FAILED', notes: reason + (errs.length ? `; cleanup failed: ${errs.join('; ')}` : '') });
      },
    };
  }

  return {
    kind: 'striim',
    placement: (slice) => {
      const ns = sliceNamespace(s.namespacePrefix, slice.uniquerunid, slice.roworder);
      return { namespace: ns, appname: `${ns}.${appName}` };
    },
    async launch(slice) {
      const ns = sliceNamespace(s.namespacePrefix, slice.uniquerunid, slice.roworder);
      const full = `${ns}.${appName}`;
      const refused = await startApp(client, s, template, slice, ns, full);
      if (refused) return failed(ns, full, refused);
      log.info(`slice ${slice.roworder} started as ${full}`, { slice: slice.roworder, kind: 'appeared', fields: { app: full } });
      return watch(slice, full, ns, Date.now());
    },
    async adopt(slice) {
      if (!slice.namespace || !slice.appname) return null;
      let apps: StriimAppStatus[];
      try { apps = await client.mon(); } catch { return null; }
      const app = apps.find((x) => x.fullName === slice.appname);
      if (!app) return null;
      log.info(`slice ${slice.roworder}: adopting ${slice.appname} (${app.statusChange}) left by a previous orchestrator`, { slice: slice.roworder });
      if (app.statusChange === 'CREATED' || app.statusChange === 'DEPLOYED') {
        await cleanup(slice.appname, slice.namespace); // never started: start over
        return null;
      }
      const rs = watch(slice, slice.appname, slice.namespace, slice.started_datetime?.getTime() ?? Date.now());
      wake?.();
      return rs;
    },
    liveRates: () => new Map(rates),
    async close() { closed = true; wake?.(); await poller; },
  };
}
