import type pg from 'pg';
import { primaryKeyOf } from '../../sources';
import { parseSimpleSlice } from './reconcile';
import type { RunSettings } from './settings';
import { openSource } from './source';
import { getSlices } from './state';
import { AppError } from '../../errors';

/**
 * The lake merge keys of a run to the lake that names none: the primary key
 * of the table its slices read (what an operator would type, and what the
 * ETL's `unique_key` usually is). Throws, naming what to give, when the
 * slices read a join or the table has no primary key.
 */
export async function defaultMergeKeys(pool: pg.Pool, s: RunSettings, o: { oracleClientLibDir?: string } = {}): Promise<string[]> {
  const [first] = await getSlices(pool, s.runId);
  const table = first ? parseSimpleSlice(first.query)?.table : undefined;
  const give = 'give the merge keys (--merge-keys / mergeKeys, the columns the lake merges on)';
  if (!table) throw new AppError('validation', `slices: the lake target needs merge keys, and run ${s.runId}'s slices do not read one table whose primary key could serve: ${give}`);
  const src = await openSource(s, o);
  if (!src) throw new AppError('validation', `slices: the lake target needs merge keys and no source is configured to look up ${table}'s primary key: ${give}`);
  try {
    const keys = await primaryKeyOf(src, table);
    if (!keys.length) throw new AppError('validation', `slices: the lake target needs merge keys and ${table} has no primary key: ${give}`);
    return keys;
  } finally {
    await src.close().catch(() => {}); // the keys are read; a failed close changes nothing
  }
}
