/*
 * The webhooks of both APIs: the classifieds status webhook and the lead subscriptions (set,
 * change, remove, send a signed test event), and every delivery of either, filtered by state and
 * subscription, paged.
 */
import { useState } from 'preact/hooks';
import { del, post, put, query, seg } from '../api';
import { DeliveriesTable } from '../components/DeliveryDetails';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { CursorPager, useCursor } from '../components/Pager';
import { ProblemView } from '../components/Problem';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { Time } from '../components/Time';
import { fieldsOf, valuesOf } from '../forms';
import { useAction } from '../hooks/useAction';
import { useGet } from '../hooks/useGet';
import { holds, useSession } from '../session';
import {
  type CaasWebhook,
  type CursorPage,
  DELIVERY_STATES,
  type Delivery,
  type DeliverySource,
  type DeliverySummary,
  STATUSES,
  type SubscriptionPage,
} from '../types';

const PAGE_SIZE = 20;

function deliveryHref(source: DeliverySummary['source'], id: string): string {
  return `/console/webhooks/${source}/deliveries/${encodeURIComponent(id)}`;
}

/** What a button's call did, said in the live region: a test event's delivery links to its page. */
function Outcome({ error, message, delivery }: { error?: unknown; message?: string; delivery?: { source: DeliverySource; id: string } }) {
  return (
    <div aria-live="polite" class="outcome">
      {error !== undefined ? <ProblemView error={error} /> : null}
      {message ? (
        <p class="ok">
          {message}
          {delivery ? (
            <>
              {' '}
              <a href={deliveryHref(delivery.source, delivery.id)}>See its delivery</a>.
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}

function StatusWebhook({ onChange }: { onChange: () => void }) {
  // null when none is set: an answer, so the page makes no request that fails.
  const loaded = useGet<CaasWebhook | null>('/caas/webhook');
  const action = useAction<{ message: string; delivery?: Delivery }>();
  const none = loaded.data === null;
  const webhook = loaded.data ?? undefined;

  async function act(work: () => Promise<{ message: string; delivery?: Delivery }>) {
    await action.run(work);
    loaded.reload();
    onChange();
  }

  return (
    <section aria-labelledby="caas-webhook-heading">
      <h2 id="caas-webhook-heading">Classified status webhook</h2>
      {none ? <p>No status webhook is set: statuses are only polled.</p> : <LoadState loaded={loaded} what="the status webhook" />}
      {webhook ? (
        <>
          <dl class="facts">
            <div>
              <dt>URL</dt>
              <dd class="wrap">
                <code>{webhook.url}</code>
                <span class="muted small">
                  {' '}
                  (statuses go to {'{url}'}/classifieds/{'{classifiedId}'}/statuses)
                </span>
              </dd>
            </div>
            <div>
              <dt>Statuses</dt>
              <dd>{webhook.statuses === null || webhook.statuses.length === 0 ? 'all' : webhook.statuses.join(', ')}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time value={webhook.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>
                <Time value={webhook.updatedAt} />
              </dd>
            </div>
          </dl>
          <div class="actions">
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                act(async () => {
                  const delivery = await post<Delivery>('/caas/webhooks/test-events');
                  return { message: 'A signed sample status was queued for the status webhook.', delivery };
                })
              }
            >
              Send test event<span class="visually-hidden"> to the status webhook</span>
            </button>
            <button
              type="button"
              class="danger"
              disabled={action.busy}
              onClick={() =>
                act(async () => {
                  await del('/caas/webhooks');
                  return { message: 'The status webhook was removed.' };
                })
              }
            >
              Remove the status webhook
            </button>
          </div>
        </>
      ) : null}
      <Outcome
        error={action.error}
        message={action.result?.message}
        delivery={action.result?.delivery ? { source: 'caas', id: action.result.delivery.id } : undefined}
      />
      <details class="panel">
        <summary>{webhook ? 'Replace the status webhook' : 'Set a status webhook'}</summary>
        <form
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            const statuses = valuesOf(event, 'statuses');
            const body = {
              url: fields.url,
              ...(statuses.length > 0 ? { statuses } : {}),
              ...(fields.secret ? { secret: fields.secret } : {}),
            };
            void act(async () => {
              await put('/caas/webhooks', body);
              return { message: 'The status webhook is set.' };
            });
          }}
        >
          <label for="caas-url">URL</label>
          <input id="caas-url" name="url" type="url" required defaultValue={webhook?.url} spellcheck={false} />
          <label for="caas-secret">Secret</label>
          <input
            id="caas-secret"
            name="secret"
            type="password"
            autocomplete="off"
            minLength={16}
            maxLength={256}
            aria-describedby="caas-secret-hint"
          />
          <p id="caas-secret-hint" class="hint">
            Optional, 16 to 256 characters: the key your receiver verifies signatures with. Without it a random key is used.
          </p>
          <fieldset>
            <legend>Statuses sent (none ticked: all)</legend>
            <div class="checks">
              {STATUSES.map((status) => (
                <label class="check" key={status}>
                  <input type="checkbox" name="statuses" value={status} defaultChecked={webhook?.statuses?.includes(status)} />
                  {status}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" class="primary" disabled={action.busy}>
            Save the status webhook
          </button>
        </form>
      </details>
    </section>
  );
}

function LeadSubscriptions({ onChange }: { onChange: () => void }) {
  const cursor = useCursor();
  const loaded = useGet<SubscriptionPage>(`/leads/recent-subscriptions${query({ limit: PAGE_SIZE, nextToken: cursor.current })}`);
  const action = useAction<{ message: string; delivery?: Delivery }>();

  async function act(work: () => Promise<{ message: string; delivery?: Delivery }>) {
    await action.run(work);
    loaded.reload();
    onChange();
  }

  const items = loaded.data?.items ?? [];
  return (
    <section aria-labelledby="lead-subscriptions-heading">
      <h2 id="lead-subscriptions-heading">Lead subscriptions</h2>
      <LoadState loaded={loaded} what="the lead subscriptions" />
      {loaded.data ? (
        items.length === 0 ? (
          <p>No lead subscription: leads are only searched.</p>
        ) : (
          <TableRegion label="Lead subscriptions">
            <table>
              <caption class="visually-hidden">Lead subscriptions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {items.map((subscription) => {
                  const path = `/leads/webhook/subscriptions/${seg(subscription.subscriptionId)}`;
                  const active = subscription.status === 'ACTIVE';
                  return (
                    <tr key={subscription.subscriptionId}>
                      <th scope="row" class="wrap">
                        <code>{subscription.url}</code>
                        <br />
                        <span class="muted small">
                          <code>{subscription.subscriptionId}</code>
                        </span>
                      </th>
                      <td>
                        <StatusBadge status={subscription.status} />
                      </td>
                      <td>
                        <Time value={subscription.createdAt} />
                      </td>
                      <td>
                        <Time value={subscription.updatedAt} />
                      </td>
                      <td class="row-actions">
                        <button
                          type="button"
                          disabled={action.busy || !active}
                          onClick={() =>
                            act(async () => {
                              const delivery = await post<Delivery>(`${path}/test-events`);
                              return { message: `A signed sample lead was queued for ${subscription.url}.`, delivery };
                            })
                          }
                        >
                          Send test event<span class="visually-hidden"> to {subscription.url}</span>
                        </button>
                        <button
                          type="button"
                          disabled={action.busy}
                          onClick={() =>
                            act(async () => {
                              await put(path, { status: active ? 'INACTIVE' : 'ACTIVE' });
                              return { message: `The subscription is ${active ? 'inactive' : 'active'}.` };
                            })
                          }
                        >
                          {active ? 'Deactivate' : 'Activate'}
                          <span class="visually-hidden"> {subscription.url}</span>
                        </button>
                        <button
                          type="button"
                          class="danger"
                          disabled={action.busy}
                          onClick={() =>
                            act(async () => {
                              await del(path);
                              return { message: 'The subscription was deleted.' };
                            })
                          }
                        >
                          Delete<span class="visually-hidden"> {subscription.url}</span>
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableRegion>
        )
      ) : null}
      <CursorPager label="Pages of lead subscriptions" cursor={cursor} next={loaded.data?.metadata.nextToken} />
      <Outcome
        error={action.error}
        message={action.result?.message}
        delivery={action.result?.delivery ? { source: 'leads', id: action.result.delivery.id } : undefined}
      />
      <details class="panel">
        <summary>New lead subscription</summary>
        <form
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            void act(async () => {
              await post('/leads/webhook/subscriptions', { url: fields.url, apiKey: fields.apiKey, status: fields.status });
              return { message: 'The subscription was created.' };
            });
          }}
        >
          <label for="lead-url">URL</label>
          <input id="lead-url" name="url" type="url" required spellcheck={false} />
          <label for="lead-key">API key</label>
          <input
            id="lead-key"
            name="apiKey"
            type="password"
            autocomplete="off"
            required
            maxLength={1024}
            aria-describedby="lead-key-hint"
          />
          <p id="lead-key-hint" class="hint">
            Sent as X-Api-Key with every notification and the key of its signature; never shown again.
          </p>
          <label for="lead-status">Status</label>
          <select id="lead-status" name="status">
            <option value="ACTIVE">ACTIVE</option>
            <option value="INACTIVE">INACTIVE</option>
          </select>
          <button type="submit" class="primary" disabled={action.busy}>
            Create the subscription
          </button>
        </form>
      </details>
    </section>
  );
}

/** Which deliveries the filter shows: every webhook's (the default), or one kind's. */
type SourceFilter = DeliverySource | '';

function Deliveries({ sources, version }: { sources: DeliverySource[]; version: number }) {
  const [filters, setFilters] = useState<{ source: SourceFilter; state: string; subscriptionId: string }>({
    source: '',
    state: '',
    subscriptionId: '',
  });
  const cursor = useCursor();
  const loaded = useGet<CursorPage<DeliverySummary>>(
    `${filters.source === '' ? '' : `/${filters.source}`}/deliveries${query({
      state: filters.state,
      subscriptionId: filters.subscriptionId,
      limit: PAGE_SIZE,
      cursor: cursor.current,
    })}`,
    // Read again after an action elsewhere on the page (a test event sent).
    version,
  );
  const items = loaded.data?.items ?? [];
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <search aria-label="Filter the deliveries">
        <form
          class="filters"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            setFilters({
              source: fields.source === 'leads' || fields.source === 'caas' ? fields.source : '',
              state: fields.state ?? '',
              subscriptionId: fields.subscriptionId ?? '',
            });
            cursor.reset();
          }}
        >
          {sources.length > 1 ? (
            <div class="field">
              <label for="deliveries-source">Webhook</label>
              <select id="deliveries-source" name="source" defaultValue={filters.source}>
                <option value="">All webhooks</option>
                <option value="caas">Classified statuses</option>
                <option value="leads">Leads</option>
              </select>
            </div>
          ) : null}
          <div class="field">
            <label for="deliveries-state">State</label>
            <select id="deliveries-state" name="state" defaultValue={filters.state}>
              <option value="">Any</option>
              {DELIVERY_STATES.map((state) => (
                <option key={state} value={state}>
                  {state}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="deliveries-subscription">Subscription id</label>
            <input id="deliveries-subscription" name="subscriptionId" defaultValue={filters.subscriptionId} spellcheck={false} />
          </div>
          <button type="submit">Filter</button>
          <button type="button" onClick={loaded.reload}>
            Refresh
          </button>
        </form>
      </search>
      <LoadState loaded={loaded} what="the deliveries" />
      {loaded.data ? (
        items.length === 0 ? (
          <p>No delivery matches.</p>
        ) : (
          <DeliveriesTable items={items} hrefOf={(delivery) => deliveryHref(delivery.source, delivery.id)} />
        )
      ) : null}
      <CursorPager label="Pages of deliveries" cursor={cursor} next={loaded.data?.nextCursor} shown={`${items.length} shown`} />
    </section>
  );
}

export function WebhooksPage() {
  const session = useSession();
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((value) => value + 1);
  const sources: DeliverySource[] = [];
  if (holds(session, 'caas')) sources.push('caas');
  if (holds(session, 'leads')) sources.push('leads');
  return (
    <Page title="Webhooks">
      {holds(session, 'caas') ? <StatusWebhook onChange={changed} /> : null}
      {holds(session, 'leads') ? <LeadSubscriptions onChange={changed} /> : null}
      {sources.length > 0 ? <Deliveries sources={sources} version={version} /> : <p>Your client holds no API with webhooks.</p>}
    </Page>
  );
}
