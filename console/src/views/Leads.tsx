/*
 * The agency's leads by ingestion date, newest first like every list of the console: a period of
 * at most 7 days (the API's bound), 20 a page, the next page continuing after the last lead.
 */
import { useState } from 'preact/hooks';
import { query } from '../api';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { CursorPager, useCursor } from '../components/Pager';
import { TableRegion } from '../components/Table';
import { Time } from '../components/Time';
import { fieldsOf } from '../forms';
import { useGet } from '../hooks/useGet';
import type { RecentLeads } from '../types';

const PAGE_SIZE = 20;
const DAY_MS = 24 * 3600 * 1000;

/** A datetime-local input's value (local time, to the minute) for `date`. */
function localInput(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function unixSeconds(local: string): number {
  return Math.floor(new Date(local).getTime() / 1000);
}

export function LeadsPage() {
  // The last 7 days up to the next minute, so a lead of this minute is in.
  const [period, setPeriod] = useState(() => {
    const to = new Date(Math.ceil((Date.now() + 1) / 60000) * 60000);
    return { from: localInput(new Date(to.getTime() - 7 * DAY_MS)), to: localInput(to) };
  });
  const cursor = useCursor();
  const loaded = useGet<RecentLeads>(
    `/leads/recent-leads${query({ minDate: unixSeconds(period.from), maxDate: unixSeconds(period.to), limit: PAGE_SIZE, start: cursor.current })}`,
  );
  const items = loaded.data?.items ?? [];
  return (
    <Page title="Leads">
      <search aria-label="Search leads by date">
        <form
          class="filters"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            setPeriod({ from: fields.from ?? period.from, to: fields.to ?? period.to });
            cursor.reset();
          }}
        >
          <div class="field">
            <label for="leads-from">Received from</label>
            <input id="leads-from" name="from" type="datetime-local" defaultValue={period.from} required />
          </div>
          <div class="field">
            <label for="leads-to">Received before</label>
            <input id="leads-to" name="to" type="datetime-local" defaultValue={period.to} required aria-describedby="leads-hint" />
          </div>
          <button type="submit">Search</button>
          <p id="leads-hint" class="hint">
            At most 7 days apart, in your time zone.
          </p>
        </form>
      </search>
      <LoadState loaded={loaded} what="the leads" />
      {loaded.data ? (
        items.length === 0 ? (
          <p>No lead in this period.</p>
        ) : (
          <TableRegion label="Leads">
            <table>
              <caption>Leads, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">From</th>
                  <th scope="col">Email</th>
                  <th scope="col">classifiedId</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {items.map((lead) => (
                  <tr key={lead.metadata.leadId}>
                    <th scope="row">
                      <a href={`/console/leads/${encodeURIComponent(lead.metadata.leadId)}`}>
                        <Time value={lead.metadata.ingestionDate} />
                      </a>
                    </th>
                    <td>{lead.contactRequest.name ?? <span class="muted">erased</span>}</td>
                    <td class="wrap">{lead.contactRequest.email}</td>
                    <td>{lead.property.classifiedId ?? '—'}</td>
                    <td class="wrap excerpt">{lead.contactRequest.message ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
        )
      ) : null}
      <CursorPager label="Pages of leads" cursor={cursor} next={loaded.data?.nextCursor} shown={`${items.length} shown`} />
    </Page>
  );
}
