import type { Metadata } from 'next';
import { Suspense } from 'react';
import { DqView } from './dq-view';

export const metadata: Metadata = { title: 'Data quality' };

export default function Page() {
  // The view reads its filters from the URL (useSearchParams), which needs a Suspense boundary.
  return <Suspense><DqView /></Suspense>;
}
