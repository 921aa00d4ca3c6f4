/* The signed-in session, for the pages that show or offer things by the APIs the client holds. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiId, Session } from './types';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in console');
  return session;
}

/** Whether the integrator's client holds scopes of `api`. */
export function holds(session: Session, api: ApiId): boolean {
  return session.apis.some((held) => held.id === api);
}
