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
/** When the row was found deleted at its source (tables.json `soft_delete: true` only); null while it lives. */
export const DELETED_AT = '_deleted_at';
/** The injected columns, in the order they follow the data columns (`_deleted_at` only on soft-delete tables). */
export const INJECTED = [BRANCH_ID, INSERT_AT, RECORDED_UPDATED_AT, DELETED_AT];
