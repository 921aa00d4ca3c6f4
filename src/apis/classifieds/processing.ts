import type { Config } from '../../config.js';
import { backoffSeconds, type QueueDepth, type WorkContext, type WorkStream } from '../../platform/work/stream.js';
import { fetchMedia, mediaStatuses, planMedia, type KnownMedia } from './media.js';
import { commitProcessing } from './outcomes.js';
import { applyRules, describeViolations, type Violation } from './rules.js';
import type { Classified } from './model/classified.js';
import { OUTCOMES, type NewStatus, type Operation } from './statuses.js';
import { onlyRow } from '../../platform/db/pool.js';

/**
 * Processing of acknowledged revisions. The processing queue holds one row per classified with
 * revisions to process; a worker claims a batch of them and processes each classified's pending
 * revisions in the order they were acknowledged: the checking step (CREATING, UPDATING,
 * DELETING), then its outcome. Its claim is a lease, renewed while it works: if the worker dies,
 * another takes the classified over once the lease runs out.
 *
 * A revision may be processed again after a crash at any point: statuses are keyed by
 * (classified, revision, status) and recorded once, with their webhooks; media outcomes are kept
 * per URL with the revision's outcome, so a run again fetches only what was not recorded; a
 * revision marked processed is not loaded again.
 */
export const PROCESSING_STREAM = 'caas:processing';

interface PendingRevision {
  revision: number;
  environment: string;
  agency_id: string;
  operation: Operation;
  payload: Classified | null;
  /** As PostgreSQL wrote it (microseconds): it goes back into the statuses' creationDate. */
  received_at: string;
}

/** A claimed classified with what it has to process. */
export interface ClaimedClassified {
  classified_id: string;
  attempts: number;
  revisions: PendingRevision[];
  media: KnownMedia[];
  current_portals: string[];
}

/** The pending revisions of classifieds and their registered media, for the claim and for a second look. */
const PENDING_WORK = `
  SELECT c.classified_id, c.attempts,
         coalesce((SELECT json_agg(r ORDER BY r.revision) FROM (
                     -- The latest POST or PUT has no payload of its own: it is the classified's (repository.ts).
                     SELECT r.revision, r.environment, r.agency_id, r.operation, r.received_at,
                            CASE WHEN r.operation = 'DELETE' THEN NULL
                                 ELSE coalesce(r.payload, (SELECT payload FROM classifieds WHERE id = c.classified_id)) END AS payload
                       FROM classified_revisions r
                      WHERE r.classified_id = c.classified_id AND r.processed_at IS NULL) r), '[]') AS revisions,
         coalesce((SELECT json_agg(m) FROM (
                     SELECT url, fetch_status, fetch_error, fetched_revision FROM classified_media WHERE classified_id = c.classified_id) m), '[]') AS media,
         ARRAY(SELECT jsonb_array_elements_text(payload -> 'portals') FROM classifieds WHERE id = c.classified_id) AS current_portals`;

const CLAIM = `
  WITH due AS (
    SELECT classified_id FROM caas_processing_queue WHERE due_at <= now() ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE caas_processing_queue q SET due_at = now() + make_interval(secs => $2), claimed_by = $1, attempts = q.attempts + 1
      FROM due WHERE q.classified_id = due.classified_id
    RETURNING q.classified_id, q.attempts)
  ${PENDING_WORK} FROM claimed c`;

/** The same, again, for a classified this worker still holds (revisions acknowledged while it worked). */
const RELOAD = `${PENDING_WORK} FROM caas_processing_queue c WHERE c.classified_id = $1 AND c.claimed_by = $2`;

type StatusOf = (fields: Pick<NewStatus, 'status' | 'message' | 'portals'> & Partial<NewStatus>) => NewStatus;

function statusFactory(classifiedId: string, revision: PendingRevision): StatusOf {
  return (fields) => ({
    classifiedId,
    environment: revision.environment,
    agencyId: revision.agency_id,
    revision: revision.revision,
    receivedAt: revision.received_at,
    ...fields,
  });
}

function rejectionDetails(rejected: { portal: string; violations: Violation[] }[]): string {
  return rejected.map(({ portal, violations }) => `${portal}: ${describeViolations(violations)}`).join(' | ');
}

/** The outcome statuses of a POST or PUT by the portals' rules, and whether every portal refused it. */
function ruleOutcome(
  classified: Classified,
  operation: Operation,
  statusOf: StatusOf,
): { refusedEverywhere: boolean; accepted: string[]; statuses: NewStatus[] } {
  const words = OUTCOMES[operation];
  const outcome = applyRules(classified);
  const statuses: NewStatus[] = [];
  if (outcome.rejected.length > 0) {
    const portals = outcome.rejected.map((entry) => entry.portal);
    const count = new Set(outcome.rejected.flatMap((entry) => entry.violations.map((v) => v.rule))).size;
    statuses.push(
      statusOf({
        status: words.failed,
        message: `Rejected on ${portals.join(', ')}: ${count} rule${count === 1 ? '' : 's'} violated`,
        subStatusDetails: rejectionDetails(outcome.rejected),
        portals,
      }),
    );
  } else if (outcome.technical.length > 0) {
    statuses.push(
      statusOf({
        status: words.failed,
        message: `Rejected: ${outcome.technical.length} rule${outcome.technical.length === 1 ? '' : 's'} violated`,
        subStatusDetails: describeViolations(outcome.technical),
        portals: [],
      }),
    );
  }
  const refusedEverywhere = outcome.technical.length > 0 || (outcome.accepted.length === 0 && outcome.rejected.length > 0);
  return { refusedEverywhere, accepted: outcome.accepted, statuses };
}

/** Processes one revision; resolves to whether the classified's work ended (see ProcessingWrite.finishedBy). */
async function processRevision(
  claimed: ClaimedClassified,
  revision: PendingRevision,
  last: boolean,
  context: WorkContext,
): Promise<boolean> {
  const { pool } = context;
  const id = claimed.classified_id;
  const statusOf = statusFactory(id, revision);
  const words = OUTCOMES[revision.operation];
  const outcome = { classifiedId: id, revision: revision.revision, processed: true, ...(last ? { finishedBy: context.workerId } : {}) };
  if (revision.operation === 'DELETE') {
    const portals = claimed.current_portals;
    const statuses = [
      statusOf({ status: words.step, message: `Revision ${revision.revision} is being checked`, portals }),
      statusOf({ status: 'DELETED', message: 'The classified and all its media were deleted', portals }),
    ];
    return commitProcessing(pool, { ...outcome, statuses, deleted: true });
  }
  const classified = revision.payload as Classified;
  const step = statusOf({ status: words.step, message: `Revision ${revision.revision} is being checked`, portals: classified.portals });
  const rules = ruleOutcome(classified, revision.operation, statusOf);
  if (rules.refusedEverywhere) return commitProcessing(pool, { ...outcome, statuses: [step, ...rules.statuses] });

  const plan = planMedia(classified.media ?? [], claimed.media);
  // Downloads take a while: the checking step shows meanwhile. Without downloads it commits with the outcome.
  if (plan.toFetch.length > 0) await commitProcessing(pool, { classifiedId: id, revision: revision.revision, statuses: [step] });
  const fetched = await fetchMedia(plan.toFetch, context);
  // Later revisions of this run see what this one downloaded.
  for (const result of fetched) {
    const row = claimed.media.find((known) => known.url === result.url);
    if (row) Object.assign(row, { fetch_status: result.status, fetch_error: result.error, fetched_revision: revision.revision });
    if (result.error !== null)
      context.logger.info(
        { classifiedId: id, revision: revision.revision, status: result.status, reason: result.error },
        'a media could not be used',
      );
  }
  const media = mediaStatuses(plan.wanted, claimed.media, revision.revision);
  const failed = media.filter((item) => item.status === 'DOWNLOADING_FAILED' || item.status === 'CREATING_FAILED').length;
  const accepted = rules.accepted.join(', ') || 'no portal';
  const done = statusOf({
    status: failed > 0 ? words.mediaError : words.done,
    message: failed > 0 ? `Accepted on ${accepted}; ${failed} of ${media.length} media could not be used` : `Accepted on ${accepted}`,
    portals: rules.accepted,
    mediaStatuses: media,
  });
  const statuses = [...(plan.toFetch.length > 0 ? [] : [step]), ...rules.statuses, done];
  return commitProcessing(pool, { ...outcome, statuses, fetched });
}

async function processClassified(claimed: ClaimedClassified, context: WorkContext): Promise<void> {
  let work: ClaimedClassified | undefined = claimed;
  while (work) {
    let finished = false;
    if (work.revisions.length === 0) {
      finished = await commitProcessing(context.pool, {
        classifiedId: work.classified_id,
        revision: 0,
        statuses: [],
        finishedBy: context.workerId,
      });
    }
    for (const [index, revision] of work.revisions.entries()) {
      finished = await processRevision(work, revision, index === work.revisions.length - 1, context);
    }
    if (finished) return;
    // More revisions were acknowledged meanwhile: look again while the claim is ours.
    const { rows } = await context.pool.query<ClaimedClassified>({
      name: 'caas.reload',
      text: RELOAD,
      values: [claimed.classified_id, context.workerId],
    });
    work = rows[0];
  }
}

/** The stream of classified processing. */
export const processingStream: WorkStream<ClaimedClassified> = {
  name: PROCESSING_STREAM,
  concurrency: (config: Config) => config.workerConcurrency,
  async claim(context, limit) {
    const { rows } = await context.pool.query<ClaimedClassified>({
      name: 'caas.claim',
      text: CLAIM,
      values: [context.workerId, context.leaseSeconds, limit],
    });
    return rows;
  },
  key: (claimed) => claimed.classified_id,
  run: processClassified,
  async renew(context, ids) {
    await context.pool.query({
      name: 'caas.renew',
      text: 'UPDATE caas_processing_queue SET due_at = now() + make_interval(secs => $2) WHERE classified_id = ANY($3::uuid[]) AND claimed_by = $1',
      values: [context.workerId, context.leaseSeconds, ids],
    });
  },
  async fail(context, claimed, error, interrupted) {
    await context.pool.query(
      `UPDATE caas_processing_queue SET due_at = now() + make_interval(secs => $3), claimed_by = NULL, last_error = $4
        WHERE classified_id = $1 AND claimed_by = $2`,
      [
        claimed.classified_id,
        context.workerId,
        interrupted ? 0 : backoffSeconds(claimed.attempts),
        interrupted ? null : (error as Error).message,
      ],
    );
  },
  async nextDue(context) {
    const { rows } = await context.pool.query<{ at: Date | null }>({
      name: 'caas.next_due',
      text: 'SELECT min(due_at) AS at FROM caas_processing_queue',
    });
    return rows[0]?.at ?? undefined;
  },
  async depth(pool) {
    const { rows } = await pool.query<QueueDepth>(
      `SELECT count(*) FILTER (WHERE due_at <= now()) AS ready,
              count(*) FILTER (WHERE due_at > now() AND claimed_by IS NULL) AS scheduled,
              count(*) FILTER (WHERE due_at > now() AND claimed_by IS NOT NULL) AS locked
         FROM caas_processing_queue`,
    );
    return onlyRow(rows);
  },
};
