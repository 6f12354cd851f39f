import type { ReactNode } from 'react';

/**
 * A page's header, the same on every panel page: its title, a line under it
 * saying what the page holds, and the page's actions (buttons, links) at the
 * right, given as children.
 */
export function PageHeader({ title, sub, mono, children }: {
  title: ReactNode;
  /** The line under the title. (Default: none) */
  sub?: ReactNode;
  /** The title in the monospace face, for identifiers (a table, a job kind). (Default: false) */
  mono?: boolean;
  /** Actions at the right of the header. (Default: none) */
  children?: ReactNode;
}): ReactNode {
  return (
    <header className="page-header">
      <div>
        <h1 className={mono ? 'mono' : undefined}>{title}</h1>
        {sub ? <p className="page-sub">{sub}</p> : null}
      </div>
      {children}
    </header>
  );
}
