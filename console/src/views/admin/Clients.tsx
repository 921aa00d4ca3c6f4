/*
 * The operator's clients: create one (its secret shown once), rotate a secret (and revoke the
 * tokens issued with the old one, if asked), disable a client, set the environments it may get
 * tokens for; every client listed, paged.
 */
import { useState } from 'preact/hooks';
import { post, put, query, seg } from '../../api';
import { LoadState } from '../../components/LoadState';
import { Page } from '../../components/Page';
import { CursorPager, useCursor } from '../../components/Pager';
import { ProblemView } from '../../components/Problem';
import { TableRegion } from '../../components/Table';
import { Time } from '../../components/Time';
import { fieldsOf, listOf, valuesOf } from '../../forms';
import { useAction } from '../../hooks/useAction';
import { useGet } from '../../hooks/useGet';
import type { Client, ClientWithSecret, CursorPage } from '../../types';

const PAGE_SIZE = 20;
const ENVIRONMENTS = ['sandbox', 'production'] as const;

/** A secret the server will not show again, with the client it belongs to. */
function SecretOnce({ shown, onDone }: { shown: { title: string; client: Client; secret: string }; onDone: () => void }) {
  return (
    <div class="secret-once" role="status">
      <h2>{shown.title}</h2>
      <p>Copy the secret now: it is shown once and cannot be read again (rotating it makes a new one).</p>
      <dl class="facts">
        <div>
          <dt>Client ID</dt>
          <dd>
            <code class="id">{shown.client.clientId}</code>
          </dd>
        </div>
        <div>
          <dt>Client secret</dt>
          <dd>
            <code class="id secret">{shown.secret}</code>
          </dd>
        </div>
        <div>
          <dt>Agencies</dt>
          <dd>{shown.client.intermediaries.join(', ')}</dd>
        </div>
        <div>
          <dt>Environments</dt>
          <dd>{shown.client.environments.join(', ')}</dd>
        </div>
      </dl>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

type Pending = { clientId: string; name: string; what: 'rotate' | 'rotate-revoke' | 'disable' };

/** What the confirmation asks, and its button, for each action. */
const CONFIRM: Record<Pending['what'], { question: (name: string) => string; button: string }> = {
  rotate: {
    question: (name) =>
      `Rotate the secret of "${name}"? Its current secret stops working at once and its console sessions end; the tokens it already holds work until they expire (24 hours at most).`,
    button: 'Rotate the secret',
  },
  'rotate-revoke': {
    question: (name) =>
      `Rotate the secret of "${name}" and revoke its tokens? Its current secret stops working at once, its console sessions end, and every token it was issued before stops working within 10 seconds.`,
    button: 'Rotate and revoke tokens',
  },
  disable: {
    question: (name) => `Disable "${name}"? It gets no token any more, and its tokens stop working within seconds.`,
    button: 'Disable the client',
  },
};

export function ClientsPage() {
  const cursor = useCursor();
  const loaded = useGet<CursorPage<Client>>(`/admin/clients${query({ limit: PAGE_SIZE, cursor: cursor.current })}`);
  const action = useAction<{ message?: string; secret?: { title: string; client: Client; secret: string } }>();
  const [confirming, setConfirming] = useState<Pending>();
  const [formKey, setFormKey] = useState(0);

  async function act(work: () => Promise<{ message?: string; secret?: { title: string; client: Client; secret: string } }>) {
    setConfirming(undefined);
    await action.run(work);
    loaded.reload();
  }

  const items = loaded.data?.items ?? [];
  const shown = action.result;
  return (
    <Page title="Clients">
      <div aria-live="polite">
        {action.error !== undefined ? <ProblemView error={action.error} /> : null}
        {shown?.secret ? <SecretOnce shown={shown.secret} onDone={action.clear} /> : null}
        {shown?.message ? <p class="ok">{shown.message}</p> : null}
      </div>

      <details class="panel" open={items.length === 0 && loaded.data !== undefined}>
        <summary>Create a client</summary>
        <form
          key={formKey}
          aria-label="Create a client"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            const scopes = listOf(fields.scopes);
            const body = {
              name: fields.name ?? '',
              intermediaries: listOf(fields.intermediaries),
              ...(scopes.length > 0 ? { scopes } : {}),
              environments: valuesOf(event, 'environments'),
            };
            void act(async () => {
              const created = await post<ClientWithSecret>('/admin/clients', body);
              setFormKey((value) => value + 1);
              return { secret: { title: `Client "${created.client.name}" created`, client: created.client, secret: created.clientSecret } };
            });
          }}
        >
          <label for="client-name">Name</label>
          <input id="client-name" name="name" required maxLength={200} />
          <label for="client-agencies">Agencies</label>
          <input id="client-agencies" name="intermediaries" required spellcheck={false} aria-describedby="client-agencies-hint" />
          <p id="client-agencies-hint" class="hint">
            The <code>intermediary_id</code>s it may act for, separated by commas or spaces.
          </p>
          <label for="client-scopes">Scopes</label>
          <input id="client-scopes" name="scopes" spellcheck={false} aria-describedby="client-scopes-hint" />
          <p id="client-scopes-hint" class="hint">
            Separated by spaces, e.g. <code>caas:* clim:* leads:*</code>; empty: the server's default.
          </p>
          <fieldset class="inline">
            <legend>Environments</legend>
            {ENVIRONMENTS.map((environment) => (
              <label class="check" key={environment}>
                <input type="checkbox" name="environments" value={environment} defaultChecked={environment === 'sandbox'} />
                {environment}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={action.busy}>
            Create the client
          </button>
        </form>
      </details>

      {confirming ? (
        <div class="confirm" role="alertdialog" aria-labelledby="confirm-text">
          <p id="confirm-text">{CONFIRM[confirming.what].question(confirming.name)}</p>
          <button
            type="button"
            class="danger"
            onClick={() =>
              act(async () => {
                const path = `/admin/clients/${seg(confirming.clientId)}`;
                if (confirming.what !== 'disable') {
                  const revokeTokens = confirming.what === 'rotate-revoke';
                  const rotated = await post<ClientWithSecret>(`${path}/secret`, { revokeTokens });
                  const title = `New secret of "${rotated.client.name}"${revokeTokens ? '; its earlier tokens are revoked' : ''}`;
                  return { secret: { title, client: rotated.client, secret: rotated.clientSecret } };
                }
                const disabled = await post<Client>(`${path}/disable`);
                return { message: `"${disabled.name}" is disabled.` };
              })
            }
          >
            {CONFIRM[confirming.what].button}
          </button>
          <button type="button" onClick={() => setConfirming(undefined)}>
            Cancel
          </button>
        </div>
      ) : null}

      <LoadState loaded={loaded} what="the clients" />
      {loaded.data ? (
        items.length === 0 ? (
          <p>No client yet.</p>
        ) : (
          <TableRegion label="Clients">
            <table>
              <caption>Clients, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Client ID</th>
                  <th scope="col">Agencies</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Environments</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {items.map((client) => (
                  <tr key={client.clientId} class={client.disabledAt ? 'disabled' : undefined}>
                    <th scope="row">
                      {client.name}
                      {client.disabledAt ? (
                        <span class="muted small">
                          <br />
                          disabled <Time value={client.disabledAt} />
                        </span>
                      ) : null}
                    </th>
                    <td>
                      <code class="id">{client.clientId}</code>
                    </td>
                    <td class="wrap">{client.intermediaries.join(', ')}</td>
                    <td class="wrap">
                      <code>{client.scopes.join(' ')}</code>
                    </td>
                    <td>
                      <form
                        class="row-form"
                        aria-label={`Environments of ${client.name}`}
                        onSubmit={(event) => {
                          const environments = valuesOf(event, 'environments');
                          event.preventDefault();
                          void act(async () => {
                            const updated = await put<Client>(`/admin/clients/${seg(client.clientId)}/environments`, { environments });
                            return { message: `"${updated.name}" may now get tokens for ${updated.environments.join(' and ')}.` };
                          });
                        }}
                      >
                        {ENVIRONMENTS.map((environment) => (
                          <label class="check" key={environment}>
                            <input
                              type="checkbox"
                              name="environments"
                              value={environment}
                              defaultChecked={client.environments.includes(environment)}
                              disabled={client.disabledAt !== null}
                            />
                            {environment}
                          </label>
                        ))}
                        <button type="submit" disabled={action.busy || client.disabledAt !== null}>
                          Save<span class="visually-hidden"> the environments of {client.name}</span>
                        </button>
                      </form>
                    </td>
                    <td>
                      <Time value={client.createdAt} />
                      {client.secretRotatedAt ? (
                        <span class="muted small">
                          <br />
                          secret rotated <Time value={client.secretRotatedAt} />
                        </span>
                      ) : null}
                    </td>
                    <td class="row-actions">
                      <button
                        type="button"
                        disabled={action.busy || client.disabledAt !== null}
                        onClick={() => setConfirming({ clientId: client.clientId, name: client.name, what: 'rotate' })}
                      >
                        Rotate secret<span class="visually-hidden"> of {client.name}</span>
                      </button>
                      <button
                        type="button"
                        disabled={action.busy || client.disabledAt !== null}
                        onClick={() => setConfirming({ clientId: client.clientId, name: client.name, what: 'rotate-revoke' })}
                      >
                        Rotate and revoke tokens<span class="visually-hidden"> of {client.name}</span>
                      </button>
                      <button
                        type="button"
                        class="danger"
                        disabled={action.busy || client.disabledAt !== null}
                        onClick={() => setConfirming({ clientId: client.clientId, name: client.name, what: 'disable' })}
                      >
                        Disable<span class="visually-hidden"> {client.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
        )
      ) : null}
      <CursorPager label="Pages of clients" cursor={cursor} next={loaded.data?.nextCursor} shown={`${items.length} shown`} />
    </Page>
  );
}
