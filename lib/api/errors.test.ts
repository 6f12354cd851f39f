// toErrorResponse: statuses from lib/errors' one table, and what reaches the log (through the logger, redacted).
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, type ErrorCode } from '../errors';
import { createLogger, type LogRecord } from '../log';
import { toErrorResponse } from './errors';

const capture = () => {
  const lines: LogRecord[] = [];
  return { lines, log: createLogger((r) => lines.push(r)) };
};

describe('toErrorResponse', () => {
  it('answers every code but internal with the status of the one table, its message and field', async () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      if (code === 'internal') continue;
      const { log } = capture();
      const r = toErrorResponse(new AppError(code, `${code} happened`, { field: 'body' }), log);
      expect([code, r.status]).toEqual([code, ERROR_CODES[code].status]);
      expect(await r.json()).toEqual({ error: { code, message: `${code} happened`, field: 'body' } });
    }
  });

  it('an oversized body is 413 payload_too_large', async () => {
    const r = toErrorResponse(new AppError('payload_too_large', 'request body is larger than 100 bytes', { field: 'body' }), capture().log);
    expect(r.status).toBe(413);
    expect((await r.json()).error.code).toBe('payload_too_large');
  });

  it('internal (a wrapped surprise) and plain errors: 500 without their text, logged once with the secret redacted', async () => {
    for (const e of [new AppError('internal', 'db: migration 0009 failed at postgres://app:hunter2@db/x'), new Error('boom at postgres://app:hunter2@db/y')]) {
      const { lines, log } = capture();
      const r = toErrorResponse(e, log);
      expect(r.status).toBe(500);
      const body = JSON.stringify(await r.json());
      expect(body).not.toContain('postgres://');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'error', message: 'api: unhandled error' });
      expect(String(lines[0].fields.error)).toContain('postgres://app:***@db/');
      expect(JSON.stringify(lines[0].fields)).not.toContain('hunter2');
    }
  });

  it('fatal is answered with its message and logged', async () => {
    const { lines, log } = capture();
    const r = toErrorResponse(new AppError('fatal', 'lake: corrupt Parquet file s3://b/t/x.parquet (unique fatal 1)'), log);
    expect([r.status, (await r.json()).error.message]).toEqual([500, 'lake: corrupt Parquet file s3://b/t/x.parquet (unique fatal 1)']);
    expect(lines.map((l) => l.message)).toEqual(['api: unhandled error']);
  });
});
