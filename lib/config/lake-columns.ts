/**
 * The column layout Tributary gives every lake data table (seed 000 §2),
 * shared by the loader (lib/etl) and the reconciler (lib/dq): the branch
 * column (also the partition and part of every key) and the two load times.
 */
export const BRANCH_ID = 'BRANCH_ID';
/** When the row was first loaded; merges carry it forward. */
export const INSERT_AT = 'insert_at';
/** When the row was last written by a load. */
export const RECORDED_UPDATED_AT = 'Recorded_updated_at';
/** The injected columns, in the order they follow the data columns. */
export const INJECTED = [BRANCH_ID, INSERT_AT, RECORDED_UPDATED_AT];
