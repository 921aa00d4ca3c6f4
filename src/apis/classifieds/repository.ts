/*
 * All the SQL of the classifieds API, with the row types its statements answer.
 *
 * The request-path statements run inside withTenant, tenantTransaction or tenantRead, so row-level security
 * already confines them to the caller's environment and agency; the processing ones run as the
 * owner, for every agency.
 *
 * A revision's payload is stored once: the latest POST or PUT of a classified has none of its
 * own (NULL) and reads the classified's, which is the same; a PUT that replaces the classified's
 * payload first gives that revision its copy. A payload so costs one write instead of two (a
 * third of a POST's WAL, measured).
 */
import type pg from 'pg';
import type { Environment } from '../../platform/catalogue.js';
import { lockedInOrder } from '../../platform/db/locks.js';
import type { Statement } from '../../platform/db/pool.js';
import { onlyRow } from '../../platform/db/pool.js';
import { tenantRead, type Tenant, type TenantScope } from '../../platform/db/tenant.js';
import { deliveriesCte } from '../../platform/delivery/index.js';
import { busyArrays, fairPick, type FairQueue } from '../../platform/work/fairClaim.js';
import type { BacklogMeasure, QueueDepth } from '../../platform/work/stream.js';
import { sweep } from '../../platform/work/sweep.js';
import type { Classified } from './model/classified.js';
import { stageOf, type NewStatus, type Operation, type Stage, type Status, type StatusItem } from './model/statuses.js';
import { WEBHOOK_SOURCE } from './model/webhooks.js';

// ---- statuses: recorded with their webhooks ----

/** The columns of a status to record, as the statements below read them from JSON (jsonb_to_recordset). */
const STATUS_COLUMNS = `ord integer, classified_id uuid, environment text, agency_id text, revision integer, status text, sub_status text,
  sub_status_details text, message text, stage text, portals text[], media_statuses jsonb, received_at timestamptz`;

/** Statuses as the JSON parameter that statusInput() reads; their order is the order they are recorded in. */
function statusesJson(statuses: readonly NewStatus[]): string {
  return JSON.stringify(
    statuses.map((status, ord) => ({
      ord,
      classified_id: status.classifiedId,
      environment: status.environment,
      agency_id: status.agencyId,
      revision: status.revision,
      status: status.status,
      sub_status: status.subStatus ?? null,
      sub_status_details: status.subStatusDetails ?? null,
      message: status.message,
      stage: stageOf(status.status),
      portals: status.portals,
      media_statuses: status.mediaStatuses ?? null,
      received_at: status.receivedAt ?? null,
    })),
  );
}

/** SQL text of a CTE, `name`, with the statuses of the JSON parameter `param` (see statusesJson). */
function statusInput(name: string, param: string): string {
  return `${name} AS (SELECT * FROM jsonb_to_recordset(${param}::jsonb) AS i (${STATUS_COLUMNS}))`;
}

/**
 * SQL text of the CTEs that record the statuses of the CTE `source` (the columns of statusInput)
 * and schedule their status webhooks, in the statement of the write or the processing step they
 * belong to. A status is recorded once: one met again (a job run again after a crash) is left as
 * it is and sends nothing. Each is posted to every subscription of its offerer and environment
 * whose filter wants it (a filter on CREATED or UPDATED takes their _WITH_MEDIA_ERROR forms too).
 */
function recordStatuses(source: string): string {
  return `
  inserted_statuses AS (
    INSERT INTO classified_statuses AS s
           (status_id, classified_id, environment, agency_id, revision, status, sub_status, sub_status_details, message, stage, portals, media_statuses)
    SELECT gen_random_uuid(), classified_id, environment, agency_id, revision, status, sub_status, sub_status_details, message, stage, portals, media_statuses
      FROM ${source} ORDER BY ord
    ON CONFLICT (classified_id, revision, status) DO NOTHING
    RETURNING s),
  status_recipients AS (
    SELECT '${WEBHOOK_SOURCE}' AS source, (i.s).environment, (i.s).agency_id, w.subscription_id::text AS subscription_id,
           w.url || '/classifieds/' || (i.s).classified_id || '/statuses' AS url,
           immogate_caas_status_item(i.s, coalesce(src.received_at, now())) AS payload, w.secret, NULL::text AS secret_header,
           '{}'::jsonb AS headers, (i.s).status_id AS event_id
      FROM inserted_statuses i
      JOIN ${source} src ON src.classified_id = (i.s).classified_id AND src.revision = (i.s).revision AND src.status = (i.s).status
      JOIN caas_webhook_subscriptions w ON w.environment = (i.s).environment AND w.agency_id = (i.s).agency_id
     WHERE w.statuses IS NULL OR (i.s).status = ANY (w.statuses) OR regexp_replace((i.s).status, '_WITH_MEDIA_ERROR$', '') = ANY (w.statuses)),
  ${deliveriesCte('status_deliveries', 'status_recipients', 'message', true)}`;
}

/** Records statuses (in their order) and schedules their webhooks: what processing reached. */
export function recordStatusesStatement(statuses: readonly NewStatus[]): Statement {
  return {
    name: 'caas.record_statuses',
    text: `WITH ${statusInput('recorded', '$1')}, ${recordStatuses('recorded')} SELECT 1`,
    values: [statusesJson(statuses)],
  };
}

// ---- writes: POST, PUT, DELETE ----

export interface MediaOwner {
  url: string;
  media_id: string;
  classified_id: string;
}

/** One classified to create: its id, and its payload as the JSON text it came as (put in as it is, not serialised again). */
export interface NewClassified {
  id: string;
  offererEstateId: string;
  json: string;
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
 * $3 the classifieds (n, their index, id, offerer_estate_id, payload), $4 their RECEIVED
 * statuses (one per classified, in the same order). Per classified (createOutcomes): created, or
 * what it collided with; neither means a concurrent write took its offererEstateId first (not
 * visible to this statement).
 */
export function createClassifieds(
  environment: string,
  agencyId: string,
  classifieds: readonly NewClassified[],
  received: readonly NewStatus[],
): Statement {
  // The payloads' JSON is put in as it came, not serialised again.
  const input = classifieds.map(
    (classified, n) =>
      `{"n":${n},"id":"${classified.id}","offerer_estate_id":${JSON.stringify(classified.offererEstateId)},"payload":${classified.json}}`,
  );
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
      SELECT i.n, i.offerer_estate_id FROM input i WHERE NOT EXISTS (SELECT 1 FROM accepted a WHERE a.n = i.n)),
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
    values: [environment, agencyId, `[${input.join(',')}]`, statusesJson(received)],
  };
}

/** The outcomes of a createClassifieds statement, as it selects them. */
export function createOutcomes(result: pg.QueryResult): CreateOutcome[] {
  return result.rows;
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
  // By the primary key alone, deleted_at looked at after, for the reason READ_CLASSIFIED gives.
  const { rows } = await client.query<CurrentRow & { deleted: boolean }>({
    text: `SELECT c.revision, c.deleted_at IS NOT NULL AS deleted, c.payload = $4::jsonb AS unchanged, c.delete_requested_at, ARRAY(SELECT jsonb_array_elements_text(c.payload -> 'portals')) AS portals,
                  (SELECT t.id FROM classifieds t WHERE t.offerer_estate_id = $2 AND t.id <> c.id AND t.deleted_at IS NULL) AS taken_by,
                  (SELECT json_build_object('url', m.url, 'media_id', m.media_id, 'classified_id', m.classified_id)
                     FROM classified_media m WHERE m.url = ANY ($3::text[]) AND m.classified_id <> c.id
                    ORDER BY array_position($3::text[], m.url) LIMIT 1) AS media_owner
             FROM classifieds c WHERE c.id = $1
              FOR UPDATE OF c`,
    values: [id, offererEstateId, urls, payload],
  });
  const row = rows[0];
  if (row === undefined || row.deleted) return undefined;
  const { deleted: _, ...current } = row;
  return current;
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
 * the classified's until now gets its copy (see above).
 */
export function updateClassified(row: {
  id: string;
  environment: string;
  agencyId: string;
  revision: number;
  offererEstateId: string;
  payload: string;
  urls: readonly string[];
  received: NewStatus;
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
    values: [row.id, row.environment, row.agencyId, row.revision, row.offererEstateId, row.payload, row.urls, statusesJson([row.received])],
  };
}

/**
 * A PUT equal to the current payload: acknowledged as a revision that needs no processing, with
 * its statuses (RECEIVED, then UPDATED) recorded, and their webhooks scheduled, at once.
 */
export function recordUnchanged(row: {
  id: string;
  environment: string;
  agencyId: string;
  revision: number;
  statuses: readonly NewStatus[];
}): Statement {
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
    values: [row.id, row.environment, row.agencyId, row.revision, statusesJson(row.statuses)],
  };
}

/** A DELETE: the classified still reads until processing records DELETED. */
export function requestDelete(row: {
  id: string;
  environment: string;
  agencyId: string;
  revision: number;
  received: NewStatus;
}): Statement {
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
    values: [row.id, row.environment, row.agencyId, row.revision, statusesJson([row.received])],
  };
}

// ---- reads ----

/** A row of a keyset page: its `seq` (where the next page starts below) and its item. */
export interface PageRow<T> {
  seq: number;
  item: T;
}

/**
 * Live classifieds (a DELETE not yet processed still lists), newest first, below the seq `before`
 * if given, each as JSON text of its payload plus `classifiedId`: the payloads are large and stored
 * as JSON already, so the caller splices the database's text into the response instead of parsing
 * and re-serialising them.
 */
export async function listClassifieds(
  pool: pg.Pool,
  tenant: Tenant,
  query: { before: number | undefined; offererEstateId: string | undefined; rows: number },
): Promise<PageRow<string>[]> {
  // NULL leaves a condition out. Unnamed, so planned with the values at hand: the planner drops
  // the conditions left out and walks the index from the cursor (a generic plan could not).
  const [result] = await tenantRead(pool, tenant, [
    {
      text: `SELECT seq, (payload || jsonb_build_object('classifiedId', id))::text AS item
               FROM classifieds
              WHERE deleted_at IS NULL AND ($1::bigint IS NULL OR seq < $1) AND ($2::text IS NULL OR offerer_estate_id = $2)
              ORDER BY seq DESC LIMIT $3`,
      values: [query.before ?? null, query.offererEstateId ?? null, query.rows],
    },
  ]);
  return result.rows;
}

/**
 * By its primary key alone, with `deleted_at` looked at after: with `deleted_at IS NULL` in the
 * WHERE clause, the agency's partial listing index (classifieds_listing) matches the clause and
 * row-level security's agency, and with statistics taken while the table was small the planner
 * chose it, then walked every classified of the agency for each read (after an agency's bulk
 * import, `GET /classifieds/{id}` answered in 2.5 s until autovacuum's next ANALYZE: seen in the
 * bench, test/classifieds/plans.test.ts shows the plans). Nothing but the primary key can serve
 * `id = $1` alone.
 */
export const READ_CLASSIFIED = `SELECT revision, deleted_at IS NOT NULL AS deleted,
                    CASE WHEN deleted_at IS NOT NULL OR '"' || revision || '"' = ANY($2::text[]) OR '*' = ANY($2::text[]) THEN NULL
                         ELSE (payload || jsonb_build_object('classifiedId', id))::text END AS item
               FROM classifieds WHERE id = $1`;

/** A live classified's revision, and its JSON text (payload plus `classifiedId`) unless the revision is one of `ifNoneMatch`'s tags (or `*`). */
export async function readClassified(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  ifNoneMatch: readonly string[],
): Promise<{ revision: number; item: string | null } | undefined> {
  const [result] = await tenantRead(pool, tenant, [{ name: 'caas.read_classified', text: READ_CLASSIFIED, values: [id, ifNoneMatch] }]);
  const row = result.rows[0] as { revision: number; deleted: boolean; item: string | null } | undefined;
  return row === undefined || row.deleted ? undefined : { revision: row.revision, item: row.item };
}

/**
 * A classified's statuses, newest first, below the seq `before` if given, with whether the
 * classified exists (a DELETED one does: its statuses stay readable).
 */
export async function listStatuses(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  query: {
    before: number | undefined;
    statuses: readonly string[] | undefined;
    portals: readonly string[] | undefined;
    latest: boolean;
    rows: number;
  },
): Promise<{ rows: PageRow<StatusItem>[]; known: boolean }> {
  const [page, known] = await tenantRead(pool, tenant, [
    {
      // NULL leaves a condition out; unnamed for the same reason as listClassifieds' statement.
      text: `SELECT s.seq, immogate_caas_status_item(s, r.received_at) AS item
               FROM classified_statuses s JOIN classified_revisions r ON r.classified_id = s.classified_id AND r.revision = s.revision
              WHERE s.classified_id = $1
                AND ($2::bigint IS NULL OR s.seq < $2)
                AND ($3::text[] IS NULL OR s.status = ANY($3))
                AND ($4::text[] IS NULL OR s.portals && $4)
                AND (NOT $5 OR s.revision = (SELECT c.revision FROM classifieds c WHERE c.id = $1))
              ORDER BY s.seq DESC LIMIT $6`,
      values: [id, query.before ?? null, query.statuses ?? null, query.portals ?? null, query.latest, query.rows],
    },
    // An empty page is an unknown classified (404) or filters that matched nothing.
    { name: 'caas.classified_exists', text: 'SELECT 1 FROM classifieds WHERE id = $1', values: [id] },
  ]);
  return { rows: page.rows, known: known.rowCount !== 0 };
}

// ---- the console's reads ----

export interface SummaryRow {
  seq: number;
  classified_id: string;
  offerer_estate_id: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
  deleted: boolean;
  status: Status | null;
  sub_status: string | null;
  stage: Stage | null;
  status_date: Date | null;
}

/**
 * Classifieds with their latest status, newest first, below the seq `before` if given: all of
 * them, deleted ones too (their statuses say what happened). NULL leaves a condition out.
 */
export async function listSummaries(
  pool: pg.Pool,
  tenant: Tenant,
  query: { before: number | undefined; offererEstateId: string | undefined; status: string | undefined; rows: number },
): Promise<SummaryRow[]> {
  const [result] = await tenantRead(pool, tenant, [
    {
      text: `SELECT c.seq, c.id AS classified_id, c.offerer_estate_id, c.revision, c.created_at, c.updated_at,
                    c.deleted_at IS NOT NULL AS deleted, s.status, s.sub_status, s.stage, s.status_date
               FROM classifieds c
               LEFT JOIN LATERAL (SELECT status, sub_status, stage, status_date FROM classified_statuses
                                   WHERE classified_id = c.id ORDER BY seq DESC LIMIT 1) s ON true
              WHERE ($1::bigint IS NULL OR c.seq < $1) AND ($2::text IS NULL OR c.offerer_estate_id = $2)
                AND ($3::text IS NULL OR s.status = $3)
              ORDER BY c.seq DESC LIMIT $4`,
      values: [query.before ?? null, query.offererEstateId ?? null, query.status ?? null, query.rows],
    },
  ]);
  return result.rows;
}

export interface RevisionRow {
  revision: number;
  operation: Operation;
  received_at: Date;
  processed_at: Date | null;
  unchanged: boolean;
}

/**
 * A classified's revisions, newest first, below `before` if given, and whether the classified
 * is the tenant's at all (an empty page of an unknown one is a 404).
 */
export async function listRevisions(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  query: { before: number | undefined; rows: number },
): Promise<{ rows: RevisionRow[]; known: boolean }> {
  const [page, known] = await tenantRead(pool, tenant, [
    {
      text: `SELECT revision, operation, received_at, processed_at, unchanged FROM classified_revisions
              WHERE classified_id = $1 AND ($2::integer IS NULL OR revision < $2) ORDER BY revision DESC LIMIT $3`,
      values: [id, query.before ?? null, query.rows],
    },
    { name: 'caas.classified_exists', text: 'SELECT 1 FROM classifieds WHERE id = $1', values: [id] },
  ]);
  return { rows: page.rows, known: known.rowCount !== 0 };
}

/**
 * Revisions of a classified with the payload each sent (see the head of this file for where it is
 * stored): a DELETE has none; an unchanged PUT sent the payload of the revision it repeated.
 */
export async function readRevisions(
  pool: pg.Pool,
  tenant: Tenant,
  id: string,
  revisions: readonly number[],
): Promise<(RevisionRow & { payload: Classified | null })[]> {
  const [result] = await tenantRead(pool, tenant, [
    {
      text: `SELECT r.revision, r.operation, r.received_at, r.processed_at, r.unchanged,
                    CASE WHEN r.operation = 'DELETE' THEN NULL ELSE coalesce(
                      r.payload,
                      (SELECT p.payload FROM classified_revisions p
                        WHERE r.unchanged AND p.classified_id = r.classified_id AND p.revision < r.revision
                          AND NOT p.unchanged AND p.operation <> 'DELETE'
                        ORDER BY p.revision DESC LIMIT 1),
                      c.payload) END AS payload
               FROM classified_revisions r JOIN classifieds c ON c.id = r.classified_id
              WHERE r.classified_id = $1 AND r.revision = ANY ($2::integer[])`,
      values: [id, revisions],
    },
  ]);
  return result.rows;
}

/** The client's status webhook subscription in the tenant, without its secret. */
export async function readSubscription(
  pool: pg.Pool,
  tenant: Tenant,
): Promise<{ url: string; statuses: Status[] | null; created_at: Date; updated_at: Date } | undefined> {
  const [result] = await tenantRead(pool, tenant, [
    {
      text: 'SELECT url, statuses, created_at, updated_at FROM caas_webhook_subscriptions WHERE client_id = $1',
      values: [tenant.clientId],
    },
  ]);
  return result.rows[0];
}

/**
 * A test event: `status` (a status item) posted to the client's subscription as a status of
 * `classifiedId` would be, signed with its secret, marked as a test. Its delivery's id, or none
 * without a subscription. Run inside withTenant.
 */
export async function sendTestStatus(
  client: pg.ClientBase,
  tenant: Tenant,
  classifiedId: string,
  status: object,
): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>(
    `WITH test_recipients AS (
       SELECT '${WEBHOOK_SOURCE}' AS source, w.environment, w.agency_id, w.subscription_id::text AS subscription_id,
              w.url || '/classifieds/' || $2 || '/statuses' AS url, $3::jsonb AS payload, w.secret,
              NULL::text AS secret_header, '{}'::jsonb AS headers
         FROM caas_webhook_subscriptions w WHERE w.client_id = $1),
     ${deliveriesCte('test_delivery', 'test_recipients', 'test')}
     SELECT id FROM test_delivery`,
    [tenant.clientId, classifiedId, JSON.stringify(status)],
  );
  return rows[0]?.id;
}

// ---- webhook subscriptions ----

/**
 * Creates or replaces the client's subscription (one per client, offerer and environment): a
 * replacement keeps its subscription_id, and its secret unless `secretGiven`.
 */
export async function upsertSubscription(
  client: pg.ClientBase,
  tenant: Tenant,
  subscription: { subscriptionId: string; url: string; statuses: string[] | null; sealedSecret: string; secretGiven: boolean },
): Promise<{ subscription_id: string; secret: string }> {
  const { rows } = await client.query<{ subscription_id: string; secret: string }>(
    `INSERT INTO caas_webhook_subscriptions (environment, agency_id, client_id, subscription_id, url, statuses, secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (environment, agency_id, client_id) DO UPDATE
       SET url = EXCLUDED.url, statuses = EXCLUDED.statuses,
           secret = CASE WHEN $8 THEN EXCLUDED.secret ELSE caas_webhook_subscriptions.secret END, updated_at = now()
     RETURNING subscription_id, secret`,
    [
      tenant.environment,
      tenant.agencyId,
      tenant.clientId,
      subscription.subscriptionId,
      subscription.url,
      subscription.statuses,
      subscription.sealedSecret,
      subscription.secretGiven,
    ],
  );
  return onlyRow(rows);
}

/** The undelivered statuses of a subscription, each re-aimed at its classified's path under `url` (as recordStatuses builds it). */
export async function retargetStatusDeliveries(client: pg.ClientBase, subscriptionId: string, url: string): Promise<void> {
  await client.query(
    `WITH ${lockedInOrder('locked', 'webhook_deliveries', "source = $1 AND subscription_id = $2 AND state IN ('PENDING', 'FAILED')")}
     UPDATE webhook_deliveries d SET url = $3 || '/classifieds/' || (d.payload ->> 'classifiedId') || '/statuses'
       FROM locked WHERE d.id = locked.id AND d.state IN ('PENDING', 'FAILED')`,
    [WEBHOOK_SOURCE, subscriptionId, url],
  );
}

/** Removes the client's subscription (row-level security confines it to the tenant's); its id, if it had one. */
export async function deleteSubscription(client: pg.ClientBase, clientId: string): Promise<string | undefined> {
  const { rows } = await client.query<{ subscription_id: string }>(
    'DELETE FROM caas_webhook_subscriptions WHERE client_id = $1 RETURNING subscription_id',
    [clientId],
  );
  return rows[0]?.subscription_id;
}

/** The subscription's row, locked until the transaction ends, as its removal would (as the owner role). */
export async function lockSubscription(client: pg.ClientBase, subscriptionId: string): Promise<void> {
  await client.query('SELECT 1 FROM caas_webhook_subscriptions WHERE subscription_id::text = $1 FOR UPDATE', [subscriptionId]);
}

export async function removeSubscription(client: pg.ClientBase, subscriptionId: string): Promise<void> {
  await client.query('DELETE FROM caas_webhook_subscriptions WHERE subscription_id = $1', [subscriptionId]);
}

/**
 * Those of `subscriptionIds` that exist. Only a deletion matters, so FOR KEY SHARE: a PUT
 * replacing url or secret meanwhile is not held up, and re-aims the queued deliveries whenever it
 * commits.
 */
export async function existingSubscriptions(client: pg.ClientBase, subscriptionIds: readonly string[]): Promise<string[]> {
  const { rows } = await client.query<{ subscription_id: string }>(
    'SELECT subscription_id FROM caas_webhook_subscriptions WHERE subscription_id::text = ANY($1::text[]) ORDER BY subscription_id FOR KEY SHARE',
    [subscriptionIds],
  );
  return rows.map((row) => row.subscription_id);
}

// ---- processing: the queue of classifieds with revisions to process ----

/** A revision acknowledged and not processed yet; a DELETE has no payload, a POST or PUT has its own. */
export type PendingRevision = {
  revision: number;
  environment: Environment;
  agency_id: string;
  /** As PostgreSQL wrote it (microseconds): it goes back into the statuses' creationDate. */
  received_at: string;
} & ({ operation: 'DELETE'; payload: null } | { operation: Exclude<Operation, 'DELETE'>; payload: Classified });

/** What a download found: CREATED, or why the media cannot be used. */
export type FetchStatus = 'CREATED' | 'DOWNLOADING_FAILED' | 'CREATING_FAILED';

/** A media URL registered for the classified (its latest revision's), with its download outcome if fetched. */
export interface KnownMedia {
  url: string;
  fetch_status: FetchStatus | null;
  fetch_error: string | null;
  fetched_revision: number | null;
}

/** A claimed classified with what it has to process. */
export interface ClaimedClassified {
  classified_id: string;
  attempts: number;
  /** The worker's shares it counts against while processed: its agency's. */
  shares: string[];
  revisions: PendingRevision[];
  media: KnownMedia[];
  current_portals: string[];
}

/** The pending revisions of classifieds and their registered media, for the claim and for a second look. */
const PENDING_WORK = `
  SELECT c.classified_id, c.attempts,
         coalesce((SELECT json_agg(r ORDER BY r.revision) FROM (
                     -- The latest POST or PUT has no payload of its own: it is the classified's (see the top of this file).
                     SELECT r.revision, r.environment, r.agency_id, r.operation, r.received_at,
                            CASE WHEN r.operation = 'DELETE' THEN NULL
                                 ELSE coalesce(r.payload, (SELECT payload FROM classifieds WHERE id = c.classified_id)) END AS payload
                       FROM classified_revisions r
                      WHERE r.classified_id = c.classified_id AND r.processed_at IS NULL) r), '[]') AS revisions,
         coalesce((SELECT json_agg(m) FROM (
                     SELECT url, fetch_status, fetch_error, fetched_revision FROM classified_media WHERE classified_id = c.classified_id) m), '[]') AS media,
         ARRAY(SELECT jsonb_array_elements_text(payload -> 'portals') FROM classifieds WHERE id = c.classified_id) AS current_portals`;

/**
 * Classifieds are claimed by agency (a lane of the environment), at most the worker's share per
 * agency at once (fairClaim.ts): one agency's backlog, or its slow media host, holds that share
 * and no more of the worker's slots.
 */
const PROCESSING_QUEUE: FairQueue = {
  table: 'caas_processing_queue',
  id: 'classified_id',
  due: 'due_at',
  claimable: () => 'true',
  lane: ['environment', 'agency_id'],
  shares: [{ key: (q) => `'a:' || ${q}.environment || '/' || ${q}.agency_id`, cap: '$6' }],
  turns: 0,
};

/** Up to `limit` due classifieds, leased to `workerId` for `leaseSeconds`, with their work; `busy` and `perAgency` as fairPick takes them. */
export async function claimClassifieds(
  pool: pg.Pool,
  claim: { workerId: string; leaseSeconds: number; limit: number; busy: ReadonlyMap<string, number>; perAgency: number },
): Promise<ClaimedClassified[]> {
  const { rows } = await pool.query<ClaimedClassified>({
    name: 'caas.claim',
    text: `
    WITH RECURSIVE ${fairPick(PROCESSING_QUEUE, { limit: '$3', busyKeys: '$4', busyCounts: '$5' })},
    claimed AS (
      UPDATE caas_processing_queue q SET due_at = now() + make_interval(secs => $2), claimed_by = $1, attempts = q.attempts + 1
        FROM picked WHERE q.classified_id = picked.id
      RETURNING q.classified_id, q.attempts, picked.shares)
    ${PENDING_WORK}, c.shares FROM claimed c`,
    values: [claim.workerId, claim.leaseSeconds, claim.limit, ...busyArrays(claim.busy), claim.perAgency],
  });
  return rows;
}

/** The same, again, for a classified `workerId` still holds (revisions acknowledged while it worked). */
export async function reloadClaimed(pool: pg.Pool, classifiedId: string, workerId: string): Promise<ClaimedClassified | undefined> {
  const { rows } = await pool.query<ClaimedClassified>({
    name: 'caas.reload',
    text: `${PENDING_WORK}, ARRAY[${PROCESSING_QUEUE.shares[0].key('c')}] AS shares FROM caas_processing_queue c
            WHERE c.classified_id = $1 AND c.claimed_by = $2`,
    values: [classifiedId, workerId],
  });
  return rows[0];
}

/** In id order and never waiting (db/locks.ts): a claim whose row is held is renewed at the next round. */
export async function renewClaims(pool: pg.Pool, workerId: string, leaseSeconds: number, classifiedIds: readonly string[]): Promise<void> {
  await pool.query({
    name: 'caas.renew',
    text: `WITH ${lockedInOrder('locked', 'caas_processing_queue', 'classified_id = ANY($3::uuid[]) AND claimed_by = $1', { id: 'classified_id', skipLocked: true })}
           UPDATE caas_processing_queue q SET due_at = now() + make_interval(secs => $2) FROM locked WHERE q.classified_id = locked.id`,
    values: [workerId, leaseSeconds, classifiedIds],
  });
}

/** Gives a claimed classified back, due again in `delaySeconds`, with the error its run ended in (if any). */
export async function giveBack(
  pool: pg.Pool,
  classifiedId: string,
  workerId: string,
  delaySeconds: number,
  error: string | null,
): Promise<void> {
  await pool.query(
    `UPDATE caas_processing_queue SET due_at = now() + make_interval(secs => $3), claimed_by = NULL, last_error = $4
      WHERE classified_id = $1 AND claimed_by = $2`,
    [classifiedId, workerId, delaySeconds, error],
  );
}

export async function nextDue(pool: pg.Pool): Promise<Date | undefined> {
  const { rows } = await pool.query<{ at: Date | null }>({
    name: 'caas.next_due',
    text: 'SELECT min(due_at) AS at FROM caas_processing_queue WHERE due_at > now()',
  });
  return rows[0]?.at ?? undefined;
}

export async function queueDepth(pool: pg.Pool): Promise<QueueDepth> {
  const { rows } = await pool.query<QueueDepth>(
    `SELECT count(*) FILTER (WHERE due_at <= now()) AS ready,
            count(*) FILTER (WHERE due_at > now() AND claimed_by IS NULL) AS scheduled,
            count(*) FILTER (WHERE due_at > now() AND claimed_by IS NOT NULL) AS locked
       FROM caas_processing_queue`,
  );
  return onlyRow(rows);
}

/**
 * The agency's classifieds with revisions to process, and of those the ones due now and not taken
 * by a worker (one it holds is due at its lease's end), each counted up to its limit: both over the
 * queue's lanes index (environment, agency, due time).
 */
export async function agencyBacklog(pool: pg.Pool, scope: TenantScope, limits: BacklogMeasure): Promise<BacklogMeasure> {
  const { rows } = await pool.query<BacklogMeasure>({
    name: 'caas.agency_backlog',
    text: `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM caas_processing_queue WHERE environment = $1 AND agency_id = $2 LIMIT $3) queued) AS count,
                  (SELECT count(*)::int FROM (SELECT 1 FROM caas_processing_queue
                    WHERE environment = $1 AND agency_id = $2 AND due_at <= now() LIMIT $4) due) AS waiting`,
    values: [scope.environment, scope.agencyId, limits.count, limits.waiting],
  });
  return onlyRow(rows);
}

// ---- processing writes, each statement for a group of classifieds ----
//
// Every statement joining the JSON or arrays of a group with a large table also names its keys
// with `= ANY (...)`: the planner, estimating such input at a hundred rows, would otherwise scan
// the table; the array condition gives it the index.

/** Gone for reads and rules from now on; its offererEstateId and media URLs are free again. After lockClassifieds. */
export function markDeleted(classifiedIds: readonly string[]): Statement[] {
  return [
    { name: 'caas.mark_deleted', text: 'UPDATE classifieds SET deleted_at = now() WHERE id = ANY($1::uuid[])', values: [classifiedIds] },
    { name: 'caas.drop_media', text: 'DELETE FROM classified_media WHERE classified_id = ANY($1::uuid[])', values: [classifiedIds] },
  ];
}

/** What downloading one media of a revision found. */
export interface MediaOutcome {
  url: string;
  status: FetchStatus;
  contentType: string | null;
  sizeBytes: number | null;
  error: string | null;
}

/** Keeps the download outcomes on their classified_media rows. */
export function recordMedia(outcomes: readonly (MediaOutcome & { classifiedId: string; revision: number })[]): Statement {
  const json = JSON.stringify(
    outcomes.map((o) => ({
      classified_id: o.classifiedId,
      revision: o.revision,
      url: o.url,
      status: o.status,
      content_type: o.contentType,
      size_bytes: o.sizeBytes,
      error: o.error,
    })),
  );
  return {
    name: 'caas.record_media',
    text: `UPDATE classified_media m
              SET fetch_status = o.status, content_type = o.content_type, size_bytes = o.size_bytes, fetch_error = o.error,
                  fetched_at = now(), fetched_revision = o.revision
             FROM jsonb_to_recordset($1::jsonb) AS o (classified_id uuid, revision integer, url text, status text, content_type text, size_bytes bigint, error text)
            WHERE m.classified_id = ANY ($2::uuid[]) AND m.classified_id = o.classified_id AND m.url = o.url`,
    values: [json, [...new Set(outcomes.map((o) => o.classifiedId))]],
  };
}

/** Marks revisions processed: the n-th of `classifiedIds` with the n-th of `revisions`. */
export function markProcessed(classifiedIds: readonly string[], revisions: readonly number[]): Statement {
  return {
    name: 'caas.processed',
    text: `UPDATE classified_revisions r SET processed_at = now()
             FROM unnest($1::uuid[], $2::integer[]) AS p (classified_id, revision)
            WHERE r.classified_id = ANY ($1::uuid[]) AND r.classified_id = p.classified_id AND r.revision = p.revision`,
    values: [classifiedIds, revisions],
  };
}

/**
 * The classifieds' rows, locked in id order: the first statement of a processing write, before
 * their revisions, media, statuses and queue rows, as every API write locks its classified first
 * (lockCurrent) and then changes those (the lock order of platform/db/locks.ts). Locking them
 * later, a write that marked a revision processed could wait for a PUT holding the classified
 * and about to change that same revision.
 */
export function lockClassifieds(classifiedIds: readonly string[]): Statement {
  return {
    name: 'caas.lock_group',
    text: 'SELECT 1 FROM classifieds WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE',
    values: [classifiedIds],
  };
}

/**
 * Ends the work of classifieds with nothing left pending, each if its worker (the n-th of
 * `workers`) still holds it, under the rows' locks of lockClassifieds; finishedIds reads its result.
 */
export function finishWork(classifiedIds: readonly string[], workers: readonly string[]): Statement {
  return {
    name: 'caas.finish',
    text: `DELETE FROM caas_processing_queue q
             USING unnest($1::uuid[], $2::uuid[]) AS f (classified_id, worker)
            WHERE q.classified_id = ANY ($1::uuid[]) AND q.classified_id = f.classified_id AND q.claimed_by = f.worker
              AND NOT EXISTS (SELECT 1 FROM classified_revisions r WHERE r.classified_id = f.classified_id AND r.processed_at IS NULL)
           RETURNING q.classified_id`,
    values: [classifiedIds, workers],
  };
}

/** The classifieds whose work the finish statement of finishWork ended. */
export function finishedIds(result: pg.QueryResult | undefined): string[] {
  return (result?.rows ?? []).map((row: { classified_id: string }) => row.classified_id);
}

// ---- retention ----

/** Deletes, in batches, the classifieds DELETED more than `days` ago, with their statuses and revisions; how many went. */
export function removeExpiredDeleted(pool: pg.Pool, days: number, signal: AbortSignal): Promise<number> {
  return sweep(
    pool,
    `WITH batch AS MATERIALIZED (SELECT id FROM classifieds WHERE deleted_at < now() - make_interval(days => $2) LIMIT $1)
     DELETE FROM classifieds c USING batch WHERE c.id = batch.id`,
    [days],
    signal,
  );
}
