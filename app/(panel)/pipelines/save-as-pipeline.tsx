'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../_components/api-client';
import { FormError } from '../../_components/form-error';

/**
 * "Save as pipeline" for a run form: saves the job spec the form would
 * start (its kind and the params it builds) into the pipeline library,
 * under a name the user gives. The server checks the params with the
 * kind's own schema, as it does when the job is started.
 */
export function SaveAsPipeline({ kind, params }: { kind: string; params: () => Record<string, unknown> }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const qc = useQueryClient();

  const save = async () => {
    setBusy(true); setError(null);
    try {
      const p = await api<{ name: string }>('/api/v1/pipelines', { method: 'POST', body: { name: name.trim(), description, kind, params: params() } });
      setSaved(p.name); setOpen(false); setName(''); setDescription('');
      await qc.invalidateQueries({ queryKey: ['pipelines'] });
    } catch (e) { setError(e); } finally { setBusy(false); }
  };

  if (!open) {
    return (
      <>
        <button type="button" className="btn" onClick={() => { setOpen(true); setSaved(null); }}>Save as pipeline</button>
        {saved && <span className="muted small" role="status">Saved pipeline <Link href="/pipelines">{saved}</Link></span>}
      </>
    );
  }
  return (
    <div className="save-as-pipeline" role="group" aria-label="Save as pipeline">
      <label className="inline-field">
        <span>Pipeline name</span>
        <input name="pipelineName" value={name} onChange={(e) => setName(e.target.value)} placeholder="nightly-masters" autoFocus />
      </label>
      <label className="inline-field">
        <span>Description</span>
        <input name="pipelineDescription" value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="button" className="btn btn-primary" disabled={busy || !name.trim()} onClick={save}>{busy ? 'Saving…' : 'Save pipeline'}</button>
      <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>Cancel</button>
      <FormError error={error} />
    </div>
  );
}
