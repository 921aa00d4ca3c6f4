/* One listing of the listing import: its dates, the warnings of its rules, its media and the listing as served. */
import { seg } from '../api';
import { JsonBlock } from '../components/Json';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { Time } from '../components/Time';
import { useGet } from '../hooks/useGet';
import type { ListingDetails } from '../types';

function size(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function ListingPage({ externalListingId }: { externalListingId: string }) {
  const details = useGet<ListingDetails>(`/clim/listings/${seg(externalListingId)}/details`);
  const listing = useGet<{ listing: unknown }>(`/clim/listings/${seg(externalListingId)}`);
  const data = details.data;
  return (
    <Page title={`Listing ${externalListingId}`}>
      <p>
        <a href="/console/listings">← All listings</a>
      </p>
      <LoadState loaded={details} what="the listing" />
      {data ? (
        <>
          <dl class="facts">
            <div>
              <dt>listingId</dt>
              <dd>
                <code class="id">{data.listingId}</code>
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time value={data.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Last write</dt>
              <dd>
                <Time value={data.lastWriteAt} />
              </dd>
            </div>
            <div>
              <dt>Expires</dt>
              <dd>{data.expiresAt ? <Time value={data.expiresAt} /> : 'never'}</dd>
            </div>
          </dl>
          <section aria-labelledby="warnings-heading">
            <h2 id="warnings-heading">Warnings</h2>
            {data.warnings.length === 0 ? (
              <p>No warning: every rule passed without a finding.</p>
            ) : (
              <ul class="warnings">
                {data.warnings.map((warning) => (
                  <li key={`${warning.type}|${warning.message}`}>
                    <strong>{warning.type}</strong>: {warning.message}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="media-heading">
            <h2 id="media-heading">Media</h2>
            {data.media.length === 0 ? (
              <p>No media.</p>
            ) : (
              <TableRegion label="Media of the listing">
                <table>
                  <caption class="visually-hidden">Media of the listing</caption>
                  <thead>
                    <tr>
                      <th scope="col">externalMediaId</th>
                      <th scope="col">File name</th>
                      <th scope="col">State</th>
                      <th scope="col">Content type</th>
                      <th scope="col">Size</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.media.map((media) => (
                      <tr key={media.externalMediaId}>
                        <th scope="row">
                          <code>{media.externalMediaId}</code>
                        </th>
                        <td class="wrap">{media.fileName}</td>
                        <td>
                          <StatusBadge status={media.state} />
                        </td>
                        <td>{media.contentType ?? '—'}</td>
                        <td>{size(media.sizeBytes)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableRegion>
            )}
          </section>
        </>
      ) : null}
      <section aria-labelledby="listing-heading">
        <h2 id="listing-heading">The listing as served</h2>
        <LoadState loaded={listing} what="the listing" />
        {listing.data ? <JsonBlock value={listing.data.listing} label="The listing as served" /> : null}
      </section>
    </Page>
  );
}
