import { describe, expect, it } from 'vitest';
import { commandLineFor, pipelineCommandLine, rowsOfResult } from './command-line';

describe('commandLineFor', () => {
  it('renders the CLI equivalent of a job spec', () => {
    expect(commandLineFor('etl.run', { mode: 'INITIAL', branch: ['b1', 'b2'], selfTest: true, plan: false }))
      .toBe('tributary etl --mode INITIAL --branch b1,b2 --self-test');
    expect(commandLineFor('slices.run', { runId: 7, query: "select * from t where x = 'a'" }))
      .toBe(`tributary slices run --run-id 7 --query 'select * from t where x = '\\''a'\\'''`);
    expect(commandLineFor('dq.run', {})).toBe('tributary dq');
  });
  it('writes positional arguments, CLI command names and variadic lists as the CLI takes them', () => {
    expect(commandLineFor('lake.remove_orphans', { dryRun: true, table: 'default.orders' }))
      .toBe('tributary lake remove-orphans default.orders --dry-run');
    expect(commandLineFor('flows.run', { flow: 'nightly load' })).toBe("tributary flows run 'nightly load'");
    // Two selectors are a union; joined by a comma they would be a dbt intersection.
    expect(commandLineFor('models.run', { select: ['+orders', 'tag:daily'], exclude: 'a b' }))
      .toBe('tributary models run --select +orders tag:daily --exclude a b');
    expect(commandLineFor('lake.compact', { table: 'default.t', partition: { region: 'north' } })).toBe('tributary lake compact default.t --partition north');
  });
  it('shows `pipelines run <name>` for a saved pipeline whose kind has no command', () => {
    expect(pipelineCommandLine({ name: 'probe', kind: 'system.check', params: {} })).toBe('tributary pipelines run probe');
    expect(pipelineCommandLine({ name: 'x', kind: 'dq.run', params: {} })).toBe('tributary dq');
  });
  it('reads rows from results', () => {
    expect(rowsOfResult({ units: [{ rows: 3 }, { rows: 4 }] })).toBe(7);
    expect(rowsOfResult({ rows: 5 })).toBe(5);
    expect(rowsOfResult({ database: 'ok' })).toBeNull();
  });
});
