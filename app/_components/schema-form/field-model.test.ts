import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchemaOf } from '@/lib/api/openapi';
import { EtlRequest } from '@/lib/etl/request';
import { RunRequest } from '@/lib/slices/requests';
import { fieldsOf, labelOf } from './field-model';
import { fieldOfError, fieldProblem, formProblems, initialValues, paramsOf } from './form-values';

// The schemas the server really serves (GET /job-kinds builds them the same way).
const etl = fieldsOf(jsonSchemaOf(EtlRequest));
const field = (fs: ReturnType<typeof fieldsOf>, name: string) => fs.find((f) => f.name === name)!;

describe('fieldsOf', () => {
  it('maps an etl.run payload: enums as selects, booleans, bounded integers, lists with pickers', () => {
    expect(field(etl, 'mode')).toMatchObject({ kind: 'enum', required: true, options: ['INITIAL', 'INCREMENTAL'] });
    expect(field(etl, 'compression')).toMatchObject({ kind: 'enum', required: false, options: ['snappy', 'zstd', 'lz4', 'uncompressed'] });
    expect(field(etl, 'selfTest')).toMatchObject({ kind: 'boolean', default: false });
    expect(field(etl, 'snapshotMaintenance')).toMatchObject({ kind: 'boolean', default: true });
    expect(field(etl, 'maxTableWorkers')).toMatchObject({ kind: 'integer', min: 1, max: 64 });
    expect(field(etl, 'compactDeletedRatio')).toMatchObject({ kind: 'number', min: 0, max: 1 });
    expect(field(etl, 'branch')).toMatchObject({ kind: 'list', picker: 'branch' });
    expect(field(etl, 'tables')).toMatchObject({ kind: 'list', picker: 'table' });
    expect(field(etl, 'namespace')).toMatchObject({ kind: 'text', pattern: '^[a-z0-9_]{1,64}$' });
    expect(field(etl, 'tablesJson')).toMatchObject({ kind: 'json' });
    expect(field(etl, 'maxTableWorkers').label).toBe('max table workers');
  });

  it('maps slices.run: connection pickers, a required integer, an executor select', () => {
    const s = fieldsOf(jsonSchemaOf(RunRequest));
    expect(field(s, 'runId')).toMatchObject({ kind: 'integer', required: true, min: 1 });
    for (const n of ['connection', 'targetConnection', 'striimConnection']) expect(field(s, n)).toMatchObject({ kind: 'text', picker: 'connection' });
    expect(field(s, 'executor')).toMatchObject({ kind: 'enum', options: ['striim', 'native'] });
  });

  it('labels camelCase names', () => {
    expect(labelOf('loadGroupMaxBytes')).toBe('load group max bytes');
  });
});

describe('form values', () => {
  it('starts from the defaults and sends only what differs', () => {
    const v = initialValues(etl);
    expect(v.selfTest).toBe(false);
    expect(v.snapshotMaintenance).toBe(true);
    expect(paramsOf(etl, { ...v, mode: 'INITIAL' })).toEqual({ mode: 'INITIAL' });
    expect(paramsOf(etl, { ...v, mode: 'INITIAL', selfTest: true, snapshotMaintenance: false, tables: 'orders, customers ,', maxTableWorkers: '4', tablesJson: '[]' }))
      .toEqual({ mode: 'INITIAL', selfTest: true, snapshotMaintenance: false, tables: ['orders', 'customers'], maxTableWorkers: 4, tablesJson: [] });
  });

  it('checks as you type with the schema bounds', () => {
    expect(formProblems(etl, initialValues(etl))).toEqual({ mode: 'required' });
    expect(fieldProblem(field(etl, 'maxTableWorkers'), '65')).toBe('expected an integer ≥ 1 and ≤ 64');
    expect(fieldProblem(field(etl, 'maxTableWorkers'), '2.5')).toBe('expected an integer ≥ 1 and ≤ 64');
    expect(fieldProblem(field(etl, 'maxTableWorkers'), '8')).toBeNull();
    expect(fieldProblem(field(etl, 'compactDeletedRatio'), '0.25')).toBeNull();
    expect(fieldProblem(field(etl, 'namespace'), 'Bad-Name')).toMatch(/does not match/);
    expect(fieldProblem(field(etl, 'mode'), 'sideways')).toBe('expected one of INITIAL, INCREMENTAL');
    expect(fieldProblem(field(etl, 'tablesJson'), '{')).toBe('not valid JSON');
  });

  it('what the form sends is what the server accepts', () => {
    const sent = paramsOf(etl, { ...initialValues(etl), mode: 'INCREMENTAL', branch: 'b1,b2', retries: '3' });
    expect(EtlRequest.parse(sent)).toMatchObject({ mode: 'INCREMENTAL', branch: ['b1', 'b2'], retries: 3 });
    const s = z.strictObject({ holdSeconds: z.number().int().min(0).max(3600).default(0) });
    const f = fieldsOf(jsonSchemaOf(s));
    expect(paramsOf(f, initialValues(f))).toEqual({ holdSeconds: 0 });
  });

  it('places a server error beside the field it names', () => {
    expect(fieldOfError('params.tables[1]')).toBe('tables');
    expect(fieldOfError('params.mode')).toBe('mode');
    expect(fieldOfError('kind')).toBeNull();
    expect(fieldOfError(undefined)).toBeNull();
  });
});
