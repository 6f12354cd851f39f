'use client';
import { FormError } from '../../_components/form-error';
import { SaveAsPipeline } from './save-as-pipeline';

/**
 * The foot of a form that starts a job (Run ETL, Data quality): the start's
 * error, then Start / Cancel / Save as pipeline, the same in every run form.
 */
export function RunFormActions({ error, busy, startLabel, onCancel, kind, params }: {
  error: unknown;
  busy: boolean;
  /** The submit button's words: "Start ETL run". */
  startLabel: string;
  onCancel: () => void;
  /** The job kind a saved pipeline runs, with the form's params. */
  kind: string;
  params: () => Record<string, unknown>;
}) {
  return (
    <>
      <FormError error={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Starting…' : startLabel}</button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>Cancel</button>
        <SaveAsPipeline kind={kind} params={params} />
      </div>
    </>
  );
}
