import type pg from 'pg';
import { OutboundError, sharedOutbound, type Outbound } from '../../platform/delivery/index.js';
import type { JobContext } from '../../platform/jobs/registry.js';
import type { MediaStatus } from './statuses.js';

/**
 * Media of a processed revision. A URL new to the classified is downloaded (bounded in time and
 * size, addresses checked against SSRF by the outbound client) and the outcomes of the job's
 * downloads are kept on their classified_media rows, written together in one statement once
 * they are all known: a later revision that keeps a URL reuses its outcome, and a job that runs
 * again after a crash fetches again only what the crashed run had not recorded.
 */
export interface MediaItem {
  url: string;
  mediaType: string;
}

/** Largest media file downloaded; beyond it the media is refused as DOWNLOADING_FAILED. */
export const MEDIA_MAX_BYTES = 50 * 1024 * 1024;

/** Which content types fit each media type. Tours and videos are often pages of a hosting service. */
const ACCEPTED_TYPES: Record<string, (contentType: string) => boolean> = {
  PICTURE: (type) => type.startsWith('image/'),
  PANORAMA: (type) => type.startsWith('image/'),
  VIDEO: (type) => type.startsWith('video/') || type === 'text/html' || type === 'application/x-mpegurl',
  VIRTUAL_TOUR: (type) => type === 'text/html' || type === 'application/xhtml+xml' || type.startsWith('image/') || type.startsWith('video/'),
};

interface Outcome {
  status: 'CREATED' | 'DOWNLOADING_FAILED' | 'CREATING_FAILED';
  contentType: string | null;
  sizeBytes: number | null;
  error: string | null;
}

async function download(outbound: Outbound, item: MediaItem, signal: AbortSignal): Promise<Outcome> {
  let response;
  try {
    response = await outbound.request({ method: 'GET', url: item.url, maxBytes: MEDIA_MAX_BYTES, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    const message = error instanceof OutboundError ? error.message : 'the download failed';
    return { status: 'DOWNLOADING_FAILED', contentType: null, sizeBytes: null, error: message };
  }
  if (response.status < 200 || response.status > 299) {
    return { status: 'DOWNLOADING_FAILED', contentType: null, sizeBytes: null, error: `the server answered ${response.status}` };
  }
  const header = response.headers['content-type'];
  const contentType = (Array.isArray(header) ? header[0] : header)?.split(';')[0]?.trim().toLowerCase() ?? '';
  const fits = ACCEPTED_TYPES[item.mediaType] ?? (() => false);
  if (!fits(contentType)) {
    return {
      status: 'CREATING_FAILED',
      contentType: contentType || null,
      sizeBytes: response.body.length,
      error: `content type "${contentType || 'none'}" does not fit mediaType ${item.mediaType}`,
    };
  }
  return { status: 'CREATED', contentType, sizeBytes: response.body.length, error: null };
}

interface MediaRow {
  url: string;
  fetch_status: Outcome['status'] | null;
  fetched_revision: number | null;
}

/**
 * The mediaStatuses of a revision, in the order of its media array: CREATED for a URL
 * downloaded now, UPDATED for one kept from an earlier revision that had been downloaded,
 * the failure otherwise.
 */
export async function processMedia(pool: pg.Pool, classifiedId: string, revision: number, media: MediaItem[], context: JobContext): Promise<{ url: string; status: MediaStatus }[]> {
  if (media.length === 0) return [];
  const { rows } = await pool.query<MediaRow>('SELECT url, fetch_status, fetched_revision FROM classified_media WHERE classified_id = $1', [classifiedId]);
  const known = new Map(rows.map((row) => [row.url, row]));
  const outbound = sharedOutbound(context.config, { allowPrivateTargets: context.config.allowPrivateTargets, userAgent: 'immogate-media/1.0' });
  // A later revision, acknowledged meanwhile, may have dropped a URL: it is no longer fetched or shown.
  const wanted = media.filter((item) => known.has(item.url));
  const fetched: { url: string; outcome: Outcome }[] = [];
  const statuses = await inParallel(wanted, DOWNLOADS_AT_ONCE, async (item) => {
    const row = known.get(item.url)!;
    if (row.fetch_status === null) {
      const outcome = await download(outbound, item, context.signal);
      fetched.push({ url: item.url, outcome });
      return outcome.status;
    }
    const keptFromEarlier = row.fetched_revision !== revision;
    return row.fetch_status === 'CREATED' && keptFromEarlier ? 'UPDATED' : row.fetch_status;
  });
  if (fetched.length > 0) {
    await pool.query(
      `UPDATE classified_media m
          SET fetch_status = o.status, content_type = o.content_type, size_bytes = o.size_bytes, fetch_error = o.error,
              fetched_at = now(), fetched_revision = $2
         FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[]) AS o (url, status, content_type, size_bytes, error)
        WHERE m.classified_id = $1 AND m.url = o.url`,
      [
        classifiedId,
        revision,
        fetched.map((f) => f.url),
        fetched.map((f) => f.outcome.status),
        fetched.map((f) => f.outcome.contentType),
        fetched.map((f) => f.outcome.sizeBytes),
        fetched.map((f) => f.outcome.error),
      ],
    );
  }
  return wanted.map((item, index) => ({ url: item.url, status: statuses[index]! }));
}

/**
 * Six media fetched one after the other made the time to a terminal status six downloads long;
 * a few at once keep it near the slowest one without opening a connection per media.
 */
const DOWNLOADS_AT_ONCE = 4;

/** `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
async function inParallel<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
