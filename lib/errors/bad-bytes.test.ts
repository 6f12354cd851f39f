import { describe, expect, it } from 'vitest';
import { assertCleanCookies, assertCleanJson, assertCleanUrl, assertJsonDepth, decodeComponent, parseCleanJson, textProblem } from './bad-bytes';

const fieldOf = (fn: () => unknown) => { try { fn(); } catch (e) { return (e as { field?: string }).field; } return null; };

describe('bad bytes', () => {
  it('text: NUL and lone surrogates refused, paired surrogates kept', () => {
    expect(textProblem('a\u0000')).toMatch(/NUL/);
    expect(textProblem('\ud800x')).toMatch(/surrogate/);
    expect(textProblem('x\udc00')).toMatch(/surrogate/);
    expect(textProblem('😀 ü')).toBeNull();
  });

  it('percent-decoding is strict', () => {
    expect(decodeComponent('a%20b', 'q')).toBe('a b');
    expect(decodeComponent('a+b', 'q', true)).toBe('a b');
    expect(fieldOf(() => decodeComponent('%E0%A4%A', 'path'))).toBe('path');
    expect(fieldOf(() => decodeComponent('%E0%A4%41', 'path'))).toBe('path'); // well-formed escapes, invalid UTF-8
    expect(fieldOf(() => decodeComponent('%00', 'x'))).toBe('x');
    expect(fieldOf(() => decodeComponent('50%', 'x'))).toBe('x');
  });

  it('URLs and cookies name the part', () => {
    expect(fieldOf(() => assertCleanUrl('http://h/api/v1/jobs?kind=a&limit=%00'))).toBe('query.limit');
    expect(fieldOf(() => assertCleanUrl('http://h/api/v1/%E0%A4%A'))).toBe('path');
    expect(fieldOf(() => assertCleanUrl('http://h/a%2Fb/c?x=%C3%BC&y'))).toBeNull();
    expect(fieldOf(() => assertCleanCookies('a=1; foo=%E0%A4%A'))).toBe('cookie.foo');
    expect(fieldOf(() => assertCleanCookies('a="x%7Cy"; b'))).toBeNull();
  });

  it('JSON depth is bounded before parsing, strings inside strings do not count', () => {
    expect(() => assertJsonDepth('['.repeat(100_000) + ']'.repeat(100_000))).toThrow(/deeper than 64/);
    expect(() => assertJsonDepth(`"${'['.repeat(1000)}"`)).not.toThrow();
    expect(() => assertJsonDepth(`["\\"${'{'.repeat(100)}"]`)).not.toThrow();
    expect(() => assertJsonDepth('['.repeat(64) + ']'.repeat(64))).not.toThrow();
    expect(() => assertJsonDepth('['.repeat(65) + ']'.repeat(65))).toThrow();
  });

  it('JSON strings and keys are checked, named by their path', () => {
    expect(fieldOf(() => assertCleanJson({ a: [{ b: 'x\u0000' }] }))).toBe('a.0.b');
    expect(fieldOf(() => parseCleanJson('{"n":"\\ud800"}'))).toBe('n');
    expect(fieldOf(() => parseCleanJson('{"a":{"k\\u0000":1}}'))).toBe('a.k\u0000');
    expect(parseCleanJson('{"a":"\\ud83d\\ude00"}')).toEqual({ a: '😀' });
  });
});

describe('bad bytes below the API', () => {
  it('job params and pipeline/flow input are refused by the engines too (CLI files, flows)', async () => {
    const { createJobRegistry, validateJob, systemJobs } = await import('../jobs');
    const jobs = createJobRegistry(systemJobs);
    expect(fieldOf(() => validateJob(jobs, { kind: 'system.check', params: { note: 'a\u0000' } }))).toBe('params.note');
    const { parseInput, PipelineInputSchema } = await import('../pipelines');
    expect(fieldOf(() => parseInput(PipelineInputSchema, { name: 'p', description: 'x\u0000', kind: 'system.check', params: {} }, 'pipelines'))).toBe('description');
  });
});
