import type pg from 'pg';

/**
 * The classifieds tables. Every function runs on a client inside withTenant, so row-level
 * security already confines each query to the caller's environment and agency; the WHERE
 * clauses below only name the row wanted.
 */

export interface ClassifiedRow {
  id: string;
  offerer_estate_id: string;
  revision: number;
  payload: Record<string, unknown>;
  payload_hash: string;
  created_at: Date;
  delete_requested_at: Date | null;
}

/** A live classified (not yet DELETED), locked for a write when `forUpdate`. */
export async function findLive(client: pg.ClientBase, id: string, forUpdate = false): Promise<ClassifiedRow | undefined> {
  const { rows } = await client.query<ClassifiedRow>(
    `SELECT id, offerer_estate_id, revision, payload, payload_hash, created_at, delete_requested_at
       FROM classifieds WHERE id = $1 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

export async function findByOffererEstateId(client: pg.ClientBase, offererEstateId: string): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM classifieds WHERE offerer_estate_id = $1 AND deleted_at IS NULL',
    [offererEstateId],
  );
  return rows[0]?.id;
}

export interface MediaOwner {
  url: string;
  media_id: string;
  classified_id: string;
}

/**
 * The first of `urls` already registered for another classified of the offerer. A plain
 * `url = ANY(...)` lets the (environment, agency_id, url) index find each URL directly, whatever
 * the table statistics say (a join on unnest was planned as a scan of the agency's media while
 * the table grew fast); the body's order is restored here.
 */
export async function findMediaOfOthers(client: pg.ClientBase, urls: string[], classifiedId: string): Promise<MediaOwner | undefined> {
  if (urls.length === 0) return undefined;
  const { rows } = await client.query<MediaOwner>(
    'SELECT url, media_id, classified_id FROM classified_media WHERE url = ANY($1::text[]) AND classified_id <> $2',
    [urls, classifiedId],
  );
  if (rows.length === 0) return undefined;
  const owners = new Map(rows.map((row) => [row.url, row]));
  return urls.map((url) => owners.get(url)).find((owner) => owner !== undefined);
}

export interface NewRevision {
  id: string;
  environment: string;
  agencyId: string;
  revision: number;
  operation: 'POST' | 'PUT' | 'DELETE';
  payload: Record<string, unknown> | null;
  unchanged?: boolean;
}

export async function insertClassified(
  client: pg.ClientBase,
  row: { id: string; environment: string; agencyId: string; offererEstateId: string; payload: Record<string, unknown>; payloadHash: string },
): Promise<void> {
  await client.query(
    `INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload, payload_hash)
     VALUES ($1, $2, $3, $4, 1, $5, $6)`,
    [row.id, row.environment, row.agencyId, row.offererEstateId, row.payload, row.payloadHash],
  );
}

export async function updateClassified(
  client: pg.ClientBase,
  row: { id: string; revision: number; offererEstateId: string; payload: Record<string, unknown>; payloadHash: string },
): Promise<void> {
  await client.query(
    `UPDATE classifieds SET revision = $2, offerer_estate_id = $3, payload = $4, payload_hash = $5, updated_at = now()
      WHERE id = $1`,
    [row.id, row.revision, row.offererEstateId, row.payload, row.payloadHash],
  );
}

export async function markDeleteRequested(client: pg.ClientBase, id: string, revision: number): Promise<void> {
  await client.query('UPDATE classifieds SET revision = $2, delete_requested_at = now(), updated_at = now() WHERE id = $1', [id, revision]);
}

export async function bumpRevision(client: pg.ClientBase, id: string, revision: number): Promise<void> {
  await client.query('UPDATE classifieds SET revision = $2, updated_at = now() WHERE id = $1', [id, revision]);
}

export async function insertRevision(client: pg.ClientBase, revision: NewRevision): Promise<void> {
  await client.query(
    `INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation, payload, unchanged, processed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 THEN now() END)`,
    [revision.id, revision.revision, revision.environment, revision.agencyId, revision.operation, revision.payload, revision.unchanged ?? false],
  );
}

/**
 * Makes the registered media URLs of a classified those of its newest revision: URLs that went
 * away are dropped (their download outcome with them), new ones are added with a new mediaId,
 * and URLs that stay keep their mediaId and outcome, so they are not fetched again.
 */
export async function replaceMediaUrls(
  client: pg.ClientBase,
  classified: { id: string; environment: string; agencyId: string },
  urls: string[],
): Promise<void> {
  await client.query('DELETE FROM classified_media WHERE classified_id = $1 AND NOT (url = ANY($2::text[]))', [classified.id, urls]);
  if (urls.length === 0) return;
  await client.query(
    `INSERT INTO classified_media (classified_id, url, environment, agency_id, media_id)
     SELECT $1, url, $3, $4, gen_random_uuid() FROM unnest($2::text[]) AS url
     ON CONFLICT (classified_id, url) DO NOTHING`,
    [classified.id, urls, classified.environment, classified.agencyId],
  );
}
