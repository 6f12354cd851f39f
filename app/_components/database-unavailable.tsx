import { DB_RETRY_AFTER_SECONDS } from '@/lib/errors/db-unavailable';

/**
 * What a page shows while the database cannot be reached (it is restarting,
 * or down), instead of a 500: the state, and a reload every few seconds so
 * the page comes back by itself when the database does.
 */
export function DatabaseUnavailable() {
  return (
    <div className="auth-page">
      {/* React hoists it into <head>: the browser retries without anyone acting. */}
      <meta httpEquiv="refresh" content={String(DB_RETRY_AFTER_SECONDS)} />
      <div className="auth-card" role="alert">
        <div className="auth-brand">Tributary</div>
        <h1>Database unavailable</h1>
        <p className="muted">
          Tributary cannot reach its database right now — it may be restarting. Nothing is lost: queued jobs wait, and
          this page reloads every {DB_RETRY_AFTER_SECONDS} seconds until it is back.
        </p>
      </div>
    </div>
  );
}
