/**
 * Schema evolution (pyiceberg `UpdateSchema`) by Iceberg's rules: add a
 * column, make one optional, promote int→long, float→double, decimal
 * precision at the same scale — metadata only (`add-schema` +
 * `set-current-schema`, requiring the schema it evolved from). A change
 * outside those rules (a decimal scale change between branches) gives the
 * column a new field id and rewrites every row under the widened schema in
 * one overwrite snapshot, reported as `rewritten`.
 */
import * as arrow from 'apache-arrow';
import { AppError } from '../errors';
import { conformBatch, makeBatch, nullData } from './arrow-util';
import { commitWithRetry, CommitConflict } from './commit';
import { planFiles, snapshotById, specById } from './scan';
import { arrowSchemaOf, icebergTypeOf, isLegalPromotion, isListType, nameMapping, parseDecimal, typeString, widenType } from './schema';
import { commitChange } from './snapshot-producer';
import { guarded, type TableHandle } from './table-context';
import { schemaUpdates } from './table-update';
import type { IcebergSchema, IcebergType } from './types';

export async function evolveSchema(t: TableHandle, target: arrow.Schema): Promise<{ changes: string[]; rewritten: boolean }> {
  const meta = t.metadata();
  const cur = t.schema();
  const spec = specById(meta, meta['default-spec-id']);
  const changes: string[] = [];
  let nextId = meta['last-column-id'];
  let rewrite = false;
  const fields = cur.fields.map((f) => ({ ...f }));
  for (const tf of target.fields) {
    const want = icebergTypeOf(tf);
    const i = fields.findIndex((f) => f.name === tf.name);
    if (i < 0) {
      const id = ++nextId;
      if (isListType(want)) want['element-id'] = ++nextId;
      fields.push({ id, name: tf.name, required: false, type: want });
      changes.push(`add column ${tf.name} ${typeString(want)}`);
      continue;
    }
    const f = fields[i];
    if (tf.nullable && f.required) { f.required = false; changes.push(`make ${f.name} optional`); }
    if (typeString(f.type) === typeString(want)) continue;
    // a decimal whose scale grows beyond what precision 38 leaves the old integer digits (decimal(38,2) → decimal(38,10),
    // asked for by an unconstrained source numeric whose rows need it): the rewrite below checks each stored value
    const widened = widenType(f.type, want) ?? (rescales(f.type, want) ? want : null);
    if (!widened) throw new AppError('validation', `lake: cannot evolve column ${f.name} of ${t.ident} from ${typeString(f.type)} to ${typeString(want)}`, { field: f.name });
    if (typeString(widened) === typeString(f.type)) continue; // incoming narrower type: writes are cast up
    if (isLegalPromotion(f.type, widened)) {
      changes.push(`promote ${f.name} ${typeString(f.type)} -> ${typeString(widened)}`);
      f.type = widened;
    } else {
      if (spec.fields.some((p) => p['source-id'] === f.id)) throw new AppError('validation', `lake: cannot change the type of partition column ${f.name} of ${t.ident} from ${typeString(f.type)} to ${typeString(widened)}`, { field: f.name });
      // Not a legal in-place promotion (e.g. a decimal scale change): the column gets a new
      // field id (drop + add, which the spec allows) and every row is rewritten under it.
      changes.push(`rewrite ${f.name} ${typeString(f.type)} -> ${typeString(widened)} (new field id ${nextId + 1})`);
      const id = ++nextId;
      fields[i] = { ...f, id, type: isListType(widened) ? { ...widened, 'element-id': ++nextId } : widened };
      rewrite = true;
    }
  }
  if (!changes.length) return { changes, rewritten: false };
  const schemaId = Math.max(...meta.schemas.map((s) => s['schema-id'])) + 1;
  const schema: IcebergSchema = { type: 'struct', 'schema-id': schemaId, fields, ...(cur['identifier-field-ids'] ? { 'identifier-field-ids': cur['identifier-field-ids'] } : {}) };
  const properties = { 'schema.name-mapping.default': nameMapping(schema) };
  if (!rewrite) {
    await commitWithRetry(t, async (base) => ({
      requirements: [
        { type: 'assert-table-uuid', uuid: base['table-uuid'] },
        { type: 'assert-current-schema-id', 'current-schema-id': base['current-schema-id'] },
      ],
      updates: [...schemaUpdates(schema), { action: 'set-properties', updates: properties }],
      written: [],
    }), async (original) => {
      // a concurrent data commit is fine (metadata only); a concurrent schema change is not
      if (t.metadata()['current-schema-id'] !== original['current-schema-id']) throw new CommitConflict(`lake: ${t.ident}: schema changed by a concurrent commit`);
    });
    t.ctx.logger.info('lake schema evolved', { table: t.ident, changes });
    return { changes, rewritten: false };
  }
  // Rewrite: read every live row under the old schema, cast into the widened one, replace all files at once.
  const newArrow = arrowSchemaOf(schema);
  const w = t.writer(schema);
  const planned = await planFiles(t.view(), snapshotById(meta, meta['current-snapshot-id']));
  await guarded(t, async () => (await w.settled()).map((f) => f.file_path), async () => {
    for await (const b of t.scan()) {
      // same column order; the rewritten columns carry new ids, so rename-free positional conform
      const children = newArrow.fields.map((nf) => {
        const j = cur.fields.findIndex((f) => f.name === nf.name);
        return j < 0 ? nullData(nf.type, b.numRows) : b.data.children[j];
      });
      const src = new arrow.Schema(newArrow.fields.map((nf, c) => new arrow.Field(nf.name, children[c].type, true)));
      await w.write(conformBatch(makeBatch(src, children, b.numRows), newArrow, t.ident));
    }
    const files = await w.close();
    await commitChange(t, { operation: 'overwrite', added: files, removed: [...planned.data, ...planned.deletes], touched: 'all', schema, properties });
  });
  t.ctx.logger.warn('lake schema evolved by rewriting the table', { table: t.ident, changes });
  return { changes, rewritten: true };
}

/** A decimal (or integer) column asked for a decimal of larger scale: a rewrite whose cast checks that every value still fits. */
function rescales(from: IcebergType, to: IcebergType): boolean {
  const t = typeof to === 'string' ? parseDecimal(to) : null;
  if (!t) return false;
  if (from === 'int' || from === 'long') return t.scale > 0;
  const f = typeof from === 'string' ? parseDecimal(from) : null;
  return !!f && t.scale > f.scale;
}
