import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { keyBatch, timestampTextMicros } from './key-values';

describe('key values as Arrow columns', () => {
  it('timestamp text keeps its microseconds, read as a UTC wall clock (an offset converts)', () => {
    expect(timestampTextMicros('2022-05-01 10:09:00.25')).toBe(BigInt(Date.UTC(2022, 4, 1, 10, 9, 0)) * 1000n + 250_000n);
    expect(timestampTextMicros('2022-05-01T10:09:00.123456789')).toBe(BigInt(Date.UTC(2022, 4, 1, 10, 9, 0)) * 1000n + 123_456n);
    expect(timestampTextMicros('2022-05-01 12:09:00.000001+02:00')).toBe(BigInt(Date.UTC(2022, 4, 1, 10, 9, 0)) * 1000n + 1n);
    expect(timestampTextMicros('1969-12-31 23:59:59.5')).toBe(-500_000n);
    expect(timestampTextMicros('not a time')).toBeNull();
  });

  it('builds typed key columns from text: long, decimal, date, timestamp (µs), binary hex, with nulls', () => {
    const fields = [
      new arrow.Field('ID', new arrow.Int64()), new arrow.Field('AMT', new arrow.Decimal(2, 10, 128)), new arrow.Field('D', new arrow.DateDay()),
      new arrow.Field('TS', new arrow.TimestampMicrosecond()), new arrow.Field('B', new arrow.Binary()),
    ];
    const b = keyBatch(fields, [['9007199254740993', '12.5', '2022-05-01 00:00:00', '2022-05-01 10:09:00.654321', '00ff'], [null, null, null, null, null]]);
    expect(b.numRows).toBe(2);
    expect(b.getChild('ID')!.get(0)).toBe(9007199254740993n);
    expect(b.getChild('D')!.data[0].values[0]).toBe(Date.UTC(2022, 4, 1) / 86_400_000);
    expect((b.getChild('TS')!.data[0].values as BigInt64Array)[0]).toBe(BigInt(Date.UTC(2022, 4, 1, 10, 9, 0)) * 1000n + 654_321n);
    expect([...(b.getChild('B')!.get(0) as Uint8Array)]).toEqual([0, 255]);
    expect(fields.map((f) => b.getChild(f.name)!.get(1))).toEqual([null, null, null, null, null]);
  });
});
