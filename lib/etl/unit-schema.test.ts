import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { schemaFromJson, schemaToJson } from './unit-schema';

describe('unit schema JSON', () => {
  it('round-trips a list column with its element field id (staged files of fanned-out units carry it)', () => {
    const el = new arrow.Field('element', new arrow.Utf8(), true, new Map([['PARQUET:field_id', '9']]));
    const s = new arrow.Schema([
      new arrow.Field('ID', new arrow.Int32(), false, new Map([['PARQUET:field_id', '1']])),
      new arrow.Field('TAGS', new arrow.List(el), true, new Map([['PARQUET:field_id', '2']])),
    ]);
    const back = schemaFromJson(JSON.parse(JSON.stringify(schemaToJson(s))));
    expect(back.fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata.get('PARQUET:field_id')])).toEqual([['ID', 'Int32', false, '1'], ['TAGS', 'List<Utf8>', true, '2']]);
    expect((back.fields[1].type as arrow.List).children[0].metadata.get('PARQUET:field_id')).toBe('9');
  });
});
