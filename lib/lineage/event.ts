import type { LineageDataset, LineageRunState } from './types';

/** Who produced the events (BaseEvent.producer, a URI). */
export const PRODUCER = 'https://github.com/tributary-data/tributary';
const SPEC = 'https://openlineage.io/spec/2-0-2/OpenLineage.json';
const FACETS = 'https://openlineage.io/spec/facets';
/** Facet schema URLs: the versions vendored under test/fixtures/openlineage/. */
const facet = (file: string, def: string) => ({ _producer: PRODUCER, _schemaURL: `${FACETS}/${file}#/$defs/${def}` });

function dataset(d: LineageDataset, output: boolean): Record<string, unknown> {
  const facets: Record<string, unknown> = {};
  if (d.fields?.length) {
    facets.schema = {
      ...facet('1-2-0/SchemaDatasetFacet.json', 'SchemaDatasetFacet'),
      fields: d.fields.map((f, i) => ({ name: f.name, ...(f.type ? { type: f.type } : {}), ordinal_position: i + 1 })),
    };
  }
  if (output && d.columnLineage && Object.keys(d.columnLineage).length) {
    facets.columnLineage = {
      ...facet('1-2-0/ColumnLineageDatasetFacet.json', 'ColumnLineageDatasetFacet'),
      fields: Object.fromEntries(Object.entries(d.columnLineage).map(([col, ins]) => [col, {
        inputFields: ins.map((f) => ({ ...f, transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] })),
      }])),
    };
  }
  const out: Record<string, unknown> = { namespace: d.namespace, name: d.name, facets };
  if (output && d.rowCount !== undefined) {
    out.outputFacets = { outputStatistics: { ...facet('1-0-2/OutputStatisticsOutputDatasetFacet.json', 'OutputStatisticsOutputDatasetFacet'), rowCount: d.rowCount } };
  }
  return out;
}

/** A run state as an OpenLineage RunEvent (spec 2-0-2), with the facets Tributary emits. */
export function buildRunEvent(s: LineageRunState, namespace: string): Record<string, unknown> {
  const runFacets: Record<string, unknown> = {};
  if (s.parent) {
    runFacets.parent = {
      ...facet('1-2-0/ParentRunFacet.json', 'ParentRunFacet'),
      run: { runId: s.parent.runId }, job: { namespace, name: s.parent.jobName },
    };
  }
  if (s.eventType === 'FAIL' && s.error) {
    runFacets.errorMessage = { ...facet('1-0-1/ErrorMessageRunFacet.json', 'ErrorMessageRunFacet'), message: s.error, programmingLanguage: 'JavaScript' };
  }
  return {
    eventType: s.eventType,
    eventTime: (s.eventTime ?? new Date()).toISOString(),
    producer: PRODUCER,
    schemaURL: `${SPEC}#/$defs/RunEvent`,
    run: { runId: s.runId, facets: runFacets },
    job: {
      namespace, name: s.jobName,
      facets: { jobType: { ...facet('2-0-4/JobTypeJobFacet.json', 'JobTypeJobFacet'), processingType: 'BATCH', integration: 'TRIBUTARY', jobType: s.jobType } },
    },
    inputs: (s.inputs ?? []).map((d) => dataset(d, false)),
    outputs: (s.outputs ?? []).map((d) => dataset(d, true)),
  };
}
