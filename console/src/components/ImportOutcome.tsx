/*
 * An OpenImmo import as the import page and Try a payload show it: its status and facts, the
 * problem of a file refused as a whole, and one row per object with its action, the listing it
 * wrote (linked) and its errors and warnings by element. An import still PROCESSING is read again
 * every second, so the outcome appears by itself once the worker has applied it.
 */
import { useEffect } from 'preact/hooks';
import { ApiProblem, seg } from '../api';
import { type Loaded, useGet } from '../hooks/useGet';
import { IMPORT_ACTIONS, type ImportIssue, type ImportObject, type OpenImmoImport } from '../types';
import { LoadState } from './LoadState';
import { ProblemView } from './Problem';
import { StatusBadge } from './StatusBadge';
import { TableRegion } from './Table';
import { Time } from './Time';

const POLL_MS = 1000;

/** Reads `loaded` again every second while `pending` holds; a new answer arms the next read. */
export function usePollWhile(loaded: Loaded<unknown>, pending: boolean): void {
  useEffect(() => {
    if (!pending || loaded.loading) return;
    const timer = setTimeout(loaded.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, loaded.data, loaded.loading]);
}

export function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "2 created, 1 refused": each action the import's objects took, in a fixed order; "none" without objects. */
export function countsOf(objects: readonly ImportObject[]): string {
  const counts = IMPORT_ACTIONS.map((action) => [action, objects.filter((object) => object.action === action).length] as const);
  const shown = counts.filter(([, count]) => count > 0).map(([action, count]) => `${count} ${action}`);
  return shown.length > 0 ? shown.join(', ') : 'none';
}

const WRITTEN: readonly ImportObject['action'][] = ['created', 'updated', 'unchanged'];

/** The listing of an object: linked when the import wrote it (or found it unchanged), named only once deleted. */
function ListingCell({ object }: { object: ImportObject }) {
  const id = object.externalListingId;
  if (id === undefined) return <span class="muted">—</span>;
  if (!WRITTEN.includes(object.action)) return <code>{id}</code>;
  return <a href={`/console/listings/${seg(id)}`}>{id}</a>;
}

function Issues({ errors = [], warnings = [] }: { errors?: ImportIssue[]; warnings?: ImportIssue[] }) {
  if (errors.length === 0 && warnings.length === 0) return <span class="muted">—</span>;
  const item = (kind: 'error' | 'warning', issue: ImportIssue) => (
    <li key={`${kind}|${issue.path}|${issue.reason}`} class={kind === 'error' ? 'issue-error' : 'issue-warning'}>
      <strong class={kind === 'error' ? 'bad' : 'warn'}>{kind}</strong> <code>{issue.path}</code>: {issue.reason}
    </li>
  );
  return (
    <ul class="issues">
      {errors.map((issue) => item('error', issue))}
      {warnings.map((issue) => item('warning', issue))}
    </ul>
  );
}

export function ImportObjectsTable({ objects }: { objects: ImportObject[] }) {
  if (objects.length === 0) return <p>No object: the file named none.</p>;
  return (
    <TableRegion label="Objects of the import">
      <table class="import-objects">
        <caption>Objects, in document order: {countsOf(objects)}</caption>
        <thead>
          <tr>
            <th scope="col">objektnr_extern</th>
            <th scope="col">Action</th>
            <th scope="col">Listing</th>
            <th scope="col">Errors and warnings</th>
          </tr>
        </thead>
        <tbody>
          {objects.map((object, index) => (
            // The listings a VOLL transfer deleted share their provider's path.
            <tr key={`${index}|${object.path}`}>
              <th scope="row" class="wrap">
                {object.objektnrExtern ?? <span class="muted">none</span>}
                <br />
                <code class="muted small">{object.path}</code>
              </th>
              <td>
                <StatusBadge status={object.action} />
              </td>
              <td class="wrap">
                <ListingCell object={object} />
              </td>
              <td class="wrap">
                <Issues errors={object.errors} warnings={object.warnings} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

/** What the import is and what became of it. */
export function ImportOutcome({ found }: { found: OpenImmoImport }) {
  return (
    <>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={found.status} />
          </dd>
        </div>
        <div>
          <dt>Umfang</dt>
          <dd>{found.umfang ?? <span class="muted">not read yet</span>}</dd>
        </div>
        <div>
          <dt>Received</dt>
          <dd>
            <Time value={found.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{found.finishedAt ? <Time value={found.finishedAt} /> : <span class="muted">not yet</span>}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{sizeOf(found.sizeBytes)}</dd>
        </div>
        <div>
          <dt>importId</dt>
          <dd>
            <code class="id">{found.importId}</code>
          </dd>
        </div>
      </dl>
      {found.problem ? <ProblemView error={new ApiProblem(found.problem.status, found.problem)} /> : null}
      {found.warnings && found.warnings.length > 0 ? (
        <section aria-labelledby="file-warnings">
          <h2 id="file-warnings">Outside the objects</h2>
          <Issues warnings={found.warnings} />
        </section>
      ) : null}
      {found.status === 'PROCESSING' ? (
        <p role="status">The worker is applying the file; this page reads it again every second.</p>
      ) : (
        <ImportObjectsTable objects={found.objects} />
      )}
    </>
  );
}

/** One import read from the listing import, again every second while PROCESSING. */
export function ImportFollow({ importId }: { importId: string }) {
  const loaded = useGet<OpenImmoImport>(`/clim/openimmo-imports/${seg(importId)}`);
  usePollWhile(loaded, loaded.data?.status === 'PROCESSING');
  return (
    <>
      <LoadState loaded={loaded} what="the import" />
      {loaded.data ? <ImportOutcome found={loaded.data} /> : null}
    </>
  );
}
