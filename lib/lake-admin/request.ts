/**
 * Requests of the lake's maintenance actions, shared by `tributary lake …`
 * flags and the `lake.*` job payloads (pure zod, lib/config/request.ts field
 * helpers: the same bounds and messages for both).
 */
import { z } from 'zod';
import { durationMsField } from '../config/request';

const DAY = 86_400_000;

/** `namespace.table`. */
export const tableField = z.string().min(3).regex(/^[^.]+(\.[^.]+)+$/, 'namespace.table');

/** An age (seconds, `250ms`, `30s`, `5m`, `1h`, `3d` — the unit Iceberg's `older_than` is usually given in), at most 10 years → milliseconds. */
export const ageMsField = durationMsField(3650 * DAY).meta({ description: 'seconds, or a duration such as 3d, 12h, 30m' });

/** `tributary lake remove-orphans` / `lake.remove_orphans`. */
export const RemoveOrphansRequest = z.strictObject({
  table: tableField,
  /** Only files last modified longer ago than this are removed, so an uncommitted writer's files stay. (Default: 3d, Iceberg's older_than) */
  olderThan: ageMsField.optional(),
  /** Report what would be removed; remove nothing. (Default: false) */
  dryRun: z.boolean().default(false),
});
export type RemoveOrphansRequest = z.infer<typeof RemoveOrphansRequest>;

/** `tributary lake expire` / `lake.expire`. (Default: the table's history.expire.* properties) */
export const ExpireRequest = z.strictObject({
  table: tableField,
  maxSnapshotAgeMs: z.number().int().positive().optional(),
  minSnapshotsToKeep: z.number().int().min(1).optional(),
});
export type ExpireRequest = z.infer<typeof ExpireRequest>;
