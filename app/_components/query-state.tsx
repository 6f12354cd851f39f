import type { ReactNode } from 'react';

/** What QueryState needs of a query (a @tanstack/react-query result fits). */
export interface QueryLike { isPending: boolean; isError: boolean; error: unknown }

/**
 * The loading and error states of a view's query, shown the same way
 * everywhere: a muted "Loading…" line, or the error's message in red after
 * what could not be loaded. Views render it while their query is not a
 * success (`!q.isSuccess ? <QueryState query={q} … /> : …`), then their
 * own empty state or data.
 */
export function QueryState({ query, loading = 'Loading…', failure, card }: {
  query: QueryLike;
  /** The loading line. (Default: Loading…) */
  loading?: string;
  /** What could not be loaded, before the error's message: "Could not load runs". (Default: the message alone) */
  failure?: string;
  /** Show the line in a card of its own, for views with no card around it. (Default: false) */
  card?: boolean;
}): ReactNode {
  const line = query.isError
    ? <p className="empty error-text">{failure ? `${failure}: ` : ''}{messageOf(query.error)}</p>
    : query.isPending ? <p className="empty">{loading}</p> : null;
  return card && line ? <section className="card">{line}</section> : line;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
