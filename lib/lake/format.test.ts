import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { plainRow, timestampIso } from './format';

// What `lake scan`, exports and the API's row preview print for a timestamp: every digit the
// lake holds (arrow-js hands a microsecond value over as a float of milliseconds, which cannot
// hold it), whole milliseconds as before.
describe('timestamps as text', () => {
  const us = new arrow.TimestampMicrosecond(), usz = new arrow.TimestampMicrosecond('UTC');
  it('keeps the microseconds and nanoseconds a value has; whole milliseconds print three digits', () => {
    expect(timestampIso(us, 1_700_000_007_123_456n)).toBe('2023-11-14T22:13:27.123456');
    expect(timestampIso(us, 1_700_000_007_123_000n)).toBe('2023-11-14T22:13:27.123');
    expect(timestampIso(usz, 1n)).toBe('1970-01-01T00:00:00.000001Z');
    expect(timestampIso(new arrow.TimestampNanosecond(), 1_700_000_007_123_456_789n)).toBe('2023-11-14T22:13:27.123456789');
    expect(timestampIso(new arrow.TimestampMillisecond('UTC'), 1_700_000_007_123n)).toBe('2023-11-14T22:13:27.123Z');
    expect(timestampIso(new arrow.TimestampSecond(), 1_700_000_007n)).toBe('2023-11-14T22:13:27.000');
    // before 1970 the fraction counts up from the millisecond below
    expect(timestampIso(us, -1n)).toBe('1969-12-31T23:59:59.999999');
    expect(timestampIso(us, -1_000_001n)).toBe('1969-12-31T23:59:58.999999');
  });

  it('a row of a batch, whole or sliced, with nulls', () => {
    const schema = new arrow.Schema([new arrow.Field('t', us, true), new arrow.Field('n', new arrow.Int32(), true)]);
    const t = arrow.makeData({ type: us, length: 3, nullCount: 1, nullBitmap: new Uint8Array([0b101]), data: new BigInt64Array([1_700_000_007_123_456n, 0n, -1_000_001n]) });
    const n = arrow.makeData({ type: new arrow.Int32(), length: 3, nullCount: 0, data: new Int32Array([1, 2, 3]) });
    const b = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: 3, nullCount: 0, children: [t, n] }));
    expect([0, 1, 2].map((i) => plainRow(b, i))).toEqual([
      { t: '2023-11-14T22:13:27.123456', n: 1 }, { t: null, n: 2 }, { t: '1969-12-31T23:59:58.999999', n: 3 },
    ]);
    expect(plainRow(b.slice(2, 3), 0)).toEqual({ t: '1969-12-31T23:59:58.999999', n: 3 });
  });
});
