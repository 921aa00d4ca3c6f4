import type pg from 'pg';
import { jsonb, sql, Sql } from '../../platform/db/sql.js';

/**
 * The classifieds tables. Every query runs inside withTenant or tenantBatch, so row-level
 * security already confines it to the caller's environment and agency; the WHERE clauses below
 * only name the row wanted. The writes are statements (Sql) so that a write can send all of them
 * in one round trip.
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
 * `url = ANY(...)` lets the (url, environment, agency_id) index find each URL directly, whatever
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

export function insertClassified(row: {
  id: string;
  environment: string;
  agencyId: string;
  offererEstateId: string;
  payload: Record<string, unknown>;
  payloadHash: string;
}): Sql {
  return sql`INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload, payload_hash)
     VALUES (${row.id}, ${row.environment}, ${row.agencyId}, ${row.offererEstateId}, 1, ${jsonb(row.payload)}, ${row.payloadHash})`;
}

export function updateClassified(row: { id: string; revision: number; offererEstateId: string; payload: Record<string, unknown>; payloadHash: string }): Sql {
  return sql`UPDATE classifieds SET revision = ${row.revision}, offerer_estate_id = ${row.offererEstateId}, payload = ${jsonb(row.payload)},
                    payload_hash = ${row.payloadHash}, updated_at = now()
      WHERE id = ${row.id}`;
}

export function markDeleteRequested(id: string, revision: number): Sql {
  return sql`UPDATE classifieds SET revision = ${revision}, delete_requested_at = now(), updated_at = now() WHERE id = ${id}`;
}

export function bumpRevision(id: string, revision: number): Sql {
  return sql`UPDATE classifieds SET revision = ${revision}, updated_at = now() WHERE id = ${id}`;
}

export function insertRevision(revision: NewRevision): Sql {
  const unchanged = revision.unchanged ?? false;
  return sql`INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation, payload, unchanged, processed_at)
     VALUES (${revision.id}, ${revision.revision}, ${revision.environment}, ${revision.agencyId}, ${revision.operation},
             ${revision.payload === null ? null : jsonb(revision.payload)}, ${unchanged}, ${unchanged ? new Sql('now()') : null})`;
}

/**
 * Makes the registered media URLs of a classified those of its newest revision: URLs that went
 * away are dropped (their download outcome with them), new ones are added with a new mediaId,
 * and URLs that stay keep their mediaId and outcome, so they are not fetched again.
 */
export function replaceMediaUrls(classified: { id: string; environment: string; agencyId: string }, urls: string[]): Sql {
  return sql`WITH gone AS (DELETE FROM classified_media WHERE classified_id = ${classified.id} AND NOT (url = ANY(${urls}::text[])))
     INSERT INTO classified_media (classified_id, url, environment, agency_id, media_id)
     SELECT ${classified.id}, url, ${classified.environment}, ${classified.agencyId}, gen_random_uuid() FROM unnest(${urls}::text[]) AS url
     ON CONFLICT (classified_id, url) DO NOTHING`;
}
