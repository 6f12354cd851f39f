import type { Metadata } from 'next';
import { CdcView } from './cdc-view';

export const metadata: Metadata = { title: 'CDC' };

export default function Page() {
  return <CdcView />;
}
