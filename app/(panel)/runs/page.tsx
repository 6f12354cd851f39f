import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RunsView } from './runs-view';

export const metadata: Metadata = { title: 'Runs' };

// The view reads its filters from the URL (useSearchParams), which needs a Suspense boundary.
export default function RunsPage() {
  return <Suspense fallback={<div className="page"><p className="empty">Loading runs…</p></div>}><RunsView /></Suspense>;
}
