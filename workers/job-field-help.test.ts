import { describe, expect, it } from 'vitest';
import { jsonSchemaOf } from '../lib/api/openapi';
import { jobDefinitions } from './jobs';

type Schema = { properties?: Record<string, { description?: unknown }>; anyOf?: Schema[]; oneOf?: Schema[] };

/** Top-level properties of a payload schema, including each branch of a union. */
function propertiesOf(s: Schema): Array<[string, { description?: unknown }]> {
  const own = Object.entries(s.properties ?? {});
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap(propertiesOf);
  return [...own, ...branches];
}

// The panel's start-job form shows a field's JSON Schema description as its
// help: a field without one leaves a user guessing what `table *` means.
describe('every field a user can start a job with has help', () => {
  const startable = jobDefinitions.filter((d) => !d.internal);

  it('covers the kinds users start', () => {
    expect(startable.map((d) => d.kind)).toEqual(expect.arrayContaining(['etl.run', 'dq.run', 'mail.send', 'system.check']));
  });

  for (const d of startable) {
    it(`${d.kind}: every top-level property has a description`, () => {
      const s = jsonSchemaOf(d.payload) as Schema;
      const missing = propertiesOf(s)
        .filter(([, p]) => typeof p.description !== 'string' || p.description.trim() === '')
        .map(([name]) => name);
      expect(missing, `${d.kind} fields without a description`).toEqual([]);
    });
  }
});
