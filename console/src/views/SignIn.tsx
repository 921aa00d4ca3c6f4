/*
 * Signing in: an integrator with their client's id and secret, the agency and the environment (the
 * backend gets the client's tokens from /oauth/token); an operator with the ADMIN_TOKEN, behind the
 * Operator link (/console/operator).
 */
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ProblemView } from '../components/Problem';
import { fieldsOf } from '../forms';
import type { Session } from '../types';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  // The operator's form has an address of its own, to bookmark.
  const operator = useLocation().path.replace(/\/$/, '') === '/console/operator';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function signIn(body: Record<string, string>) {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await call<Session>('POST', '/session', body, { session: true }));
    } catch (problem) {
      setError(problem);
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>immogate console</h1>
      {operator ? (
        <form
          aria-labelledby="operator-heading"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            void signIn({ kind: 'operator', adminToken: fields.adminToken ?? '' });
          }}
        >
          <h2 id="operator-heading">Operator sign-in</h2>
          <p class="muted">With the server's ADMIN_TOKEN: manage clients, see every client's tokens, the pipeline and every delivery.</p>
          <label for="admin-token">Admin token</label>
          <input id="admin-token" name="adminToken" type="password" autocomplete="off" required />
          <div class="form-actions">
            <button type="submit" class="primary" disabled={busy}>
              Sign in
            </button>
            <a href="/console/">Integrator sign-in</a>
          </div>
        </form>
      ) : (
        <form
          aria-labelledby="integrator-heading"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            void signIn({
              kind: 'integrator',
              clientId: fields.clientId ?? '',
              clientSecret: fields.clientSecret ?? '',
              agency: fields.agency ?? '',
              environment: fields.environment ?? 'sandbox',
            });
          }}
        >
          <h2 id="integrator-heading">Integrator sign-in</h2>
          <p class="muted">With your client's credentials, for one agency in one environment.</p>
          <label for="client-id">Client ID</label>
          <input id="client-id" name="clientId" autocomplete="username" spellcheck={false} required />
          <label for="client-secret">Client secret</label>
          <input id="client-secret" name="clientSecret" type="password" autocomplete="current-password" required />
          <label for="agency">Agency</label>
          <input id="agency" name="agency" spellcheck={false} aria-describedby="agency-hint" required />
          <p id="agency-hint" class="hint">
            The <code>intermediary_id</code> your client acts for.
          </p>
          <label for="environment">Environment</label>
          <select id="environment" name="environment">
            <option value="sandbox">sandbox</option>
            <option value="production">production</option>
          </select>
          <div class="form-actions">
            <button type="submit" class="primary" disabled={busy}>
              Sign in
            </button>
            <a href="/console/operator">Operator</a>
          </div>
        </form>
      )}
      <div aria-live="polite">{error !== undefined ? <ProblemView error={error} /> : null}</div>
    </main>
  );
}
