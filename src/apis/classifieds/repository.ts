import type pg from 'pg';
import type { Statement } from '../../platform/db/pool.js';
import { recordStatuses, statusInput } from './statuses.js';

/**
 * The statements of the classifieds tables. The request-path ones run inside withTenant or
 * tenantTransaction, so row-level security already confines them to the caller's environment
 * and agency; the processing ones run as the owner, for every agency.
 *
 * A revision's payload is stored once: the latest POST or PUT of a classified has none of its
 * own (NULL) and reads the classified's, which is the same; a PUT that replaces the classified's
 * payload first gives that revision its copy. A payload so costs one write instead of two (a
 * third of a POST's WAL, measured).
 */

export interface MediaOwner {
  url: string;
  media_id: string;
  classified_id: string;
}

/** One classified to create, as the create statement reads it (jsonb_to_recordset). */
export interface NewClassified {
  n: number;
  id: string;
  offerer_estate_id: string;
  payload: unknown;
}

/** Per classified of a create: created, or what it collided with. */
export interface CreateOutcome {
  n: number;
  created: boolean;
  taken_by: string | null;
  media_url: string | null;
  media_id: string | null;
  media_owner: string | null;
}

/**
 * Creates classifieds of one tenant, each with its first revision, media URLs, processing queue
 * row, RECEIVED status and status webhooks: one statement for any number of them. A duplicate (an
 * offererEstateId of a live classified, a media URL of another classified) is refused without
 * being written, not even as an aborted row: media URLs are looked up first, offererEstateIds by
 * the unique index itself (ON CONFLICT DO NOTHING checks it before inserting). The caller sends
 * no two classifieds that collide with each other in one statement. $1 environment, $2 agency,
 * $3 the classifieds (NewClassified[]), $4 their RECEIVED statuses (statusesJson, one per
 * classified, in the same order). Per classified: created, or what it collided with; neither
 * means a concurrent write took its offererEstateId first (not visible to this statement).
 */
export function createClassifieds(environment: string, agencyId: string, classifieds: string, received: string): Statement {
  return {
    name: 'caas.create_classifieds',
    text: `
    WITH input AS (
      SELECT * FROM jsonb_to_recordset($3::jsonb) AS i (n integer, id uuid, offerer_estate_id text, payload jsonb)),
    urls AS (
      SELECT i.n, i.id, m.media ->> 'url' AS url, m.position
        FROM input i, jsonb_array_elements(coalesce(i.payload -> 'media', '[]')) WITH ORDINALITY AS m (media, position)),
    -- Each URL looked up by its own index probe (LATERAL ... LIMIT 1): estimating the rows of the
    -- JSON input at its default of a hundred, the planner otherwise hashes the whole media table.
    taken_media AS (
      SELECT DISTINCT ON (u.n) u.n, m.url, m.media_id, m.classified_id
        FROM urls u CROSS JOIN LATERAL (
               SELECT m.url, m.media_id, m.classified_id FROM classified_media m
                WHERE m.url = u.url AND m.environment = $1::text AND m.agency_id = $2::text
                LIMIT 1) m
       ORDER BY u.n, u.position),
    -- Not a lookup but the arbiter index: a probe planned while the table was small kept scanning
    -- the agency's listing index (same leading columns under row-level security) as it grew.
    new_classifieds AS (
      INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload)
      SELECT id, $1::text, $2::text, offerer_estate_id, 1, payload FROM input i
       WHERE NOT EXISTS (SELECT 1 FROM taken_media t WHERE t.n = i.n)
       ORDER BY n
      ON CONFLICT (offerer_estate_id, environment, agency_id) WHERE deleted_at IS NULL DO NOTHING
      RETURNING id),
    accepted AS MATERIALIZED (SELECT i.* FROM input i JOIN new_classifieds c ON c.id = i.id),
    refused AS MATERIALIZED (
      SELECT i.n, i.offerer_estate_id FROM input i
       WHERE NOT EXISTS (SELECT 1 FROM accepted a WHERE a.n = i.n) AND NOT EXISTS (SELECT 1 FROM taken_media t WHERE t.n = i.n)),
    taken_estate AS (
      SELECT r.n, c.id AS classified_id
        FROM refused r CROSS JOIN LATERAL (
               SELECT c.id FROM classifieds c
                WHERE c.offerer_estate_id = r.offerer_estate_id AND c.environment = $1::text AND c.agency_id = $2::text AND c.deleted_at IS NULL
                LIMIT 1) c),
    new_revisions AS (
      INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation)
      SELECT id, 1, $1::text, $2::text, 'POST' FROM accepted),
    new_media AS (
      INSERT INTO classified_media (classified_id, url, environment, agency_id, media_id)
      SELECT u.id, u.url, $1::text, $2::text, gen_random_uuid() FROM urls u JOIN accepted a ON a.n = u.n),
    queued AS (
      INSERT INTO caas_processing_queue (classified_id, environment, agency_id) SELECT id, $1::text, $2::text FROM accepted),
    ${statusInput('all_received', '$4')},
    received AS (SELECT r.* FROM all_received r JOIN accepted a ON a.id = r.classified_id),
    ${recordStatuses('received')}
    SELECT i.n, EXISTS (SELECT 1 FROM accepted a WHERE a.n = i.n) AS created,
           te.classified_id AS taken_by, tm.url AS media_url, tm.media_id, tm.classified_id AS media_owner
      FROM input i LEFT JOIN taken_estate te ON te.n = i.n LEFT JOIN taken_media tm ON tm.n = i.n
     ORDER BY i.n`,
    values: [environment, agencyId, classifieds, received],
  };
}

export interface CurrentRow {
  revision: number;
  /** Whether the stored payload equals the one asked about (jsonb equality: the order of members does not matter). */
  unchanged: boolean | null;
  delete_requested_at: Date | null;
  portals: string[];
  /** A live classified of the offerer, other than this one, with the offererEstateId asked about. */
  taken_by: string | null;
  /** The first of the media URLs asked about that another classified of the offerer has. */
  media_owner: MediaOwner | null;
}

/**
 * A live classified (not yet DELETED), locked for a write, with what a new payload (JSON text,
 * or null for a DELETE) would collide with: another live classified with its offererEstateId,
 * another classified's media URL.
 */
export async function lockCurrent(
  client: pg.ClientBase,
  id: string,
  payload: string | null,
  offererEstateId: string | null,
  urls: readonly string[],
): Promise<CurrentRow | undefined> {
  // Unnamed, so planned with the stats of the moment: a plan kept from when the table was small
  // would look the offererEstateId up through the agency's listing index (see createClassifieds).
  const { rows } = await client.query<CurrentRow>({
    text: `SELECT c.revision, c.payload = $4::jsonb AS unchanged, c.delete_requested_at, ARRAY(SELECT jsonb_array_elements_text(c.payload -> 'portals')) AS portals,
                  (SELECT t.id FROM classifieds t WHERE t.offerer_estate_id = $2 AND t.id <> c.id AND t.deleted_at IS NULL) AS taken_by,
                  (SELECT json_build_object('url', m.url, 'media_id', m.media_id, 'classified_id', m.classified_id)
                     FROM classified_media m WHERE m.url = ANY ($3::text[]) AND m.classified_id <> c.id
                    ORDER BY array_position($3::text[], m.url) LIMIT 1) AS media_owner
             FROM classifieds c WHERE c.id = $1 AND c.deleted_at IS NULL
              FOR UPDATE OF c`,
    values: [id, offererEstateId, urls, payload],
  });
  return rows[0];
}

/** The live classified with this offererEstateId (explaining a duplicate found by its unique index). */
export async function findByOffererEstateId(client: pg.ClientBase, offererEstateId: string): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM classifieds WHERE offerer_estate_id = $1 AND deleted_at IS NULL', [
    offererEstateId,
  ]);
  return rows[0]?.id;
}

/**
 * The first of `urls` registered for another classified of the offerer (explaining a duplicate
 * found by the unique index). A plain `url = ANY(...)` lets the (url, environment, agency_id)
 * index find each URL directly; the body's order is restored here.
 */
export async function findMediaOfOthers(client: pg.ClientBase, urls: string[], classifiedId: string): Promise<MediaOwner | undefined> {
  if (urls.length === 0) return undefined;
  const { rows } = await client.query<MediaOwner>(
    'SELECT url, media_id, classified_id FROM classified_media WHERE url = ANY($1::text[]) AND classified_id <> $2',
    [urls, classifiedId],
  );
  const owners = new Map(rows.map((row) => [row.url, row]));
  return urls.map((url) => owners.get(url)).find((owner) => owner !== undefined);
}

/**
 * A PUT with a new payload: the classified, its revision, its media URLs (those that went away
 * are dropped with their download outcome, new ones get a mediaId, kept ones keep theirs and are
 * not fetched again), the processing queue (a row may be there already, for an earlier revision
 * not processed yet) and the RECEIVED status with its webhooks. The revision whose payload was
 * the classified's until now gets its copy (see above). $8 statuses (statusesJson).
 */
export function updateClassified(row: {
  id: string;
  environment: string;
  agencyId: string;
  revision: number;
  offererEstateId: string;
  payload: string;
  urls: readonly string[];
  received: string;
}): Statement {
  return {
    name: 'caas.update_classified',
    text: `
    WITH updated AS (
      UPDATE classifieds SET revision = $4, offerer_estate_id = $5, payload = $6::jsonb, updated_at = now() WHERE id = $1),
    -- Both parts see the classified as it was before this statement: its payload until now.
    kept AS (
      UPDATE classified_revisions r SET payload = c.payload FROM classifieds c
       WHERE c.id = $1 AND r.classified_id = $1 AND r.payload IS NULL AND r.operation <> 'DELETE' AND NOT r.unchanged),
    new_revision AS (
      INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation) VALUES ($1, $4, $2, $3, 'PUT')),
    gone_media AS (
      DELETE FROM classified_media WHERE classified_id = $1 AND NOT (url = ANY ($7::text[]))),
    new_media AS (
      INSERT INTO classified_media (classified_id, url, environment, agency_id, media_id)
      SELECT $1, url, $2, $3, gen_random_uuid() FROM unnest($7::text[]) AS url
      ON CONFLICT (classified_id, url) DO NOTHING),
    queued AS (
      INSERT INTO caas_processing_queue (classified_id, environment, agency_id) VALUES ($1, $2, $3) ON CONFLICT (classified_id) DO NOTHING),
    ${statusInput('received', '$8')},
    ${recordStatuses('received')}
    SELECT 1`,
    values: [row.id, row.environment, row.agencyId, row.revision, row.offererEstateId, row.payload, row.urls, row.received],
  };
}

/**
 * A PUT equal to the current payload: acknowledged as a revision that needs no processing, with
 * its statuses (RECEIVED, then UPDATED) recorded, and their webhooks scheduled, at once.
 */
export function recordUnchanged(row: { id: string; environment: string; agencyId: string; revision: number; statuses: string }): Statement {
  return {
    name: 'caas.record_unchanged',
    text: `
    WITH bumped AS (UPDATE classifieds SET revision = $4, updated_at = now() WHERE id = $1),
    new_revision AS (
      INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation, payload, unchanged, processed_at)
      VALUES ($1, $4, $2, $3, 'PUT', NULL, true, now())),
    ${statusInput('recorded', '$5')},
    ${recordStatuses('recorded')}
    SELECT 1`,
    values: [row.id, row.environment, row.agencyId, row.revision, row.statuses],
  };
}

/** A DELETE: the classified still reads until processing records DELETED. */
export function requestDelete(row: { id: string; environment: string; agencyId: string; revision: number; received: string }): Statement {
  return {
    name: 'caas.request_delete',
    text: `
    WITH marked AS (UPDATE classifieds SET revision = $4, delete_requested_at = now(), updated_at = now() WHERE id = $1),
    new_revision AS (
      INSERT INTO classified_revisions (classified_id, revision, environment, agency_id, operation, payload) VALUES ($1, $4, $2, $3, 'DELETE', NULL)),
    queued AS (
      INSERT INTO caas_processing_queue (classified_id, environment, agency_id) VALUES ($1, $2, $3) ON CONFLICT (classified_id) DO NOTHING),
    ${statusInput('received', '$5')},
    ${recordStatuses('received')}
    SELECT 1`,
    values: [row.id, row.environment, row.agencyId, row.revision, row.received],
  };
}
