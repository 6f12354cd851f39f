import { describe, expect, it } from 'vitest';
import { isUnder, uriKey } from './uri-key';

describe('uriKey', () => {
  it('spells one file one way whatever its URI', () => {
    const k = '/wh/a b/t/data/x.parquet';
    for (const u of ['file:///wh/a%20b/t/data/x.parquet', 'file:///wh/a b/t/data/x.parquet', 'file:/wh/a b/t/data/x.parquet', 'file://localhost/wh/a%20b/t/data/x.parquet', '/wh/a b/t/data/x.parquet', '/wh/a b/t//data/./x.parquet']) {
      expect(uriKey(u), u).toBe(k);
    }
    for (const u of ['s3://lake/wh/t/x.parquet', 's3a://lake/wh/t/x.parquet', 's3n://lake/wh/t/x.parquet', 'S3A://lake/wh//t/x.parquet']) expect(uriKey(u), u).toBe('lake/wh/t/x.parquet');
    expect(uriKey('s3://lake/a%ZZ')).toBe('lake/a%ZZ'); // a stray % is part of the name
  });

  it('isUnder: strictly below the folder, never a sibling sharing its prefix', () => {
    expect(isUnder('s3://lake/wh/t/data/x', 's3a://lake/wh/t')).toBe(true);
    expect(isUnder('s3://lake/wh/tx/data/x', 's3://lake/wh/t')).toBe(false);
    expect(isUnder('file:///wh/t', 'file:///wh/t')).toBe(false);
    expect(isUnder('file:///wh/t/../u/x', 'file:///wh/t')).toBe(false);
    expect(isUnder('/wh/t/data/x', 'file:///wh/t/')).toBe(true);
  });
});
