import type pg from 'pg';
import { AppError } from '../errors';
import type { JobCatalog } from '../jobs/types';
import { checkJobSpecWithConfig, getPipeline, parseInput } from '../pipelines';
import { checkDag } from './dag';
import { checkSchedule, isValidTimeZone } from './schedule';
import { FlowInputSchema, type FlowDefinition } from './spec';

const fail = (field: string, message: string): never => {
  throw new AppError('validation', `flows: ${field}: ${message}`, { field });
};

/**
 * Check a whole flow definition and normalise it: nodes that name a pipeline
 * get its id (so renames keep working), inline nodes are checked by their
 * kind's own payload schema, the graph must be a DAG, the schedule must
 * parse in its zone. The first problem throws AppError('validation') naming
 * the field as the client wrote it (`nodes[1].params.mode`, `edges[0].to`,
 * `cron`, `timezone`).
 */
export async function validateFlow(db: Pick<pg.Pool, 'query'>, catalog: JobCatalog, input: unknown): Promise<FlowDefinition> {
  const f = parseInput(FlowInputSchema, input, 'flows');
  for (const [i, n] of f.nodes.entries()) {
    if (n.pipeline && n.kind) fail(`nodes[${i}].kind`, 'a node runs either a pipeline or an inline job kind, not both');
    if (!n.pipeline && !n.kind) fail(`nodes[${i}].kind`, 'a node needs a pipeline or an inline job kind');
    if (n.pipeline) {
      if (n.params !== undefined) fail(`nodes[${i}].params`, 'a pipeline node takes its params from the pipeline');
      const p = await getPipeline(db, catalog, n.pipeline);
      if (!p) fail(`nodes[${i}].pipeline`, `no pipeline '${n.pipeline}'`);
      n.pipeline = p!.id;
    } else {
      n.params = await checkJobSpecWithConfig(db, catalog, n.kind!, n.params ?? {}, `nodes[${i}]`, 'flows');
    }
  }
  const problem = checkDag(f.nodes.map((n) => n.id), f.edges);
  if (problem) fail(problem.field, problem.message);
  if (!isValidTimeZone(f.timezone)) fail('timezone', `unknown time zone '${f.timezone}' (use an IANA name such as Europe/Berlin or UTC)`);
  if (f.cron !== null && f.cron !== '') {
    const s = checkSchedule(f.cron, f.timezone);
    if (s) fail(s.field, s.message);
  } else {
    f.cron = null;
  }
  if (f.alerts.connection) {
    const r = await db.query('select kind from connections where name = $1', [f.alerts.connection]);
    if (!r.rowCount) fail('alerts.connection', `no connection '${f.alerts.connection}'`);
    if (r.rows[0].kind !== 'smtp') fail('alerts.connection', `'${f.alerts.connection}' is a ${r.rows[0].kind} connection, not smtp`);
  }
  for (const [i, name] of f.alerts.webhooks.entries()) {
    const r = await db.query('select kind from connections where name = $1', [name]);
    if (!r.rowCount) fail(`alerts.webhooks[${i}]`, `no connection '${name}'`);
    if (r.rows[0].kind !== 'webhook') fail(`alerts.webhooks[${i}]`, `'${name}' is a ${r.rows[0].kind} connection, not webhook`);
  }
  return f;
}
