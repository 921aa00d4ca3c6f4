/*
 * The listing import API v1: listings by externalListingId (the offererEstateId they were created
 * with), the list of them, the API's health, and media uploads (a presigned URL asked for, then the
 * bytes PUT there, without the bearer token: the URL carries its own authorisation).
 */
import type { Client } from 'openapi-fetch';
import { ImmogateError } from './errors.js';
import type { paths } from './generated/listings.js';
import { Paged } from './paging.js';
import { type Transport, type WriteOptions, writeHeaders } from './transport.js';

export type ListingPaths = paths;
/** A listing as POST and PUT take it. */
export type ListingRequest = paths['/listings']['post']['requestBody']['content']['application/json'];
export type ListingCreated = paths['/listings']['post']['responses'][201]['content']['application/json'];
/** The 202 of PUT and DELETE. */
export type ListingAccepted = paths['/listings/{externalListingId}']['put']['responses'][202]['content']['application/json'];
/** A listing as GET answers it. */
export type Listing = paths['/listings/{externalListingId}']['get']['responses'][200]['content']['application/json']['listing'];
export type Health = paths['/health']['get']['responses'][200]['content']['application/json'];
export type NewMedia = paths['/medias']['post']['requestBody']['content']['application/json'];

/** A file to upload: its identifier for listings to reference, its name (whose extension gives its type), its bytes. */
export interface MediaFile extends NewMedia {
  data: Uint8Array | ArrayBuffer | Blob;
  /** The Content-Type of the upload (default: the one the API gives the file name's extension). */
  contentType?: string;
}

/** The Content-Types the API takes, by the file name's extension (the upload must carry the one of its name). */
export const MEDIA_CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
});

/** The bytes as fetch takes them: a view of the same memory, unless it is shared memory, which fetch cannot send. */
function bodyOf(data: MediaFile['data']): Blob | ArrayBuffer | Uint8Array<ArrayBuffer> {
  if (data instanceof Blob || data instanceof ArrayBuffer) return data;
  return data.buffer instanceof ArrayBuffer ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
}

function missingBody(response: Response): ImmogateError {
  return new ImmogateError(`${response.url}: ${response.status} without a body`);
}

export class Listings {
  constructor(private readonly http: Client<paths>) {}

  /** POST /listings (201; warnings do not block). */
  async create(listing: ListingRequest, options: WriteOptions = {}): Promise<ListingCreated> {
    const { data, response } = await this.http.POST('/listings', { headers: writeHeaders(options), body: listing });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /** PUT /listings/{externalListingId} (202). */
  async update(externalListingId: string, listing: ListingRequest): Promise<ListingAccepted> {
    const { data, response } = await this.http.PUT('/listings/{externalListingId}', {
      params: { path: { externalListingId } },
      body: listing,
    });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /** DELETE /listings/{externalListingId} (202). */
  async delete(externalListingId: string): Promise<ListingAccepted> {
    const { data, response } = await this.http.DELETE('/listings/{externalListingId}', { params: { path: { externalListingId } } });
    if (data === undefined) throw missingBody(response);
    return data;
  }

  /** GET /listings/{externalListingId}: the listing. */
  async get(externalListingId: string): Promise<Listing> {
    const { data, response } = await this.http.GET('/listings/{externalListingId}', { params: { path: { externalListingId } } });
    if (data === undefined) throw missingBody(response);
    return data.listing;
  }

  /** GET /listings: the externalListingIds of the agency, oldest first, every page. */
  list(): Paged<string> {
    return new Paged(async (nextPageToken) => {
      const { data, response } = await this.http.GET('/listings', {
        params: { query: nextPageToken === undefined ? {} : { nextPageToken } },
      });
      if (data === undefined) throw missingBody(response);
      return { items: data.externalListingIds, next: data.nextPageToken ?? undefined };
    });
  }

  /** GET /health (no token needed, one is sent all the same); a failing component is a ProblemError 503 whose body is the health. */
  async health(): Promise<Health> {
    const { data, response } = await this.http.GET('/health');
    if (data === undefined) throw missingBody(response);
    return data;
  }
}

export class Medias {
  constructor(
    private readonly http: Client<paths>,
    private readonly transport: Transport,
  ) {}

  /**
   * POST /medias for a presigned URL, then PUT the bytes there (within the URL's 60 seconds, one
   * upload). A listing then references the media by its externalMediaId.
   */
  async upload(file: MediaFile): Promise<{ externalMediaId: string }> {
    const extension = /\.([A-Za-z0-9]+)$/.exec(file.fileName)?.[1]?.toLowerCase() ?? '';
    const contentType = file.contentType ?? MEDIA_CONTENT_TYPES[extension];
    if (contentType === undefined) {
      throw new TypeError(
        `${file.fileName}: no Content-Type for .${extension} (the API takes ${Object.keys(MEDIA_CONTENT_TYPES).join(', ')})`,
      );
    }
    const { data, response } = await this.http.POST('/medias', {
      body: { externalMediaId: file.externalMediaId, fileName: file.fileName },
    });
    if (data === undefined) throw missingBody(response);
    const upload = await this.transport.send(
      new Request(data.presignedURL, { method: 'PUT', headers: { 'content-type': contentType }, body: bodyOf(file.data) }),
    );
    await upload.arrayBuffer();
    return { externalMediaId: data.externalMediaId };
  }
}
