import { describe, expect, it } from 'vitest';
import { entryFromCatalog, suggestedChoice } from './entry-from-catalog';
import { parseTablesConfig } from '@/lib/config/tables-json';

describe('entries from a picked catalog table', () => {
  const payment = { table: 'shop.payment', primaryKey: ['payment_id', 'payment_date'], watermarkCandidates: [{ name: 'payment_date', type: 'timestamp with time zone' }, { name: 'payment_id', type: 'integer' }] };
  it('suggests the primary key and a time column as the watermark', () => {
    expect(suggestedChoice(payment)).toEqual({ key: ['payment_id', 'payment_date'], watermark: 'payment_date', category: 'masters' });
    expect(suggestedChoice({ table: 'a.b', primaryKey: ['id'], watermarkCandidates: [{ name: 'id', type: 'integer' }] }).watermark).toBeNull();
  });
  it('builds entries tables.json accepts', () => {
    const e1 = entryFromCatalog(payment, suggestedChoice(payment));
    expect(e1).toEqual({ table: 'shop.payment', unique_key: ['payment_id', 'payment_date'], cdc_column: 'payment_date', category: 'masters' });
    const e2 = entryFromCatalog({ table: 'shop.customers', primaryKey: ['id'], watermarkCandidates: [] }, { key: ['id'], watermark: null, category: 'masters' });
    expect(e2).toEqual({ table: 'shop.customers', unique_key: 'id', category: 'masters' });
    expect(parseTablesConfig([e1, e2]).map((d) => d.lakeName)).toEqual(['payment', 'customers']);
  });
});
