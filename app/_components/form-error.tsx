import { ApiError } from './api-client';

/** An API error under a form, naming the field the server named. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const field = error instanceof ApiError ? error.field : undefined;
  const message = (error as Error).message ?? String(error);
  return (
    <p className="form-error" role="alert">
      {field ? <strong>{field}: </strong> : null}
      {field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message}
    </p>
  );
}
