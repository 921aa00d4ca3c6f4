/* The webhook deliveries of every agency and environment, filtered by agency, environment, API and state, paged. */
import { useState } from 'preact/hooks';
import { query } from '../../api';
import { DeliveriesTable } from '../../components/DeliveryDetails';
import { LoadState } from '../../components/LoadState';
import { Page } from '../../components/Page';
import { CursorPager, useCursor } from '../../components/Pager';
import { fieldsOf } from '../../forms';
import { useGet } from '../../hooks/useGet';
import { type CursorPage, DELIVERY_STATES, type DeliverySummary, type Owner } from '../../types';

const PAGE_SIZE = 20;

export function AdminDeliveriesPage() {
  const [filters, setFilters] = useState({ agency: '', environment: '', source: '', state: '' });
  const cursor = useCursor();
  const loaded = useGet<CursorPage<DeliverySummary & Owner>>(
    `/admin/deliveries${query({ ...filters, limit: PAGE_SIZE, cursor: cursor.current })}`,
  );
  const items = loaded.data?.items ?? [];
  return (
    <Page title="Deliveries">
      <search aria-label="Filter the deliveries">
        <form
          class="filters"
          onSubmit={(event) => {
            const fields = fieldsOf(event);
            setFilters({
              agency: fields.agency ?? '',
              environment: fields.environment ?? '',
              source: fields.source ?? '',
              state: fields.state ?? '',
            });
            cursor.reset();
          }}
        >
          <div class="field">
            <label for="admin-agency">Agency</label>
            <input id="admin-agency" name="agency" defaultValue={filters.agency} spellcheck={false} />
          </div>
          <div class="field">
            <label for="admin-environment">Environment</label>
            <select id="admin-environment" name="environment" defaultValue={filters.environment}>
              <option value="">Any</option>
              <option value="sandbox">sandbox</option>
              <option value="production">production</option>
            </select>
          </div>
          <div class="field">
            <label for="admin-source">API</label>
            <select id="admin-source" name="source" defaultValue={filters.source}>
              <option value="">Any</option>
              <option value="caas">Classified statuses</option>
              <option value="leads">Leads</option>
            </select>
          </div>
          <div class="field">
            <label for="admin-state">State</label>
            <select id="admin-state" name="state" defaultValue={filters.state}>
              <option value="">Any</option>
              {DELIVERY_STATES.map((state) => (
                <option key={state} value={state}>
                  {state}
                </option>
              ))}
            </select>
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
          <DeliveriesTable
            items={items}
            hrefOf={(delivery) => `/console/admin/deliveries/${encodeURIComponent(delivery.id)}`}
            extra={[
              { heading: 'Agency', cell: (delivery) => delivery.agency },
              { heading: 'Environment', cell: (delivery) => delivery.environment },
              { heading: 'API', cell: (delivery) => (delivery.source === 'caas' ? 'classifieds' : 'leads') },
            ]}
          />
        )
      ) : null}
      <CursorPager label="Pages of deliveries" cursor={cursor} next={loaded.data?.nextCursor} shown={`${items.length} shown`} />
    </Page>
  );
}
