import fs from 'node:fs/promises';
import path from 'node:path';
import type * as arrow from 'apache-arrow';
import { INJECTED } from '../config/lake-columns';
import { readParquetBatches, type Lake } from '../lake';
import type { Logger } from '../log';
import type { TableDef } from '../config/tables-json';
import { arrowSide } from '../reconcile/arrow-side';
import { compareSides } from '../reconcile/compare';
import { countsOnly, KEYLESS_NOTE, newDqRunId, type DqResult } from './result';
import { lakeSideOf, type UnitPlan } from './plan';
import { arrowKind } from '../reconcile/arrow-canonical';
import { compareAsFloat } from '../reconcile/canonical';
import { lakeKeys } from '../sources/lake-names';
import { AppError } from '../errors';

/** The newest staging run folder holding `<table>/<branch>/*.parquet`, or null. */
async function latestStaged(stagingRoot: string, table: string, branch: string): Promise<{ runId: string; files: string[] } | null> {
  let runs: string[];
  try { runs = await fs.readdir(stagingRoot); } catch { return null; }
  const found: { runId: string; files: string[]; mtime: number }[] = [];
  for (const runId of runs) {
    const dir = path.join(stagingRoot, runId, table, branch);
    try {
      const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.parquet')).map((f) => path.join(dir, f)).sort();
      if (files.length) found.push({ runId, files, mtime: (await fs.stat(dir)).mtimeMs });
    } catch { /* not in this run */ }
  }
  found.sort((a, b) => b.mtime - a.mtime);
  return found[0] ?? null;
}

/**
 * `--self-test`: reconcile the lake against the staged Parquet an ETL run kept
 * (`--keep-staging`), with no source database: the staged rows are the
 * "source" side. Meaningful right after a load whose staging holds the whole
 * partition (an INITIAL load); after an INCREMENTAL load the untouched rows
 * show as only in the lake.
 */
export async function runSelfTest(deps: { lake: Lake; tables: TableDef[]; branches: string[]; stagingRoot: string; namespace: string; logger: Logger; signal?: AbortSignal },
  o: { runId?: string; examples?: number } = {}): Promise<DqResult[]> {
  const runId = o.runId ?? newDqRunId();
  const out: DqResult[] = [];
  let branches = deps.branches;
  if (!branches.length) {
    const set = new Set<string>();
    // a missing staging root or table folder just means nothing was kept there
    for (const run of await fs.readdir(deps.stagingRoot).catch(() => [] as string[])) {
      for (const t of deps.tables) for (const b of await fs.readdir(path.join(deps.stagingRoot, run, t.lakeName)).catch(() => [] as string[])) set.add(b);
    }
    branches = [...set].sort();
  }
  for (const def of deps.tables) {
    for (const branch of branches) {
      const res: DqResult = {
        pipelineRunId: runId, table: def.lakeName, branch, windowStart: null, windowEnd: null, windowNote: null, lakeSnapshotId: null,
        oracleRowCount: null, icebergRowCount: null, rowCountDelta: null, hashMatched: null, hashOnlyInOracle: null, hashOnlyInIceberg: null,
        hashMismatch: null, hashTotalDelta: null, hashColumns: null, columnsOnlyInOracle: [], columnsOnlyInIceberg: [], exampleKeys: null,
        repair: null, status: 'SKIPPED', errorDetails: null, checkedAt: new Date(),
      };
      try {
        const ident = `${deps.namespace}.${def.lakeName}`;
        const staged = await latestStaged(deps.stagingRoot, def.lakeName, branch);
        if (!staged) { out.push({ ...res, errorDetails: `no kept staging Parquet for ${def.lakeName}/${branch} under ${deps.stagingRoot} (run the ETL with --keep-staging)` }); continue; }
        if (!(await deps.lake.tableExists(ident))) { out.push({ ...res, errorDetails: `lake table ${ident} does not exist` }); continue; }
        const table = await deps.lake.loadTable(ident);
        const snap = table.currentSnapshotId();
        const batches: arrow.RecordBatch[] = [];
        // each staged file whole (every column is compared): one read, not Node's file Blob (see lib/lake/range-blob.mjs)
        for (const f of staged.files) for await (const b of readParquetBatches(await fs.readFile(f), f)) batches.push(b);
        const stagedFields = batches[0]?.schema.fields ?? [];
        const lakeFields = table.arrowSchema().fields;
        const names = lakeFields.map((f) => f.name).filter((n) => !INJECTED.includes(n) && stagedFields.some((f) => f.name === n)).sort();
        const cols = names.map((n) => ({ name: n, asFloat: compareAsFloat(arrowKind(stagedFields.find((f) => f.name === n)!.type), arrowKind(lakeFields.find((f) => f.name === n)!.type)) }));
        // tables.json keys are canonical source names; the staging and the lake spell them by the table's naming
        const keyNames = lakeKeys(def, names);
        const keys = keyNames.map((k) => cols[names.indexOf(k)]);
        if (keys.some((k) => !k)) throw new AppError('validation', `dq: unique key ${def.uniqueKey.join(',')} not in both the staging and the lake`);
        const plan: UnitPlan = {
          window: { start: null, end: null, note: null, column: null, julian: false, lower: null, upper: null, upperExclusive: false, initial: null },
          query: { rel: { from: '', where: '' }, keys: [], columns: [] }, lakeColumns: cols, lakeKeys: keys, columnNames: names, keyNames,
          columnsOnlyInSource: stagedFields.map((f) => f.name).filter((n) => !INJECTED.includes(n) && !names.includes(n)),
          columnsOnlyInLake: lakeFields.map((f) => f.name).filter((n) => !INJECTED.includes(n) && !names.includes(n)), sourceColumns: [],
        };
        const staging = arrowSide({ scan: async function* () { yield* batches; }, keys, columns: cols, signal: deps.signal });
        const lakeSide = lakeSideOf(table, branch, snap, plan, deps.signal);
        const note = `self-test: staged Parquet of run ${staged.runId} vs the lake partition`;
        if (!def.uniqueKey.length) {
          // a keyless (query) entry has no key to join rows on: row counts, as `dq` compares it
          const [n, m] = await Promise.all([staging.count(), lakeSide.count()]);
          out.push({ ...res, lakeSnapshotId: snap === null ? null : String(snap), windowNote: `${note}; ${KEYLESS_NOTE}`, ...countsOnly(n, m) });
          continue;
        }
        const d = await compareSides(staging, lakeSide, { columnNames: names, keyNames, examples: o.examples, signal: deps.signal });
        const total = d.onlyInSource + d.onlyInLake + d.mismatch;
        out.push({
          ...res, lakeSnapshotId: snap === null ? null : String(snap), windowNote: note,
          oracleRowCount: d.sourceRows, icebergRowCount: d.lakeRows, rowCountDelta: d.sourceRows - d.lakeRows, hashMatched: d.matched,
          hashOnlyInOracle: d.onlyInSource, hashOnlyInIceberg: d.onlyInLake, hashMismatch: d.mismatch, hashTotalDelta: total, hashColumns: names,
          columnsOnlyInOracle: plan.columnsOnlyInSource, columnsOnlyInIceberg: plan.columnsOnlyInLake,
          exampleKeys: total ? d.examples : null, status: total === 0 && d.sourceRows === d.lakeRows ? 'OK' : 'MISMATCH',
        });
      } catch (e) {
        out.push({ ...res, status: 'ERROR', errorDetails: (e as Error).message });
      }
    }
  }
  return out;
}
