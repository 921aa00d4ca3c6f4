/*
 * The console: the session (read at start, ended by Sign out or by any call answering 401), the
 * sign-in page without one, and with one the navigation and pages of its kind (an integrator's
 * APIs, or the operator's).
 */
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { call, setCsrfToken, whenSignedOut } from './api';
import { ProblemView } from './components/Problem';
import { holds, SessionContext, useSession } from './session';
import type { Session } from './types';
import { AdminDeliveriesPage } from './views/admin/Deliveries';
import { AdminDeliveryPage } from './views/admin/Delivery';
import { ClientsPage } from './views/admin/Clients';
import { PipelinePage } from './views/admin/Pipeline';
import { TokenReportPage } from './views/admin/TokenReport';
import { ClassifiedPage } from './views/Classified';
import { ClassifiedsPage } from './views/Classifieds';
import { DeliveryPage } from './views/Delivery';
import { LeadPage } from './views/Lead';
import { LeadsPage } from './views/Leads';
import { ListingPage } from './views/Listing';
import { ListingsPage } from './views/Listings';
import { OpenImmoImportPage, OpenImmoImportsPage } from './views/OpenImmoImports';
import { SignIn } from './views/SignIn';
import { TokensPage } from './views/Tokens';
import { ValidatePage } from './views/Validate';
import { WebhooksPage } from './views/Webhooks';

interface NavItem {
  href: string;
  label: string;
}

function navOf(session: Session): NavItem[] {
  if (session.kind === 'operator')
    return [
      { href: '/console/admin/clients', label: 'Clients' },
      { href: '/console/admin/tokens', label: 'Token report' },
      { href: '/console/admin/pipeline', label: 'Pipeline' },
      { href: '/console/admin/deliveries', label: 'Deliveries' },
    ];
  const has = (api: 'caas' | 'clim' | 'leads') => holds(session, api);
  const items: NavItem[] = [];
  if (has('caas')) items.push({ href: '/console/classifieds', label: 'Classifieds' });
  if (has('clim')) items.push({ href: '/console/listings', label: 'Listings' }, { href: '/console/openimmo', label: 'OpenImmo imports' });
  if (has('leads')) items.push({ href: '/console/leads', label: 'Leads' });
  if (has('caas') || has('leads')) items.push({ href: '/console/webhooks', label: 'Webhooks' });
  if (has('caas') || has('clim')) items.push({ href: '/console/validate', label: 'Try a payload' });
  items.push({ href: '/console/tokens', label: 'Tokens' });
  return items;
}

function homeOf(session: Session): string {
  return navOf(session)[0]?.href ?? '/console/tokens';
}

/** /console/ itself (and the operator's sign-in address once signed in) opens the first page. */
function Home() {
  const to = homeOf(useSession());
  const { route } = useLocation();
  useEffect(() => route(to, true), [to, route]);
  return null;
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        The console has no page at this address. <a href="/console/">Go to the start</a>.
      </p>
    </>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const { path } = useLocation();
  const nav = navOf(session);
  const home = homeOf(session);
  const who =
    session.kind === 'operator' ? (
      <span>Operator</span>
    ) : (
      <span>
        <strong>{session.clientName ?? session.clientId}</strong> · agency <strong>{session.agency}</strong> ·{' '}
        <span class={`env env-${session.environment}`}>{session.environment}</span>
      </span>
    );
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">
          <a href={home}>immogate console</a>
        </p>
        <p class="who">{who}</p>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="main-nav" aria-label="Console">
        <ul>
          {nav.map((item) => (
            <li key={item.href}>
              <a href={item.href} aria-current={path === item.href || path.startsWith(`${item.href}/`) ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {session.kind === 'operator' ? (
          <Router>
            <Route path="/console/admin/clients" component={ClientsPage} />
            <Route path="/console/admin/tokens" component={TokenReportPage} />
            <Route path="/console/admin/pipeline" component={PipelinePage} />
            <Route path="/console/admin/deliveries" component={AdminDeliveriesPage} />
            <Route path="/console/admin/deliveries/:id" component={AdminDeliveryPage} />
            <Route path="/console" component={Home} />
            <Route path="/console/operator" component={Home} />
            <Route default component={NotFound} />
          </Router>
        ) : (
          <Router>
            <Route path="/console/classifieds" component={ClassifiedsPage} />
            <Route path="/console/classifieds/:id" component={ClassifiedPage} />
            <Route path="/console/listings" component={ListingsPage} />
            <Route path="/console/listings/:externalListingId" component={ListingPage} />
            <Route path="/console/openimmo" component={OpenImmoImportsPage} />
            <Route path="/console/openimmo/:importId" component={OpenImmoImportPage} />
            <Route path="/console/leads" component={LeadsPage} />
            <Route path="/console/leads/:leadId" component={LeadPage} />
            <Route path="/console/webhooks" component={WebhooksPage} />
            <Route path="/console/webhooks/:source/deliveries/:id" component={DeliveryPage} />
            <Route path="/console/validate" component={ValidatePage} />
            <Route path="/console/tokens" component={TokensPage} />
            <Route path="/console" component={Home} />
            <Route path="/console/operator" component={Home} />
            <Route default component={NotFound} />
          </Router>
        )}
      </main>
    </>
  );
}

function Console() {
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [startError, setStartError] = useState<unknown>();

  function signedIn(next: Session) {
    setCsrfToken(next.csrfToken);
    setSession(next);
  }

  useEffect(() => {
    whenSignedOut(() => setSession(null));
    call<Session>('GET', '/session', undefined, { session: true }).then(signedIn, (error: { status?: number }) => {
      if (error.status !== 401) setStartError(error);
      setSession(null);
    });
  }, []);

  async function signOut() {
    await call('DELETE', '/session', undefined, { session: true }).catch(() => undefined);
    setCsrfToken('');
    setSession(null);
  }

  if (session === undefined)
    return (
      <main id="main">
        <p role="status">Loading the console…</p>
      </main>
    );
  if (session === null)
    return (
      <>
        {startError !== undefined ? <ProblemView error={startError} /> : null}
        <SignIn onSignedIn={signedIn} />
      </>
    );
  return (
    <SessionContext.Provider value={session}>
      <Shell session={session} onSignOut={signOut} />
    </SessionContext.Provider>
  );
}

export function App() {
  return (
    <LocationProvider scope="/console">
      <Console />
    </LocationProvider>
  );
}
