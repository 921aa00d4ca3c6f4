/* The agency's listings of the listing import in this environment, newest first like every list of the console, 100 a page. */
import { useState } from 'preact/hooks';
import { query } from '../api';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { CursorPager, useCursor } from '../components/Pager';
import { fieldsOf } from '../forms';
import { useGet } from '../hooks/useGet';
import { useLocation } from 'preact-iso';
import type { ListingPage } from '../types';

export function ListingsPage() {
  const cursor = useCursor();
  const { route } = useLocation();
  const [wanted, setWanted] = useState('');
  const loaded = useGet<ListingPage>(`/clim/recent-listings${query({ nextPageToken: cursor.current })}`);
  const ids = loaded.data?.externalListingIds ?? [];
  return (
    <Page title="Listings">
      <search aria-label="Open a listing">
        <form
          class="filters"
          onSubmit={(event) => {
            const id = fieldsOf(event).externalListingId ?? '';
            setWanted(id);
            if (id !== '') route(`/console/listings/${encodeURIComponent(id)}`);
          }}
        >
          <div class="field">
            <label for="listing-id">externalListingId</label>
            <input id="listing-id" name="externalListingId" defaultValue={wanted} spellcheck={false} required />
          </div>
          <button type="submit">Open</button>
        </form>
      </search>
      <LoadState loaded={loaded} what="the listings" />
      {loaded.data ? (
        ids.length === 0 ? (
          <p>No listing yet.</p>
        ) : (
          <>
            <h2 id="listings-heading">Listings, newest first</h2>
            <ul class="id-list" aria-labelledby="listings-heading">
              {ids.map((id) => (
                <li key={id}>
                  <a href={`/console/listings/${encodeURIComponent(id)}`}>{id}</a>
                </li>
              ))}
            </ul>
          </>
        )
      ) : null}
      <CursorPager label="Pages of listings" cursor={cursor} next={loaded.data?.nextPageToken} shown={`${ids.length} shown`} />
    </Page>
  );
}
