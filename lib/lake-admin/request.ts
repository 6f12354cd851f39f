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
  table: tableField.describe('Lake table, namespace.table.'),
  olderThan: ageMsField.optional().describe("Only files last modified longer ago than this (seconds, or a duration such as 3d, 12h, 30m) are removed, so an uncommitted writer's files stay. (Default: 3d, Iceberg's older_than)"),
  dryRun: z.boolean().default(false).describe('Report what would be removed; remove nothing. (Default: false)'),
});
export type RemoveOrphansRequest = z.infer<typeof RemoveOrphansRequest>;

/** `tributary lake expire` / `lake.expire`. (Default: the table's history.expire.* properties) */
export const ExpireRequest = z.strictObject({
  table: tableField.describe('Lake table, namespace.table.'),
  maxSnapshotAgeMs: z.number().int().positive().optional().describe("Expire snapshots older than this, milliseconds. (Default: the table's history.expire.max-snapshot-age-ms, else 5 days)"),
  minSnapshotsToKeep: z.number().int().min(1).optional().describe("Snapshots always kept. (Default: the table's history.expire.min-snapshots-to-keep, else 1)"),
});
export type ExpireRequest = z.infer<typeof ExpireRequest>;
