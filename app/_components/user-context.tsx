'use client';
import { createContext, useContext, type ReactNode } from 'react';

export interface PanelUser { id: string; name: string; role: 'admin' | 'operator' | 'viewer' }

const Ctx = createContext<PanelUser | null>(null);
const RANK = { viewer: 0, operator: 1, admin: 2 } as const;

export function UserProvider({ user, children }: { user: PanelUser; children: ReactNode }) {
  return <Ctx.Provider value={user}>{children}</Ctx.Provider>;
}

export function useUser(): PanelUser {
  const u = useContext(Ctx);
  if (!u) throw new Error('useUser outside the panel layout');
  return u;
}

/** Whether the signed-in user has at least this role. */
export function useCan(least: PanelUser['role']): boolean {
  return RANK[useUser().role] >= RANK[least];
}
