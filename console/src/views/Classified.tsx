/*
 * One classified: its whole status timeline (stage, sub-status, portals, message, the rules it
 * violated, each media's status and reason), its current payload, its revisions with each one's
 * payload, and what changed between two revisions.
 */
import { useState } from 'preact/hooks';
import { get, query, seg } from '../api';
import { JsonBlock } from '../components/Json';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { CursorPager, useCursor } from '../components/Pager';
import { ProblemView } from '../components/Problem';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { Time } from '../components/Time';
import { fieldsOf } from '../forms';
import { useAction } from '../hooks/useAction';
import { type Loaded, useGet } from '../hooks/useGet';
import type { Changes, CursorPage, MediaStatus, Revision, RevisionSummary, StatusItem, StatusPage } from '../types';

const STATUS_PAGE_SIZE = 20;
const REVISION_PAGE_SIZE = 10;

/**
 * subStatusDetails names every violated rule: "PORTAL: RULE: field reason; ..." per portal,
 * portals separated by " | ". Shown one violation a line; a text of another shape is shown whole.
 */
function Violations({ details }: { details: string }) {
  const portals = details.split(' | ').map((part) => {
    const match = /^([A-Z]+): (.*)$/.exec(part);
    return match && /^[A-Z_]+: /.test(match[2] ?? '')
      ? { portal: match[1], rules: (match[2] ?? '').split('; ') }
      : { rules: part.split('; ') };
  });
  return (
    <div class="violations">
      <p class="label">Rule violations</p>
      <ul>
        {portals.flatMap(({ portal, rules }) =>
          rules.map((rule) => (
            <li key={`${portal}|${rule}`}>
              {portal ? <strong>{portal}: </strong> : null}
              <code>{rule}</code>
            </li>
          )),
        )}
      </ul>
    </div>
  );
}

function MediaTable({ media, label }: { media: MediaStatus[]; label: string }) {
  return (
    <TableRegion label={label}>
      <table class="media">
        <caption>Media</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {media.map((item) => (
            <tr key={item.url}>
              <th scope="row" class="wrap">
                <code>{item.url}</code>
              </th>
              <td>
                <StatusBadge status={item.status} />
              </td>
              <td class="wrap">{item.reason ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

function StatusEntry({ status }: { status: StatusItem }) {
  const headingId = `status-${status.statusId}`;
  return (
    <li class="status-entry">
      <article aria-labelledby={headingId}>
        <h3 id={headingId} class="status-head">
          <StatusBadge status={status.status} />
          {status.subStatus ? <span class="sub-status">{status.subStatus}</span> : null}
          <span class="muted small">
            <Time value={status.statusDate} />
          </span>
        </h3>
        <p class="status-message">{status.message}</p>
        <dl class="facts">
          <div>
            <dt>Stage</dt>
            <dd>{status.stage}</dd>
          </div>
          <div>
            <dt>Revision</dt>
            <dd>{status.revision}</dd>
          </div>
          <div>
            <dt>Portals</dt>
            <dd>{status.portals.length > 0 ? status.portals.join(', ') : '—'}</dd>
          </div>
          <div>
            <dt>Write received</dt>
            <dd>
              <Time value={status.creationDate} />
            </dd>
          </div>
        </dl>
        {status.subStatusDetails ? <Violations details={status.subStatusDetails} /> : null}
        {status.mediaStatuses && status.mediaStatuses.length > 0 ? (
          <MediaTable media={status.mediaStatuses} label={`Media of ${status.status} (revision ${status.revision})`} />
        ) : null}
      </article>
    </li>
  );
}

function Timeline({ id }: { id: string }) {
  const [latestOnly, setLatestOnly] = useState(false);
  const cursor = useCursor();
  const loaded = useGet<StatusPage>(
    `/caas/classifieds/${seg(id)}/statuses${query({ limit: STATUS_PAGE_SIZE, nextToken: cursor.current, filter: latestOnly ? 'latest' : undefined })}`,
  );
  return (
    <section aria-labelledby="timeline-heading">
      <div class="section-head">
        <h2 id="timeline-heading">Status timeline</h2>
        <div class="inline-controls">
          <label class="check">
            <input
              type="checkbox"
              checked={latestOnly}
              onChange={(event) => {
                setLatestOnly(event.currentTarget.checked);
                cursor.reset();
              }}
            />
            Latest revision only
          </label>
          <button type="button" onClick={loaded.reload}>
            Refresh
          </button>
        </div>
      </div>
      <LoadState loaded={loaded} what="the statuses" />
      {loaded.data ? (
        loaded.data.items.length === 0 ? (
          <p>No status.</p>
        ) : (
          <ol class="timeline" aria-label="Statuses, newest first">
            {loaded.data.items.map((status) => (
              <StatusEntry key={status.statusId} status={status} />
            ))}
          </ol>
        )
      ) : null}
      <CursorPager label="Pages of statuses" cursor={cursor} next={loaded.data?.nextToken} />
    </section>
  );
}

type Payload = { data?: { metaData?: { source?: { offererEstateId?: string } } } };

function CurrentPayload({ loaded }: { loaded: Loaded<Payload> }) {
  return (
    <section aria-labelledby="payload-heading">
      <h2 id="payload-heading">Current payload</h2>
      <LoadState loaded={loaded} what="the payload" />
      {loaded.data ? <JsonBlock value={loaded.data} label="Current payload" /> : null}
    </section>
  );
}

function ChangesTable({ changes }: { changes: Changes }) {
  if (changes.changes.length === 0)
    return (
      <p>
        Revisions {changes.from} and {changes.to} hold the same payload.
      </p>
    );
  const shown = (value: unknown) => (value === undefined ? <span class="muted">—</span> : <code>{JSON.stringify(value)}</code>);
  return (
    <TableRegion label={`Changes from revision ${changes.from} to ${changes.to}`}>
      <table>
        <caption>
          From revision {changes.from} to revision {changes.to}: {changes.changes.length} change{changes.changes.length === 1 ? '' : 's'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Path</th>
            <th scope="col">Change</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {changes.changes.map((change) => (
            <tr key={change.path} class={`change-${change.change}`}>
              <th scope="row">
                <code>{change.path}</code>
              </th>
              <td>{change.change}</td>
              <td class="wrap">{shown(change.before)}</td>
              <td class="wrap">{shown(change.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

function Revisions({ id }: { id: string }) {
  const cursor = useCursor();
  const loaded = useGet<CursorPage<RevisionSummary>>(
    `/caas/classifieds/${seg(id)}/revisions${query({ limit: REVISION_PAGE_SIZE, cursor: cursor.current })}`,
  );
  const revision = useAction<Revision>();
  const changes = useAction<Changes>();
  const newest = loaded.data?.items[0]?.revision;

  return (
    <section aria-labelledby="revisions-heading">
      <h2 id="revisions-heading">Revisions</h2>
      <LoadState loaded={loaded} what="the revisions" />
      {loaded.data ? (
        <TableRegion label="Revisions">
          <table>
            <caption>Revisions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Revision</th>
                <th scope="col">Operation</th>
                <th scope="col">Received</th>
                <th scope="col">Processed</th>
                <th scope="col">Payload</th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.items.map((item) => (
                <tr key={item.revision}>
                  <th scope="row">{item.revision}</th>
                  <td>
                    {item.operation}
                    {item.unchanged ? <span class="muted"> (unchanged)</span> : null}
                  </td>
                  <td>
                    <Time value={item.receivedAt} />
                  </td>
                  <td>{item.processedAt ? <Time value={item.processedAt} /> : <span class="muted">not yet</span>}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => void revision.run(() => get<Revision>(`/caas/classifieds/${seg(id)}/revisions/${seg(item.revision)}`))}
                    >
                      Show payload<span class="visually-hidden"> of revision {item.revision}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      <CursorPager label="Pages of revisions" cursor={cursor} next={loaded.data?.nextCursor} />
      <div aria-live="polite">
        {revision.error !== undefined ? <ProblemView error={revision.error} /> : null}
        {revision.result ? (
          <div class="panel">
            <h3>
              Payload of revision {revision.result.revision} ({revision.result.operation})
            </h3>
            {revision.result.payload === null ? (
              <p>A deletion: no payload.</p>
            ) : (
              <JsonBlock value={revision.result.payload} label="Payload" />
            )}
          </div>
        ) : null}
      </div>

      <h3 id="compare-heading">Compare two revisions</h3>
      <form
        class="filters"
        aria-labelledby="compare-heading"
        key={newest}
        onSubmit={(event) => {
          const fields = fieldsOf(event);
          void changes.run(() => get<Changes>(`/caas/classifieds/${seg(id)}/changes${query({ from: fields.from, to: fields.to })}`));
        }}
      >
        <div class="field">
          <label for="compare-from">From revision</label>
          <input
            id="compare-from"
            name="from"
            type="number"
            min={1}
            required
            defaultValue={newest ? String(Math.max(1, newest - 1)) : ''}
          />
        </div>
        <div class="field">
          <label for="compare-to">To revision</label>
          <input id="compare-to" name="to" type="number" min={1} required defaultValue={newest ? String(newest) : ''} />
        </div>
        <button type="submit" disabled={changes.busy}>
          Compare
        </button>
      </form>
      <div aria-live="polite">
        {changes.error !== undefined ? <ProblemView error={changes.error} /> : null}
        {changes.result ? <ChangesTable changes={changes.result} /> : null}
      </div>
    </section>
  );
}

export function ClassifiedPage({ id }: { id: string }) {
  const payload = useGet<Payload>(`/caas/classifieds/${seg(id)}`);
  const estate = payload.data?.data?.metaData?.source?.offererEstateId;
  return (
    <Page title={estate ? `Classified ${estate}` : 'Classified'}>
      <p>
        <a href="/console/classifieds">← All classifieds</a>
      </p>
      <p>
        classifiedId <code class="id">{id}</code>
      </p>
      <Timeline id={id} />
      <CurrentPayload loaded={payload} />
      <Revisions id={id} />
    </Page>
  );
}
