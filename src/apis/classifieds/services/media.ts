/*
 * Media of a processed revision. A URL new to the classified is downloaded (bounded in time and
 * size, addresses checked against SSRF by the outbound client) and the outcomes are kept on
 * their classified_media rows with the revision's outcome: a later revision that keeps a URL
 * reuses its outcome, and processing that runs again after a crash fetches again only what the
 * crashed run had not recorded. A URL of immogate's own samples (PUBLIC_URL/samples/) is answered
 * by the platform in process, as its HTTP route would answer it.
 */
import type { Environment } from '../../../platform/catalogue.js';
import {
  OutboundError,
  addressPolicy,
  sharedHostLimits,
  sharedOutbound,
  type HostLimits,
  type Outbound,
} from '../../../platform/delivery/index.js';
import { mediaType } from '../../../platform/http/mediaType.js';
import { sampleResponse } from '../../../platform/samples/index.js';
import type { WorkContext } from '../../../platform/work/stream.js';
import type { MediaStatusItem } from '../model/statuses.js';
import type { KnownMedia, MediaOutcome } from '../repository.js';

/** A media of a classified, as far as its download is concerned. */
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
  VIRTUAL_TOUR: (type) =>
    type === 'text/html' || type === 'application/xhtml+xml' || type.startsWith('image/') || type.startsWith('video/'),
};

type Outcome = Omit<MediaOutcome, 'url'>;

interface Downloader {
  outbound: Outbound;
  hosts: HostLimits;
  /** Whose downloads these are: the host limits count per agency and host. */
  tenant: string;
  publicUrl: string;
  signal: AbortSignal;
}

async function download({ outbound, hosts, tenant, publicUrl, signal }: Downloader, item: MediaItem): Promise<Outcome> {
  let response: Awaited<ReturnType<Outbound['request']>>;
  try {
    // Only what came matters (its type and size): the bytes are counted, not kept.
    response =
      sampleResponse(item.url, publicUrl) ??
      (await hosts.run(tenant, item.url, () =>
        outbound.request({ method: 'GET', url: item.url, maxBytes: MEDIA_MAX_BYTES, keepBody: false, signal }),
      ));
  } catch (error) {
    if (signal.aborted) throw error;
    const message = error instanceof OutboundError ? error.message : 'the download failed';
    return { status: 'DOWNLOADING_FAILED', contentType: null, sizeBytes: null, error: message };
  }
  if (response.status < 200 || response.status > 299) {
    return { status: 'DOWNLOADING_FAILED', contentType: null, sizeBytes: null, error: `the server answered ${response.status}` };
  }
  const header = response.headers['content-type'];
  const contentType = mediaType(header) ?? '';
  const fits = ACCEPTED_TYPES[item.mediaType] ?? (() => false);
  if (!fits(contentType)) {
    return {
      status: 'CREATING_FAILED',
      contentType: contentType || null,
      sizeBytes: response.size,
      error: `content type "${contentType || 'none'}" does not fit mediaType ${item.mediaType}`,
    };
  }
  return { status: 'CREATED', contentType, sizeBytes: response.size, error: null };
}

export interface MediaPlan {
  /** The revision's media still registered: a later revision, acknowledged meanwhile, may have dropped a URL, which is then neither fetched nor shown. */
  wanted: MediaItem[];
  /** Those never downloaded. */
  toFetch: MediaItem[];
}

export function planMedia(media: readonly MediaItem[], known: readonly KnownMedia[]): MediaPlan {
  const byUrl = new Map(known.map((row) => [row.url, row]));
  const wanted = media.filter((item) => byUrl.has(item.url));
  return { wanted, toFetch: wanted.filter((item) => byUrl.get(item.url)?.fetch_status === null) };
}

/**
 * Downloads the media of a classified of `agencyId` in `environment`, a few at once; each outcome
 * in the order of `items`. At most MEDIA_DOWNLOADS_PER_HOST of an agency's downloads from one
 * host run at once in a process: a host that is slow with one agency's files delays that agency
 * only, and no agency can aim more than that at a host.
 */
export async function fetchMedia(
  items: readonly MediaItem[],
  owner: { environment: Environment; agencyId: string },
  context: WorkContext,
): Promise<MediaOutcome[]> {
  const { config } = context;
  const downloader: Downloader = {
    outbound: sharedOutbound(config, { ...addressPolicy(config, owner.environment), userAgent: 'immogate-media/1.0' }),
    hosts: sharedHostLimits(config, config.mediaDownloadsPerHost),
    tenant: `${owner.environment}/${owner.agencyId}`,
    publicUrl: config.publicUrl,
    signal: context.signal,
  };
  return inParallel(items, DOWNLOADS_AT_ONCE, async (item) => ({ url: item.url, ...(await download(downloader, item)) }));
}

/**
 * The mediaStatuses of a revision, in the order of its media array: CREATED for a URL this
 * revision downloaded, UPDATED for one kept from an earlier revision that had been downloaded,
 * the failure otherwise, with its `reason` (an immogate extension; the contract allows extra
 * members there): a user must tell an offline CDN from an address the SSRF policy refused.
 * `known` must hold this revision's downloads already.
 */
export function mediaStatuses(wanted: readonly MediaItem[], known: readonly KnownMedia[], revision: number): MediaStatusItem[] {
  const byUrl = new Map(known.map((row) => [row.url, row]));
  return wanted.map((item) => {
    const row = byUrl.get(item.url);
    if (!row) throw new Error(`media ${item.url} is not among the known media of revision ${revision}`);
    if (row.fetch_status === null) throw new Error(`media ${item.url} of revision ${revision} was not downloaded`);
    const keptFromEarlier = row.fetched_revision !== revision;
    const status = row.fetch_status === 'CREATED' && keptFromEarlier ? 'UPDATED' : row.fetch_status;
    return row.fetch_error === null ? { url: item.url, status } : { url: item.url, status, reason: row.fetch_error };
  });
}

/**
 * Six media fetched one after the other made the time to a terminal status six downloads long;
 * a few at once keep it near the slowest one without opening a connection per media.
 */
const DOWNLOADS_AT_ONCE = 4;

/** `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  // One iterator shared by the lanes: each takes the next item when it is free.
  const queue = items.entries();
  const lane = async (): Promise<void> => {
    for (const [index, item] of queue) results[index] = await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
