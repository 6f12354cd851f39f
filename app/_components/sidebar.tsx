'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { getCsrfToken } from 'next-auth/react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { haltApiCalls } from './api-client';
import { NAV_ITEMS } from './nav-items';
import { useUser } from './user-context';

export function Sidebar() {
  const pathname = usePathname();
  const qc = useQueryClient();
  const user = useUser();
  const [leaving, setLeaving] = useState(false);
  const active = (href: string) => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(href + '/'));

  // A plain form post to next-auth's sign-out: the page unloads with the
  // answer that clears the cookie, so no poll runs signed out in between.
  async function logout() {
    setLeaving(true);
    const csrfToken = await getCsrfToken();
    haltApiCalls();
    await qc.cancelQueries();
    const form = document.createElement('form');
    form.method = 'post';
    form.action = '/api/auth/signout';
    for (const [k, v] of Object.entries({ csrfToken: csrfToken ?? '', callbackUrl: '/login' })) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = k;
      input.value = v;
      form.appendChild(input);
    }
    document.body.appendChild(form);
    form.submit();
  }

  return (
    <aside className="sidebar">
      <Link href="/" className="brand" aria-label="Tributary overview">
        <svg viewBox="0 0 32 32" width="26" height="26" aria-hidden="true"><rect width="32" height="32" rx="7" fill="#3b82f6" /><path d="M7 9c6 0 6 5 12 5s6-5 6-5M7 16c6 0 6 5 12 5s6-5 6-5M7 23c6 0 6 4 12 4" fill="none" stroke="#fff" strokeWidth="2.4" strokeLinecap="round" /></svg>
        <span>Tributary</span>
      </Link>
      <nav aria-label="Main">
        <ul>
          {NAV_ITEMS.map((item) => (
            <li key={item.href}>
              <Link href={item.href} className={active(item.href) ? 'nav-link active' : 'nav-link'} aria-current={active(item.href) ? 'page' : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="sidebar-user">
        <div>
          <div className="user-name" data-testid="user-name">{user.name}</div>
          <div className="user-role">{user.role}</div>
        </div>
        <button type="button" className="btn btn-ghost btn-small" onClick={logout} disabled={leaving}>Sign out</button>
      </div>
    </aside>
  );
}
