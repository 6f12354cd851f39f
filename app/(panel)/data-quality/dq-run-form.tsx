'use client';
import { useState } from 'react';
import { splitList } from '../../_components/start-job';
import { useStartJob } from '../../_components/use-start-job';
import { TextField } from '../../_components/text-field';
import { RunFormActions } from '../pipelines/run-form-actions';

/** Enqueue `dq.run` (operators): counts + row hashes per table × branch, optionally repairing. */
export function DqRunForm({ onStarted, onCancel }: { onStarted(id: string): void; onCancel(): void }) {
  const [branches, setBranches] = useState('');
  const [tables, setTables] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [cdcWait, setCdcWait] = useState('');
  const [hash, setHash] = useState(true);
  const [repair, setRepair] = useState(false);
  const [repairDeletes, setRepairDeletes] = useState(false);
  const [selfTest, setSelfTest] = useState(false);
  const { error, busy, submitWith } = useStartJob('dq.run', onStarted);

  const params = () => ({
    hash, repair, repairDeletes, selfTest,
    ...(splitList(branches) ? { branch: splitList(branches) } : {}),
    ...(splitList(tables) ? { tables: splitList(tables) } : {}),
    ...(since.trim() ? { since: since.trim() } : {}),
    ...(until.trim() ? { until: until.trim() } : {}),
    // the job's schema checks it (seconds, or 30s / 5m, at most 1 h) and names params.cdcWait when it is not
    ...(cdcWait.trim() ? { cdcWait: cdcWait.trim() } : {}),
  });
  const submit = submitWith(params);

  return (
    <form className="card form" onSubmit={submit} aria-label="Run check">
      <h2>Run a data-quality check</h2>
      <div className="form-grid">
        <TextField label="Branches" name="branches" value={branches} onChange={setBranches} placeholder="all branches (or a,b,c)" />
        <TextField label="Tables" name="tables" value={tables} onChange={setTables} placeholder="all of tables.json" />
        <TextField label="Since" name="since" value={since} onChange={setSince} placeholder="whole table (YYYY-MM-DD)" />
        <TextField label="Until" name="until" value={until} onChange={setUntil} placeholder="each unit’s last watermark" />
        <TextField label="CDC wait" name="cdcWait" value={cdcWait} onChange={setCdcWait} placeholder="60s: a streamed branch catching up (30s, 5m)" />
        <label className="field field-check">
          <input type="checkbox" name="hash" checked={hash} onChange={(e) => { setHash(e.target.checked); if (!e.target.checked) { setRepair(false); setRepairDeletes(false); } }} />
          <span>Row-hash check (not only counts)</span>
        </label>
        <label className="field field-check">
          <input type="checkbox" name="repair" checked={repair} disabled={!hash} onChange={(e) => setRepair(e.target.checked)} />
          <span>Repair: re-load missing and mismatched keys</span>
        </label>
        <label className="field field-check">
          <input type="checkbox" name="repairDeletes" checked={repairDeletes} disabled={!hash} onChange={(e) => setRepairDeletes(e.target.checked)} />
          <span>…and delete keys found only in the lake</span>
        </label>
        <label className="field field-check">
          <input type="checkbox" name="selfTest" checked={selfTest} onChange={(e) => setSelfTest(e.target.checked)} />
          <span>Self-test (against the staging an ETL run kept; no source database)</span>
        </label>
      </div>
      <RunFormActions error={error} busy={busy} startLabel="Start check" onCancel={onCancel} kind="dq.run" params={params} />
    </form>
  );
}
