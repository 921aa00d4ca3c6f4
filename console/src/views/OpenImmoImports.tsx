/*
 * The agency's OpenImmo imports in this environment (files posted to POST {root}/openimmo-imports),
 * newest first like every list of the console, 20 a page: each with its status, umfang, time, size
 * and how many objects took each action; read again every second while one is still PROCESSING.
 * An import's page lists its objects, each with the listing it wrote and its errors and warnings.
 */
import { query } from '../api';
import { countsOf, ImportFollow, sizeOf, usePollWhile } from '../components/ImportOutcome';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { CursorPager, useCursor } from '../components/Pager';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { Time } from '../components/Time';
import { useGet } from '../hooks/useGet';
import type { ImportPage } from '../types';

export function OpenImmoImportsPage() {
  const cursor = useCursor();
  const loaded = useGet<ImportPage>(`/clim/openimmo-imports${query({ nextPageToken: cursor.current })}`);
  const imports = loaded.data?.imports ?? [];
  usePollWhile(
    loaded,
    imports.some((found) => found.status === 'PROCESSING'),
  );
  return (
    <Page
      title="OpenImmo imports"
      actions={
        <button type="button" onClick={loaded.reload}>
          Refresh
        </button>
      }
    >
      <p>
        The OpenImmo files (XML, or a ZIP with its pictures) posted to <code>POST {'{root}'}/openimmo-imports</code> or imported from{' '}
        <a href="/console/validate">Try a payload</a>; each object of a file becomes a listing, or is refused beside the others.
      </p>
      <LoadState loaded={loaded} what="the imports" />
      {loaded.data ? (
        imports.length === 0 ? (
          <p>No OpenImmo import yet.</p>
        ) : (
          <TableRegion label="OpenImmo imports">
            <table>
              <caption>OpenImmo imports, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Status</th>
                  <th scope="col">Umfang</th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col">Objects</th>
                  <th scope="col">Finished</th>
                </tr>
              </thead>
              <tbody>
                {imports.map((found) => (
                  <tr key={found.importId}>
                    <th scope="row">
                      <a href={`/console/openimmo/${encodeURIComponent(found.importId)}`}>
                        <Time value={found.createdAt} />
                      </a>
                    </th>
                    <td>
                      <StatusBadge status={found.status} />
                    </td>
                    <td>{found.umfang ?? '—'}</td>
                    <td class="num">{sizeOf(found.sizeBytes)}</td>
                    <td class="wrap">
                      {found.status === 'PROCESSING' ? <span class="muted">being applied</span> : countsOf(found.objects)}
                    </td>
                    <td>{found.finishedAt ? <Time value={found.finishedAt} /> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
        )
      ) : null}
      <CursorPager label="Pages of imports" cursor={cursor} next={loaded.data?.nextPageToken} shown={`${imports.length} shown`} />
    </Page>
  );
}

export function OpenImmoImportPage({ importId }: { importId: string }) {
  return (
    <Page title="OpenImmo import">
      <p>
        <a href="/console/openimmo">← All OpenImmo imports</a>
      </p>
      <ImportFollow importId={importId} />
    </Page>
  );
}
