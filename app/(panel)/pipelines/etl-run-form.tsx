'use client';
import { useState } from 'react';
import { splitList } from '../../_components/start-job';
import { useStartJob } from '../../_components/use-start-job';
import { TextField } from '../../_components/text-field';
import { RunFormActions } from './run-form-actions';

/** Enqueue `etl.run` with the CLI's main parameters (operators). */
export function EtlRunForm({ onStarted, onCancel }: { onStarted(id: string): void; onCancel(): void }) {
  const [mode, setMode] = useState<'INCREMENTAL' | 'INITIAL'>('INCREMENTAL');
  const [branches, setBranches] = useState('');
  const [tables, setTables] = useState('');
  const [category, setCategory] = useState<'both' | 'masters' | 'transactions'>('both');
  const [plan, setPlan] = useState(false);
  const [selfTest, setSelfTest] = useState(false);
  const [keepStaging, setKeepStaging] = useState(false);
  const { error, busy, submitWith } = useStartJob('etl.run', onStarted);

  const params = () => ({
    mode, category, plan, selfTest, keepStaging,
    ...(splitList(branches) ? { branch: splitList(branches) } : {}),
    ...(splitList(tables) ? { tables: splitList(tables) } : {}),
  });
  const submit = submitWith(params);

  return (
    <form className="card form" onSubmit={submit} aria-label="Run ETL">
      <h2>Run ETL</h2>
      <div className="form-grid">
        <label className="field">
          <span>Mode</span>
          <select name="mode" value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
            <option value="INCREMENTAL">INCREMENTAL — rows past each watermark, merged</option>
            <option value="INITIAL">INITIAL — full load</option>
          </select>
        </label>
        <label className="field">
          <span>Category</span>
          <select name="category" value={category} onChange={(e) => setCategory(e.target.value as typeof category)}>
            <option value="both">both (masters first)</option>
            <option value="masters">masters</option>
            <option value="transactions">transactions</option>
          </select>
        </label>
        <TextField label="Branches" name="branches" value={branches} onChange={setBranches} placeholder="all branches (or a,b,c)" />
        <TextField label="Tables" name="tables" value={tables} onChange={setTables} placeholder="all of tables.json (or OWNER.T1,OWNER.T2)" />
        <label className="field field-check">
          <input type="checkbox" name="plan" checked={plan} onChange={(e) => setPlan(e.target.checked)} />
          <span>Plan only (render each unit’s SQL, load nothing)</span>
        </label>
        <label className="field field-check">
          <input type="checkbox" name="selfTest" checked={selfTest} onChange={(e) => setSelfTest(e.target.checked)} />
          <span>Self-test (synthetic branches, no database needed)</span>
        </label>
        <label className="field field-check">
          <input type="checkbox" name="keepStaging" checked={keepStaging} onChange={(e) => setKeepStaging(e.target.checked)} />
          <span>Keep staging Parquet (for a data-quality self-test)</span>
        </label>
      </div>
      <p className="field-help">The worker runs it as an <code>etl.run</code> job; an INCREMENTAL unit without a watermark is refused until an INITIAL load ran.</p>
      <RunFormActions error={error} busy={busy} startLabel="Start ETL run" onCancel={onCancel} kind="etl.run" params={params} />
    </form>
  );
}
