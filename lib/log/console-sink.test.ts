import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import { consoleSink, createLogger } from './index';

// The CLI's log lines: a field given as undefined is left out (dq's OK lines printed `error=undefined`),
// strings are written as they are and anything else as JSON.
test('console lines leave out undefined fields', () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d) => (text += d));
  createLogger(consoleSink(out), { level: 'info' }).info('checked', { table: 'orders', status: 'OK', source: 2000, error: undefined, tags: ['a'] });
  expect(text).toMatch(/ info  checked table=orders status=OK source=2000 tags=\["a"\]\n$/);
  expect(text).not.toContain('undefined');
});
