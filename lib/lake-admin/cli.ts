/**
 * `tributary lake …`: list, describe, snapshots, scan, import, expire, compact, remove-orphans, drop.
 * Table names are `namespace.table`; a bare name uses `--namespace` (Default: default).
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as arrow from 'apache-arrow';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext, CliEdge } from '../cli/context';
import { parseRequest } from '../config/request';
// the engine (Arrow, Parquet, Avro, the S3 SDK) loads when a command needs it: `lake list` reads the catalog alone
import type { Lake, LakeTable } from '../lake';
import { listLakeTables, parseIdent } from '../lake/catalog-tables';
import { removeOrphans } from './remove-orphans';
import { ExpireRequest, RemoveOrphansRequest } from './request';
import { AppError } from '../errors';

const positiveInt = (flag: string) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) <= 0) throw new InvalidArgumentError(`${flag} must be a positive integer`);
  return Number(v);
};

const engine = () => import('../lake');

async function lakeOf(ctx: CliContext): Promise<Lake> {
  return (await engine()).openLake({ pool: ctx.pool, warehouse: ctx.env.warehouse, s3: ctx.env.s3, logger: ctx.logger });
}

function identOf(cmd: Command, name: string): string {
  const ns = (cmd.optsWithGlobals() as { namespace?: string }).namespace ?? 'default';
  const { namespace, name: table } = parseIdent(name, ns);
  return `${namespace}.${table}`;
}

/**
 * The table a command names. A bare name that is not in `--namespace` but is in another namespace
 * (the ETL writes to `etl`, the default here is `default`) is refused with those names, so the
 * operator sees what to type.
 */
async function loadNamed(ctx: CliContext, cmd: Command, name: string): Promise<LakeTable> {
  const ident = identOf(cmd, name);
  try {
    return await (await lakeOf(ctx)).loadTable(ident);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'not_found' || name.includes('.')) throw e;
    const bare = ident.slice(ident.lastIndexOf('.') + 1);
    const elsewhere = (await listLakeTables({ pool: ctx.pool, warehouse: ctx.env.warehouse })).filter((x) => x.slice(x.lastIndexOf('.') + 1) === bare);
    if (!elsewhere.length) throw e;
    throw new AppError('not_found', `${e.message} (a bare name is looked up in --namespace, here ${ident.slice(0, ident.lastIndexOf('.'))}; ${elsewhere.join(', ')} ${elsewhere.length > 1 ? 'exist' : 'exists'}: name it so)`);
  }
}

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
const json = (v: unknown) => out(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x), 2));

function partitionArg(t: LakeTable, v: string | undefined, flag: string): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  const spec = t.metadata()['partition-specs'].find((s) => s['spec-id'] === t.metadata()['default-spec-id'])!;
  if (spec.fields.length !== 1) throw new AppError('usage', `${flag}: table ${t.ident} has ${spec.fields.length} partition columns (need exactly one)`);
  return { [spec.fields[0].name]: v };
}

async function describe(t: LakeTable) {
  const m = t.metadata();
  const schema = m.schemas.find((s) => s['schema-id'] === m['current-schema-id'])!;
  const files = await t.files();
  const rows = new Map<string, number>();
  for (const f of files) {
    const k = JSON.stringify(f.partition);
    const n = f.content === 'data' ? f.recordCount : f.content === 'position-deletes' ? -f.recordCount : 0;
    rows.set(k, (rows.get(k) ?? 0) + n);
  }
  const snap = m.snapshots.find((s) => String(s['snapshot-id']) === String(m['current-snapshot-id']));
  return {
    table: t.ident, location: t.location, metadataLocation: t.metadataLocation(), formatVersion: m['format-version'],
    schema: schema.fields.map((f) => ({ id: f.id, name: f.name, type: f.type, required: f.required })),
    partitionSpec: m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id'])!.fields,
    properties: m.properties,
    currentSnapshot: snap ? { id: String(snap['snapshot-id']), sequenceNumber: snap['sequence-number'], timestamp: new Date(snap['timestamp-ms']).toISOString(), summary: snap.summary } : null,
    files: files.map((f) => ({ path: f.path, content: f.content, partition: f.partition, records: f.recordCount, bytes: f.fileSizeInBytes })),
    rowsPerPartition: [...rows].map(([k, n]) => ({ partition: JSON.parse(k), rows: n })),
  };
}

async function* fileBatches(file: string, tableSchema?: arrow.Schema): AsyncGenerator<arrow.RecordBatch> {
  const [arrow, { csvToBatch, FIELD_ID, readParquetBatches }] = await Promise.all([import('apache-arrow'), engine()]);
  const lower = file.toLowerCase();
  if (!fs.existsSync(file)) throw new AppError('not_found', `import: file ${file} not found`);
  if (lower.endsWith('.parquet')) {
    for await (const b of readParquetBatches(new Uint8Array(fs.readFileSync(file)), file)) {
      // Foreign field ids mean nothing to this table: match columns by name.
      const fields = b.schema.fields.map((f) => new arrow.Field(f.name, f.type, f.nullable, new Map([...f.metadata].filter(([k]) => k !== FIELD_ID))));
      yield new arrow.RecordBatch(new arrow.Schema(fields), b.data);
    }
  } else if (lower.endsWith('.csv')) {
    try {
      yield csvToBatch(fs.readFileSync(file, 'utf8'), tableSchema);
    } catch (e) {
      // the row and column are in the message; the file is the import's to name
      if (e instanceof AppError) throw new AppError(e.code, `import: ${file}: ${e.message.replace(/^lake: /, '')}`, { field: e.field, cause: e });
      throw e;
    }
  } else throw new AppError('usage', `import: ${file}: only .parquet and .csv files can be imported`);
}

type ExpireFlags = { maxSnapshotAgeMs?: number; minSnapshotsToKeep?: number };

/** `lake expire <table>`'s flags as the `lake.expire` payload they stand for. */
export function expireRequestOf(table: string, o: ExpireFlags): ExpireRequest {
  return parseRequest(ExpireRequest, { table, maxSnapshotAgeMs: o.maxSnapshotAgeMs, minSnapshotsToKeep: o.minSnapshotsToKeep }, 'flags', { table: '<table>' });
}

/** `lake remove-orphans <table>`'s flags as the `lake.remove_orphans` payload they stand for. */
export function removeOrphansRequestOf(table: string, o: { olderThan?: string; dryRun?: boolean }): RemoveOrphansRequest {
  return parseRequest(RemoveOrphansRequest, { table, olderThan: o.olderThan, dryRun: !!o.dryRun }, 'flags', { table: '<table>' });
}

export function registerLakeCommands(program: Command, { withCli }: CliEdge): void {
  const lake = program.command('lake').description('Iceberg lake: tables, snapshots, scans, imports and maintenance')
    .option('--namespace <ns>', 'namespace for table names without one (Default: default)', 'default');
  registerReadCommands(lake, withCli);
  registerImportCommand(lake, withCli);
  registerMaintenanceCommands(lake, withCli);
}

/** `lake list | describe | snapshots | scan`: what the lake holds. */
function registerReadCommands(lake: Command, withCli: CliEdge['withCli']): void {
  lake.command('list').description('list tables (namespace.table)')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }, cmd: Command) => withCli(async (ctx) => {
      void cmd;
      const tables = await listLakeTables({ pool: ctx.pool, warehouse: ctx.env.warehouse });
      if (o.json) json(tables); else out(tables.join('\n') || '(no tables)');
    }));

  lake.command('describe').argument('<table>').description('schema, partition spec, properties, current snapshot, files, rows per partition')
    .option('--json', 'JSON output')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => withCli(async (ctx) => {
      const d = await describe(await loadNamed(ctx, cmd, name));
      const { typeString } = await engine();
      if (o.json) { json(d); return; }
      out(`table ${d.table}\nlocation ${d.location}\nmetadata ${d.metadataLocation}`);
      out('schema:'); for (const f of d.schema) out(`  ${f.id}\t${f.name}\t${typeString(f.type)}${f.required ? ' not null' : ''}`);
      out(`partitioned by: ${d.partitionSpec.map((p) => `${p.transform}(${p.name})`).join(', ') || '(none)'}`);
      out('properties:'); for (const [k, v] of Object.entries(d.properties)) if (k !== 'schema.name-mapping.default') out(`  ${k}=${v}`);
      out(`current snapshot: ${d.currentSnapshot ? `${d.currentSnapshot.id} (${d.currentSnapshot.summary.operation}, ${d.currentSnapshot.timestamp})` : '(none)'}`);
      out(`files: ${d.files.length}`); for (const f of d.files) out(`  ${f.content}\t${JSON.stringify(f.partition)}\t${f.records} rows\t${f.bytes} B\t${f.path}`);
      out('rows per partition:'); for (const r of d.rowsPerPartition) out(`  ${JSON.stringify(r.partition)}\t${r.rows}`);
    }));

  lake.command('snapshots').argument('<table>').description('snapshot history')
    .option('--json', 'JSON output')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => withCli(async (ctx) => {
      const t = await loadNamed(ctx, cmd, name);
      const list = t.snapshots().map((s) => ({
        id: String(s['snapshot-id']), parent: s['parent-snapshot-id'] === undefined ? null : String(s['parent-snapshot-id']),
        sequenceNumber: s['sequence-number'], timestamp: new Date(s['timestamp-ms']).toISOString(), operation: s.summary.operation, summary: s.summary,
        current: String(s['snapshot-id']) === String(t.currentSnapshotId()),
      }));
      if (o.json) { json(list); return; }
      // Iceberg's total-records counts the data files' rows, rows a delete file removes included: the deletes are shown beside it
      const deletes = (s: { summary: Record<string, string> }) => {
        const pos = Number(s.summary['total-position-deletes'] ?? 0), eq = Number(s.summary['total-equality-deletes'] ?? 0);
        return `${pos ? `, ${pos} deleted by position` : ''}${eq ? `, ${eq} equality deletes` : ''}`;
      };
      for (const s of list) out(`${s.current ? '*' : ' '} ${s.id}\tseq ${s.sequenceNumber}\t${s.timestamp}\t${s.operation}\trecords ${s.summary['total-records'] ?? '?'}${deletes(s)}`);
    }));

  lake.command('scan').argument('<table>').description('print rows')
    .option('--where-partition <value>', 'only rows of this partition value')
    .option('--limit <n>', 'at most n rows', positiveInt('--limit'))
    .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
    .option('--json', 'same as --format json')
    .action(async (name: string, o: { wherePartition?: string; limit?: number; format: string; json?: boolean }, cmd: Command) => withCli(async (ctx) => {
      const t = await loadNamed(ctx, cmd, name);
      const { csvLine, plainRow } = await engine();
      const asJson = o.json || o.format === 'json';
      const rows: Record<string, unknown>[] = [];
      let header = false;
      for await (const b of t.scan({ partition: partitionArg(t, o.wherePartition, '--where-partition'), limit: o.limit })) {
        for (let i = 0; i < b.numRows; i++) {
          const r = plainRow(b, i);
          if (asJson) { rows.push(r); continue; }
          if (!header) { out(csvLine(Object.keys(r))); header = true; }
          out(csvLine(Object.values(r)));
        }
      }
      if (asJson) json(rows);
      else if (!header) out(csvLine(t.arrowSchema().fields.map((f) => f.name)));
    }));

}

/** `lake import`: Parquet or CSV files into a new or existing table. */
function registerImportCommand(lake: Command, withCli: CliEdge['withCli']): void {
  lake.command('import').argument('<table>').argument('<files...>').description('load Parquet or CSV files into a new or existing table')
    .addOption(new Option('--mode <mode>', 'append, merge or overwrite').choices(['append', 'merge', 'overwrite']).makeOptionMandatory())
    .option('--key <cols>', 'merge key columns, comma-separated (required with --mode merge)')
    .option('--partition-by <col>', 'identity-partition column when the table is created')
    .option('--json', 'JSON output')
    .action(async (name: string, files: string[], o: { mode: string; key?: string; partitionBy?: string; json?: boolean }, cmd: Command) => {
      if (o.mode === 'merge' && !o.key) cmd.error('error: --key is required with --mode merge', { exitCode: 2 });
      const keys = o.key?.split(',').map((k) => k.trim()).filter(Boolean);
      return withCli(async (ctx) => {
        const l = await lakeOf(ctx);
        const arrow = await import('apache-arrow');
        const ident = identOf(cmd, name);
        let t: LakeTable;
        const created = !(await l.tableExists(ident));
        if (!created) t = await l.loadTable(ident);
        else {
          const first = await fileBatches(path.resolve(files[0])).next();
          if (first.done) throw new AppError('validation', `import: ${files[0]} has no rows to infer a schema from`);
          const schema = first.value.schema;
          if (o.partitionBy && !schema.fields.some((f) => f.name === o.partitionBy)) throw new AppError('usage', `--partition-by: column ${o.partitionBy} is not in ${files[0]}`);
          const missing = keys?.find((k) => !schema.fields.some((f) => f.name === k));
          if (missing) throw new AppError('usage', `--key: column ${missing} is not in ${files[0]}`);
          // merge keys are the table's identifier fields (required, as Iceberg asks of them); an identity
          // partition column stays optional: a row with no value lands in the null partition
          const fields = schema.fields.map((f) => (keys?.includes(f.name) ? new arrow.Field(f.name, f.type, false) : f));
          t = await l.createTable(ident, { schema: new arrow.Schema(fields), partitionBy: o.partitionBy ? [o.partitionBy] : [], ...(keys?.length ? { identifierColumns: keys } : {}) });
        }
        const tableSchema = t.arrowSchema();
        const all = async function* () { for (const f of files) yield* fileBatches(path.resolve(f), tableSchema); };
        let res: Awaited<ReturnType<LakeTable['append']>> | Awaited<ReturnType<LakeTable['merge']>>;
        try {
          res = o.mode === 'append' ? await t.append(all()) : o.mode === 'overwrite' ? await t.overwrite(all()) : await t.merge(all(), { keys: keys! });
        } catch (e) {
          // a failed first write leaves no table behind (an empty one would shadow the next attempt's inferred schema)
          if (created) await l.dropTable(ident, { purge: true }).catch(() => {});
          throw e;
        }
        if (o.json) json(res); else out(`${o.mode}: ${ident} snapshot ${res.snapshotId ?? '(none)'}${'inserted' in res ? `, ${(res as unknown as { inserted: number }).inserted} inserted, ${(res as unknown as { updated: number }).updated} updated` : `, ${res.addedRecords} rows`}`);
      });
    });

}

/** `lake expire | compact | remove-orphans | drop`: maintenance. */
function registerMaintenanceCommands(lake: Command, withCli: CliEdge['withCli']): void {
  lake.command('expire').argument('<table>').description('expire old snapshots (history.expire.* properties) and delete unreferenced files')
    .option('--max-snapshot-age-ms <ms>', 'expire snapshots older than this (Default: history.expire.max-snapshot-age-ms)', positiveInt('--max-snapshot-age-ms'))
    .option('--min-snapshots-to-keep <n>', 'always keep this many newest snapshots (Default: history.expire.min-snapshots-to-keep)', positiveInt('--min-snapshots-to-keep'))
    .option('--json', 'JSON output')
    .action(async (name: string, o: ExpireFlags & { json?: boolean }, cmd: Command) => withCli(async (ctx) => {
      const req = expireRequestOf(identOf(cmd, name), o);
      const r = await (await (await lakeOf(ctx)).loadTable(req.table)).expireSnapshots({ maxSnapshotAgeMs: req.maxSnapshotAgeMs, minSnapshotsToKeep: req.minSnapshotsToKeep });
      if (o.json) json(r); else out(`expired ${r.expiredSnapshots} snapshots, deleted ${r.deletedFiles.length} files`);
    }));

  lake.command('compact').argument('<table>').description('rewrite data and delete files into files of the target size')
    .option('--partition <value>', 'only this partition value')
    .option('--json', 'JSON output')
    .action(async (name: string, o: { partition?: string; json?: boolean }, cmd: Command) => withCli(async (ctx) => {
      const t = await loadNamed(ctx, cmd, name);
      const r = await t.compact({ partition: partitionArg(t, o.partition, '--partition') });
      if (o.json) json(r); else out(r.snapshotId ? `compacted ${t.ident}: ${r.removedFiles} files → ${r.addedDataFiles}` : `nothing to compact in ${t.ident}`);
    }));

  lake.command('remove-orphans').argument('<table>')
    .description('delete files under the table\'s location that no metadata references (Iceberg remove_orphan_files)')
    .option('--older-than <age>', 'only files last modified longer ago: 3d, 12h, 30m or seconds; a short age may delete a running writer\'s uncommitted files (Default: 3d)')
    .option('--dry-run', 'list what would be deleted; delete nothing')
    .option('--json', 'JSON output')
    .action(async (name: string, o: { olderThan?: string; dryRun?: boolean; json?: boolean }, cmd: Command) => {
      const req = removeOrphansRequestOf(identOf(cmd, name), o);
      return withCli(async (ctx) => {
        const t = await (await lakeOf(ctx)).loadTable(req.table);
        const r = await removeOrphans(t, req);
        if (o.json) { json(r); return; }
        const total = r.orphans.reduce((a, x) => a + x.size, 0);
        out(r.dryRun
          ? `dry run: ${r.orphans.length} orphan files (${total} bytes) in ${t.ident} modified before ${r.olderThan} would be deleted`
          : `deleted ${r.deletedFiles} orphan files (${r.deletedBytes} bytes) from ${t.ident} modified before ${r.olderThan}`);
        for (const f of r.orphans) out(`  ${f.size}\t${f.modifiedAt}\t${f.uri}`);
        if (r.recentUnreferenced) out(`kept ${r.recentUnreferenced} unreferenced files modified since (a writer may not have committed them yet)`);
      });
    });

  lake.command('drop').argument('<table>').description('drop a table from the catalog')
    .option('--purge', 'also delete its files')
    .action(async (name: string, o: { purge?: boolean }, cmd: Command) => withCli(async (ctx) => {
      const ident = identOf(cmd, name);
      await (await lakeOf(ctx)).dropTable(ident, { purge: !!o.purge });
      out(`dropped ${ident}${o.purge ? ' (purged)' : ''}`);
    }));
}
