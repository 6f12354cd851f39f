import { describe, expect, it } from 'vitest';
import { snapshotRows } from './snapshot-rows';

describe('snapshotRows', () => {
  it('live rows are data rows minus rows marked deleted; a merge counts its position deletes as deleted', () => {
    // A merge of 5 changed keys: 5 rows re-added, 5 old rows marked by position deletes.
    const r = snapshotRows({ 'added-records': '5', 'added-position-deletes': '5', 'total-records': '4005', 'total-position-deletes': '5' });
    expect(r).toEqual({ added: 5, deleted: 5, total: 4005, live: 4000, markedDeleted: 5, exact: true });
  });
  it('an overwrite counts the removed files\' rows; equality deletes make live a lower bound', () => {
    expect(snapshotRows({ 'added-records': '10', 'deleted-records': '7', 'total-records': '10' })).toMatchObject({ deleted: 7, live: 10, exact: true });
    expect(snapshotRows({ 'total-records': '10', 'total-equality-deletes': '2' })).toMatchObject({ live: 8, exact: false });
    expect(snapshotRows({})).toMatchObject({ total: null, live: null });
  });
});
