/*
 * One webhook delivery as the integrator's and the operator's pages show it: where it goes and its
 * state, the request sent (headers and body), and every attempt with its time, status code,
 * latency, error, headers and the receiver's answer. A pending delivery is read again every few
 * seconds, so a retry or a redelivery shows up by itself.
 */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { useAction } from '../hooks/useAction';
import type { Loaded } from '../hooks/useGet';
import { type Attempt, type Delivery, type DeliverySummary, type Redelivery, redeliveryOutcome } from '../types';
import { JsonBlock, prettyBody } from './Json';
import { LoadState } from './LoadState';
import { StatusBadge } from './StatusBadge';
import { ProblemView } from './Problem';
import { PairsTable, TableRegion } from './Table';
import { Time } from './Time';

const POLL_MS = 2000;

/** Reads `loaded` again every few seconds while the delivery is pending. */
export function usePollWhilePending(loaded: Loaded<DeliverySummary>): void {
  const pending = loaded.data?.state === 'PENDING';
  // A new answer (data) arms the next read.
  useEffect(() => {
    if (!pending || loaded.loading) return;
    const timer = setTimeout(loaded.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, loaded.data, loaded.loading]);
}

function AttemptEntry({ attempt }: { attempt: Attempt }) {
  const id = `attempt-${attempt.attempt}`;
  const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  return (
    <li class="attempt">
      <article aria-labelledby={id}>
        <h3 id={id}>
          Attempt {attempt.attempt}{' '}
          <span class={`badge badge-${ok ? 'good' : attempt.statusCode === null && attempt.error === null ? 'neutral' : 'bad'}`}>
            {attempt.statusCode ?? (attempt.error ? 'no answer' : 'under way')}
          </span>
        </h3>
        <dl class="facts">
          <div>
            <dt>Time</dt>
            <dd>
              <Time value={attempt.attemptedAt} />
            </dd>
          </div>
          <div>
            <dt>Status code</dt>
            <dd>{attempt.statusCode ?? '—'}</dd>
          </div>
          <div>
            <dt>Latency</dt>
            <dd>{attempt.latencyMs === null ? '—' : `${attempt.latencyMs} ms`}</dd>
          </div>
          <div>
            <dt>Error</dt>
            <dd class="wrap">{attempt.error ?? '—'}</dd>
          </div>
        </dl>
        <details>
          <summary>Request headers sent</summary>
          <PairsTable pairs={attempt.requestHeaders} label={`Request headers of attempt ${attempt.attempt}`} />
        </details>
        <details open={!ok && Boolean(attempt.responseBody)}>
          <summary>
            Response body received{attempt.responseTruncated ? ' (truncated)' : ''}
            {attempt.responseBody === null ? ': none' : attempt.responseBody === '' ? ': empty' : ''}
          </summary>
          {attempt.responseBody ? (
            <JsonBlock value={prettyBody(attempt.responseBody)} label={`Response body of attempt ${attempt.attempt}`} />
          ) : null}
        </details>
      </article>
    </li>
  );
}

/** Redeliver (by `send`, the integrator's route or the operator's), Refresh, and what the redelivery answered. */
function RedeliverActions({ send, reload }: { send: () => Promise<Redelivery>; reload: () => void }) {
  const redelivery = useAction<Redelivery>();
  const result = redelivery.result && redeliveryOutcome(redelivery.result);
  return (
    <>
      <button
        type="button"
        class="primary"
        disabled={redelivery.busy}
        onClick={async () => {
          await redelivery.run(send);
          reload();
        }}
      >
        Redeliver
      </button>
      <button type="button" onClick={reload}>
        Refresh
      </button>
      <div aria-live="polite" class="outcome">
        {redelivery.error !== undefined ? <ProblemView error={redelivery.error} /> : null}
        {result ? (
          <p class={result.queued ? 'ok' : 'warn'}>
            {result.queued
              ? 'Redelivery queued: a worker sends it again now, under the same webhook-id.'
              : `Not redelivered: ${result.reason ?? 'skipped'}.`}
          </p>
        ) : null}
      </div>
    </>
  );
}

export function DeliveryDetails({
  loaded,
  redeliver,
  owner,
}: {
  loaded: Loaded<Delivery>;
  /** Asks for the delivery to be sent again. */
  redeliver: () => Promise<Redelivery>;
  /** Whose delivery it is, for the operator. */
  owner?: ComponentChildren;
}) {
  const delivery = loaded.data;
  return (
    <>
      <LoadState loaded={loaded} what="the delivery" />
      {delivery ? (
        <>
          <dl class="facts">
            <div>
              <dt>State</dt>
              <dd>
                <StatusBadge status={delivery.state} />
                {delivery.test ? <span class="badge badge-neutral">test event</span> : null}
              </dd>
            </div>
            <div>
              <dt>Event</dt>
              <dd class="wrap">
                <EventCell delivery={delivery} marker={false} />
              </dd>
            </div>
            <div>
              <dt>URL</dt>
              <dd class="wrap">
                <code>{delivery.url}</code>
              </dd>
            </div>
            <div>
              <dt>webhook-id</dt>
              <dd>
                <code class="id">{delivery.eventId ?? delivery.id}</code>
              </dd>
            </div>
            {delivery.eventId ? (
              <div>
                <dt>Feed event</dt>
                <dd class="wrap">
                  {/* The status webhook's webhook-id is its event's id: the CRM finds it in GET /events by that id. */}
                  <code class="id">{delivery.eventId}</code> in the event feed (<code>GET /events</code>)
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Delivery id</dt>
              <dd>
                <code class="id">{delivery.id}</code>
              </dd>
            </div>
            <div>
              <dt>Subscription</dt>
              <dd>
                <code class="id">{delivery.subscriptionId}</code>
              </dd>
            </div>
            {owner}
            <div>
              <dt>Created</dt>
              <dd>
                <Time value={delivery.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Delivered</dt>
              <dd>{delivery.deliveredAt ? <Time value={delivery.deliveredAt} /> : '—'}</dd>
            </div>
            <div>
              <dt>Next attempt</dt>
              <dd>{delivery.nextAttemptAt ? <Time value={delivery.nextAttemptAt} /> : '—'}</dd>
            </div>
            <div>
              <dt>Attempts</dt>
              <dd>{delivery.attempts}</dd>
            </div>
          </dl>
          <div class="actions">
            <RedeliverActions send={redeliver} reload={loaded.reload} />
          </div>
          <section aria-labelledby="request-heading">
            <h2 id="request-heading">Request</h2>
            <details>
              <summary>Headers</summary>
              <PairsTable pairs={delivery.request.headers} label="Request headers" />
            </details>
            <JsonBlock value={prettyBody(delivery.request.body)} label="Request body" />
          </section>
          <section aria-labelledby="attempts-heading">
            <h2 id="attempts-heading">Attempts</h2>
            {delivery.attemptList.length === 0 ? (
              <p>No attempt yet.</p>
            ) : (
              <ol class="attempts" aria-label="Attempts, newest first">
                {[...delivery.attemptList].reverse().map((attempt) => (
                  <AttemptEntry key={attempt.attempt} attempt={attempt} />
                ))}
              </ol>
            )}
          </section>
        </>
      ) : null}
    </>
  );
}

/** What a delivery carries (CREATED classified …, lead …), and TEST for a sample sent on request. */
export function EventCell({ delivery, marker = true }: { delivery: DeliverySummary; marker?: boolean }) {
  const { event } = delivery;
  const test = marker && delivery.test;
  return (
    <>
      {test ? <span class="badge badge-neutral">TEST</span> : null}
      {test && event ? ' ' : null}
      {event ? (
        <>
          {event.name !== event.subjectType ? <span class="event-name">{event.name} </span> : null}
          {event.subjectType} <code>{event.subjectId}</code>
        </>
      ) : test ? null : (
        '—'
      )}
    </>
  );
}

/** Deliveries as a table: each links to its page (`hrefOf`); `extra` adds the operator's columns. */
export function DeliveriesTable<T extends DeliverySummary>({
  items,
  hrefOf,
  extra,
}: {
  items: T[];
  hrefOf: (delivery: T) => string;
  extra?: { heading: string; cell: (delivery: T) => ComponentChildren }[];
}) {
  return (
    <TableRegion label="Deliveries">
      <table>
        <caption>Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last status</th>
            {extra?.map((column) => (
              <th scope="col" key={column.heading}>
                {column.heading}
              </th>
            ))}
            <th scope="col">URL</th>
            <th scope="col">Next attempt</th>
          </tr>
        </thead>
        <tbody>
          {items.map((delivery) => (
            <tr key={delivery.id}>
              <th scope="row">
                <a href={hrefOf(delivery)}>
                  <Time value={delivery.createdAt} />
                </a>
              </th>
              <td class="wrap">
                <EventCell delivery={delivery} />
              </td>
              <td>
                <StatusBadge status={delivery.state} />
              </td>
              <td>{delivery.attempts}</td>
              <td class="wrap">{delivery.lastStatusCode ?? delivery.lastError ?? '—'}</td>
              {extra?.map((column) => (
                <td key={column.heading}>{column.cell(delivery)}</td>
              ))}
              <td class="wrap">
                <code>{delivery.url}</code>
              </td>
              <td>{delivery.nextAttemptAt ? <Time value={delivery.nextAttemptAt} /> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
