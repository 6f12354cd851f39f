'use client';
import { useState, type ReactNode } from 'react';

/**
 * A button that asks before it acts: the first click shows the question with
 * "yes" and "no"; only "yes" runs `onConfirm`.
 */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled, className = 'btn btn-danger btn-small' }: {
  label: ReactNode; question: string; confirmLabel: string; onConfirm(): void | Promise<void>; disabled?: boolean; className?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <button type="button" className={className} disabled={disabled} onClick={() => setAsking(true)}>{label}</button>;
  return (
    <span role="group" aria-label={question} style={{ display: 'inline-flex', gap: 6, alignItems: 'center' }}>
      <span className="muted">{question}</span>
      <button type="button" className={className} onClick={async () => { setAsking(false); await onConfirm(); }}>{confirmLabel}</button>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => setAsking(false)}>No</button>
    </span>
  );
}
