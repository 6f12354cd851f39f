import { describe, expect, it } from 'vitest';
import { createLogger, type LogRecord } from '../log';
import { createPool } from '../db/pool';
import { createBoss } from './queue';

describe('pg-boss errors', () => {
  it('are logged through the logger handed in (redacted), not swallowed', async () => {
    const lines: LogRecord[] = [];
    const pool = createPool('postgres://nobody:x@127.0.0.1:9/none', { max: 1 });
    try {
      const boss = createBoss(pool, { logger: createLogger((r) => lines.push(r)) });
      // What pg-boss does when its maintenance or a poll fails.
      boss.emit('error', Object.assign(new Error('maintenance failed at postgres://app:hunter2@db/x'), { code: '57P01' }));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'warn', message: 'jobs: pg-boss error', fields: { code: '57P01' } });
      expect(lines[0].fields.error).toBe('maintenance failed at postgres://app:***@db/x');
    } finally {
      await pool.end();
    }
  });
});
