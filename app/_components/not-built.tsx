import Link from 'next/link';
import { PageHeader } from './page-header';

/**
 * The page of an engine that is not wired into the panel yet: says so plainly
 * and lists what will be here, so nobody mistakes it for a broken page.
 */
export function NotBuilt({ title, summary, coming, cli }: { title: string; summary: string; coming: string[]; cli?: string }) {
  return (
    <div className="page">
      <PageHeader title={title} sub={summary} />
      <section className="card notice" data-testid="not-built">
        <h2><span className="badge badge-muted">not built yet</span> This part of Tributary is not built yet.</h2>
        <p>What will be here:</p>
        <ul className="bullets">
          {coming.map((c) => <li key={c}>{c}</li>)}
        </ul>
        {cli && <p className="muted">Command line, once available: <code>{cli}</code></p>}
        <p className="muted">Meanwhile, every job the worker runs is visible under <Link href="/runs">Runs</Link>.</p>
      </section>
    </div>
  );
}
