/** What a run reports about the data it read and wrote; lib/lineage turns it into OpenLineage events. */

/** One column of a dataset (the `schema` dataset facet). */
export interface LineageField { name: string; type?: string }

/** An input field an output column is computed from (the `columnLineage` facet). */
export interface LineageInputField { namespace: string; name: string; field: string }

/** A dataset named per the OpenLineage naming spec: `namespace` (scheme://authority) + `name`. Never credentials. */
export interface LineageDataset {
  namespace: string;
  name: string;
  /** Its columns, when known (outputs: the lake table's or the model's). */
  fields?: LineageField[];
  /** Rows this run wrote to it (outputs only: `outputStatistics`). */
  rowCount?: number;
  /** Output column → the input fields it is taken from, where the SQL makes it clear. */
  columnLineage?: Record<string, LineageInputField[]>;
}

export interface LineageDatasets { inputs: LineageDataset[]; outputs: LineageDataset[] }

/** The job types Tributary emits (`jobType` job facet). */
export type LineageJobType = 'ETL' | 'DQ' | 'MODEL' | 'FLOW';

/** One state change of a run, before it becomes an OpenLineage RunEvent. */
export interface LineageRunState {
  eventType: 'START' | 'COMPLETE' | 'FAIL' | 'ABORT';
  /** The job run's (or flow run's) uuid: START and its end share it. */
  runId: string;
  /** Job name in the job namespace, e.g. `etl.run` or `flow.nightly`. */
  jobName: string;
  jobType: LineageJobType;
  /** The run that started this one (a flow run starting a job). (Default: none) */
  parent?: { runId: string; jobName: string };
  inputs?: LineageDataset[];
  outputs?: LineageDataset[];
  /** FAIL: the run's error (`errorMessage` run facet). */
  error?: string;
  /** (Default: now) */
  eventTime?: Date;
}

/** Sends run states as OpenLineage events; never throws and never waits on the endpoint. */
export interface LineageEmitter {
  /** The job namespace (OPENLINEAGE_NAMESPACE). */
  readonly namespace: string;
  /** Queue one event (dropped when the queue is full). */
  emit(state: LineageRunState): void;
  /** Wait until the queue is empty or `timeoutMs` passed. (Default: 5000 ms) */
  flush(timeoutMs?: number): Promise<void>;
}
