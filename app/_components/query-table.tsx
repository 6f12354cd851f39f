import type { ReactNode } from 'react';
import { QueryState, type QueryLike } from './query-state';

/**
 * A query's list as a table, with the states every list view has, shown the
 * same way everywhere: QueryState while the query loads or failed, the view's
 * own empty state when there is nothing to list, else the table in its
 * scroll box. The caller gives the header row and the body rows as
 * functions, called only once the data is there.
 */
export function QueryTable({ query, loading, failure, empty, isEmpty, compact, testId, head, children }: {
  query: QueryLike;
  /** The loading line. (Default: QueryState's, Loading…) */
  loading?: string;
  /** What could not be loaded, before the error's message. (Default: the message alone) */
  failure?: string;
  /** Whether the loaded list has nothing to show (asked only once the query has succeeded). */
  isEmpty: () => boolean;
  /** Shown when it is empty: a line (in the muted empty style) or an element of the view's own. */
  empty: ReactNode;
  /** The compact table style, for dense logs and maps. (Default: false) */
  compact?: boolean;
  /** The table's data-testid. (Default: none) */
  testId?: string;
  /** The header row(s), inside <thead>. */
  head: () => ReactNode;
  /** The body rows, inside <tbody>. */
  children: () => ReactNode;
}): ReactNode {
  if (query.isPending || query.isError) return <QueryState query={query} loading={loading} failure={failure} />;
  if (isEmpty()) return typeof empty === 'string' ? <p className="empty">{empty}</p> : empty;
  return (
    <div className="table-scroll">
      <table className={compact ? 'table table-compact' : 'table'} data-testid={testId}>
        <thead>{head()}</thead>
        <tbody>{children()}</tbody>
      </table>
    </div>
  );
}
