export type { LineageDataset, LineageDatasets, LineageEmitter, LineageField, LineageInputField, LineageJobType, LineageRunState } from './types';
export { buildRunEvent, PRODUCER } from './event';
export { createLineageEmitter, type EmitterOptions } from './emitter';
export { fileTransport, httpTransport, type LineageTransport } from './transport';
export { lineageFromEnv } from './from-env';
export { clickhouseDataset, locationDataset, sourceDataset, type SourceAddress } from './naming';
export { unitDatasets, type LakeTableFacts } from './unit-datasets';
