import { Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { registerSlicesCommands } from './cli';
import { testCliEdge } from '../testing/cli-edge';
import { parseFlags } from './execute/context';
import { AssortRequest, BoardRequest, ClearRequest, ProbeRequest, ReconcileRequest, ResetRequest, RunRequest, SplitRequest, StatusRequest } from './requests';

const camel = (long: string) => long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
// CLI-only flags: output format, confirmation, local URLs (turned into transient connections), the emulator's own.
const CLI_ONLY = new Set(['json', 'yes', 'sourceUrl', 'targetUrl', 'striimUrl', 'register']);

function commands(): Map<string, Option[]> {
  const program = new Command();
  registerSlicesCommands(program, testCliEdge());
  const slices = program.commands.find((c) => c.name() === 'slices')!;
  return new Map(slices.commands.map((c) => [c.name(), c.options as Option[]]));
}

describe('slices request schemas', () => {
  it('every flag of an action is a field of its request schema, and every field a flag: the CLI and a job can do the same', () => {
    const cmds = commands();
    const pairs: [string, { shape: Record<string, unknown> }, string[]][] = [
      ['run', RunRequest, ['queryFileText', 'templateText']], ['reset', ResetRequest, []], ['clear', ClearRequest, []], ['reconcile', ReconcileRequest, []],
      ['status', StatusRequest, []], ['board', BoardRequest, []], ['probe', ProbeRequest, []], ['split', SplitRequest, []], ['assort', AssortRequest, []],
    ];
    for (const [name, schema, inlineOnly] of pairs) {
      const flags = cmds.get(name)!.map((o) => camel(o.long!)).filter((f) => !CLI_ONLY.has(f));
      const fields = Object.keys(schema.shape);
      expect(flags.filter((f) => !fields.includes(f)), `${name}: flags without a field`).toEqual([]);
      expect(fields.filter((f) => !flags.includes(f) && !inlineOnly.includes(f)), `${name}: fields without a flag`).toEqual([]);
    }
  });

  it('a bad flag is named as a flag; payloads are strict and bounded', () => {
    const bad = (() => { try { parseFlags(RunRequest, { runId: '3', concurrency: '0' }); } catch (e) { return e as AppError; } })()!;
    expect(bad).toBeInstanceOf(AppError);
    expect(bad.code).toBe('usage');
    expect(bad.message).toBe("slices: --concurrency must be >= 1 (got '0')");
    expect(parseFlags(RunRequest, { runId: '3', concurrency: '4', monitorInterval: '0.05', json: true })).toEqual({ runId: 3, concurrency: 4, monitorInterval: 0.05 });
    expect(() => parseFlags(SplitRequest, { table: 'a.b', target: 'a.c', chunks: 'x' }, 'argparse')).toThrow('argument --chunks: must be a positive integer (>= 1)');
    expect(RunRequest.safeParse({ runId: 1, striimUrl: 'http://x' }).success).toBe(false);
    expect(RunRequest.safeParse({ runId: 1, concurrency: 257 }).success).toBe(false);
    expect(RunRequest.safeParse({ runId: 1, queryFile: 'a', queryFileText: 'b|c.d' }).success).toBe(false);
    expect(ProbeRequest.safeParse({ table: 'a.b', sampleRows: 1e9 }).success).toBe(false);
    expect(SplitRequest.safeParse({ table: 'a.b', target: 'a.c', strategy: 'ROWID' }).data?.strategy).toBe('rowid');
  });
});
