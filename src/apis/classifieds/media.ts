import type pg from 'pg';
import { createOutbound, OutboundError, type Outbound } from '../../platform/delivery/index.js';
import type { JobContext } from '../../platform/jobs/registry.js';
import type { MediaStatus } from './statuses.js';

/**
 * Media of a processed revision. A URL new to the classified is downloaded once (bounded in
 * time and size, addresses checked against SSRF by the outbound client) and its outcome kept
 * on its classified_media row as soon as it is known, so a job that runs again does not fetch
 * it twice and a later revision that keeps the URL reuses the outcome.
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
  let outbound: Outbound | undefined;
  const fetchOne = async (item: MediaItem): Promise<MediaStatus> => {
    outbound ??= createOutbound({ allowPrivateTargets: context.config.allowPrivateTargets, userAgent: 'immogate-media/1.0' });
    const outcome = await download(outbound, item, context.signal);
    await pool.query(
      `UPDATE classified_media SET fetch_status = $3, content_type = $4, size_bytes = $5, fetch_error = $6,
              fetched_at = now(), fetched_revision = $7
        WHERE classified_id = $1 AND url = $2`,
      [classifiedId, item.url, outcome.status, outcome.contentType, outcome.sizeBytes, outcome.error, revision],
    );
    return outcome.status;
  };
  try {
    // A later revision, acknowledged meanwhile, may have dropped a URL: it is no longer fetched or shown.
    const wanted = media.filter((item) => known.has(item.url));
    const statuses = await inParallel(wanted, DOWNLOADS_AT_ONCE, async (item) => {
      const row = known.get(item.url)!;
      if (row.fetch_status === null) return fetchOne(item);
      const keptFromEarlier = row.fetched_revision !== revision;
      return row.fetch_status === 'CREATED' && keptFromEarlier ? 'UPDATED' : row.fetch_status;
    });
    return wanted.map((item, index) => ({ url: item.url, status: statuses[index]! }));
  } finally {
    await outbound?.close();
  }
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
