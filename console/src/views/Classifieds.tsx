/* The agency's classifieds in this environment, newest first: filtered by offererEstateId and by latest status, paged. */
import { useState } from 'preact/hooks';
import { query } from '../api';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { CursorPager, useCursor } from '../components/Pager';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { Time } from '../components/Time';
import { fieldsOf } from '../forms';
import { useGet } from '../hooks/useGet';
import { type ClassifiedSummary, type CursorPage, STATUSES } from '../types';

const PAGE_SIZE = 20;

export function ClassifiedsPage() {
  const [filters, setFilters] = useState({ offererEstateId: '', status: '' });
  const cursor = useCursor();
  const loaded = useGet<CursorPage<ClassifiedSummary>>(
    `/caas/summaries${query({ offererEstateId: filters.offererEstateId, status: filters.status, limit: PAGE_SIZE, cursor: cursor.current })}`,
  );
  const items = loaded.data?.items ?? [];

  return (
    <Page title="Classifieds">
      <search aria-label="Filter the classifieds">
        <form
          class="filters"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            setFilters({ offererEstateId: fields.offererEstateId ?? '', status: fields.status ?? '' });
            cursor.reset();
          }}
        >
          <div class="field">
            <label for="filter-estate">offererEstateId</label>
            <input id="filter-estate" name="offererEstateId" defaultValue={filters.offererEstateId} spellcheck={false} />
          </div>
          <div class="field">
            <label for="filter-status">Latest status</label>
            <select id="filter-status" name="status" defaultValue={filters.status}>
              <option value="">Any</option>
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Filter</button>
        </form>
      </search>
      <LoadState loaded={loaded} what="the classifieds" />
      {loaded.data ? (
        items.length === 0 ? (
          <p>No classified matches.</p>
        ) : (
          <TableRegion label="Classifieds">
            <table>
              <caption>Classifieds, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">offererEstateId</th>
                  <th scope="col">Latest status</th>
                  <th scope="col">Revision</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                  <th scope="col">classifiedId</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={item.classifiedId}>
                    <th scope="row">
                      <a href={`/console/classifieds/${encodeURIComponent(item.classifiedId)}`}>{item.offererEstateId}</a>
                      {item.deleted ? <span class="muted"> (deleted)</span> : null}
                    </th>
                    <td>
                      {item.latest ? (
                        <>
                          <StatusBadge status={item.latest.status} />
                          {item.latest.subStatus ? <span class="muted small"> {item.latest.subStatus}</span> : null}
                          <br />
                          <span class="muted small">
                            {item.latest.stage} · <Time value={item.latest.statusDate} />
                          </span>
                        </>
                      ) : (
                        <span class="muted">none yet</span>
                      )}
                    </td>
                    <td>{item.revision}</td>
                    <td>
                      <Time value={item.createdAt} />
                    </td>
                    <td>
                      <Time value={item.updatedAt} />
                    </td>
                    <td>
                      <code class="id">{item.classifiedId}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
        )
      ) : null}
      <CursorPager label="Pages of classifieds" cursor={cursor} next={loaded.data?.nextCursor} shown={`${items.length} shown`} />
    </Page>
  );
}
