import { describe, expect, it } from 'vitest';
import { commandLineFor, rowsOfResult } from './command-line';

describe('commandLineFor', () => {
  it('renders the CLI equivalent of a job spec', () => {
    expect(commandLineFor('etl.run', { mode: 'INITIAL', branch: ['b1', 'b2'], selfTest: true, plan: false }))
      .toBe('tributary etl --mode INITIAL --branch b1,b2 --self-test');
    expect(commandLineFor('slices.run', { runId: 7, query: "select * from t where x = 'a'" }))
      .toBe(`tributary slices run --run-id 7 --query 'select * from t where x = '\\''a'\\'''`);
    expect(commandLineFor('dq.run', {})).toBe('tributary dq');
  });
  it('reads rows from results', () => {
    expect(rowsOfResult({ units: [{ rows: 3 }, { rows: 4 }] })).toBe(7);
    expect(rowsOfResult({ rows: 5 })).toBe(5);
    expect(rowsOfResult({ database: 'ok' })).toBeNull();
  });
});
