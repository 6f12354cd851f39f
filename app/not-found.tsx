import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="auth-page">
      <div className="auth-card">
        <div className="auth-brand">Tributary</div>
        <h1>Page not found</h1>
        <p className="muted">There is no page at this address.</p>
        <Link href="/" className="btn btn-primary btn-block">Go to the overview</Link>
      </div>
    </div>
  );
}
