import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../lib/cli/main';
import { commandLineFor } from '../lib/pipelines/command-line';
import { requestFromFlags } from '../lib/etl/cli';
import { dqOptionsFromFlags } from '../lib/dq/cli';
import { EtlRequest } from '../lib/etl/request';
import { DqRequest } from '../lib/dq/request';
import { jobDefinitions } from './jobs';

/** Every command the CLI registers, built as `tributary` builds them. */
async function program(): Promise<Command> {
  const p = new Command('tributary').exitOverride();
  for (const m of COMMANDS) (await m.load())(p);
  return p;
}

/** The sub-command a shown line names (`tributary slices run …` → slices › run). */
function commandOf(p: Command, words: string[]): { cmd: Command; rest: string[] } | null {
  let cmd = p; let i = 0;
  for (; i < words.length && !words[i].startsWith('-'); i++) {
    const sub = cmd.commands.find((c) => c.name() === words[i]);
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
async function parse(line: string): Promise<{ cmd: Command; opts: Record<string, unknown>; unknown: string[] }> {
  const words = shellWords(line);
  expect(words[0]).toBe('tributary');
  const found = commandOf(await program(), words.slice(1));
  if (!found) throw new Error(`no command for: ${line}`);
  const r = found.cmd.parseOptions(found.rest);
  return { cmd: found.cmd, opts: found.cmd.opts(), unknown: r.unknown };
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
