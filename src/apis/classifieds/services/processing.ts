/*
 * Processing of acknowledged revisions, as the processing stream (jobs.ts) runs it for each
 * claimed classified: its pending revisions in the order they were acknowledged, each through the
 * checking step (CREATING, UPDATING, DELETING), then its outcome by the portals' rules and its
 * media downloads.
 *
 * A revision may be processed again after a crash at any point: statuses are keyed by
 * (classified, revision, status) and recorded once, with their webhooks; media outcomes are kept
 * per URL with the revision's outcome, so a run again fetches only what was not recorded; a
 * revision marked processed is not loaded again.
 *
 * What processing writes about one revision, at one moment, is a ProcessingWrite; the writes of
 * many classifieds finishing at the same moment are committed together (group commit, see
 * Batcher): one transaction, one statement per kind of write for all of them.
 */
import type pg from 'pg';
import { Batcher, eachAlone } from '../../../platform/db/batcher.js';
import { transaction, type Statement } from '../../../platform/db/pool.js';
import { getOrMake } from '../../../platform/memo.js';
import type { WorkContext } from '../../../platform/work/stream.js';
import type { Classified } from '../model/classified.js';
import { OUTCOMES, type MediaStatusItem, type NewStatus, type Operation } from '../model/statuses.js';
import * as repository from '../repository.js';
import type { ClaimedClassified, MediaOutcome, PendingRevision } from '../repository.js';
import { applyRules, describeViolations, type Violation } from '../rules.js';
import { fetchMedia, mediaStatuses, planMedia } from './media.js';

/**
 * What processing writes about one revision, at one moment: the statuses it reached (with their
 * webhooks) and, with its outcome, the media downloaded, the revision marked processed, the
 * classified gone (DELETE), and the end of the classified's work.
 */
export interface ProcessingWrite {
  classifiedId: string;
  revision: number;
  statuses: NewStatus[];
  fetched?: MediaOutcome[];
  processed?: boolean;
  deleted?: boolean;
  /**
   * Ends the classified's work when nothing is left pending, if this worker (the id) still holds
   * it. Under the classified's row lock, which every write takes too: a revision acknowledged
   * meanwhile is either seen here (and the queue row stays) or acknowledged after this commits
   * (and queues the classified again).
   */
  finishedBy?: string;
}

function statementsFor(writes: ProcessingWrite[]): { statements: Statement[]; finishIndex: number | undefined } {
  const statements: Statement[] = [repository.lockClassifieds([...new Set(writes.map((write) => write.classifiedId))])];
  const statuses = writes.flatMap((write) => write.statuses);
  if (statuses.length > 0) statements.push(repository.recordStatusesStatement(statuses));
  const deleted = writes.filter((write) => write.deleted).map((write) => write.classifiedId);
  if (deleted.length > 0) statements.push(...repository.markDeleted(deleted));
  const fetched = writes.flatMap((write) =>
    (write.fetched ?? []).map((outcome) => ({ ...outcome, classifiedId: write.classifiedId, revision: write.revision })),
  );
  if (fetched.length > 0) statements.push(repository.recordMedia(fetched));
  const processed = writes.filter((write) => write.processed);
  if (processed.length > 0) {
    statements.push(
      repository.markProcessed(
        processed.map((write) => write.classifiedId),
        processed.map((write) => write.revision),
      ),
    );
  }
  const finishing = writes.flatMap((write) =>
    write.finishedBy === undefined ? [] : [{ id: write.classifiedId, worker: write.finishedBy }],
  );
  let finishIndex: number | undefined;
  if (finishing.length > 0) {
    finishIndex = statements.length;
    statements.push(
      repository.finishWork(
        finishing.map((write) => write.id),
        finishing.map((write) => write.worker),
      ),
    );
  }
  return { statements, finishIndex };
}

/** Writes a group in one transaction; resolves, per write, to whether the classified's work ended. */
async function writeGroup(pool: pg.Pool, writes: ProcessingWrite[]): Promise<PromiseSettledResult<boolean>[]> {
  const { statements, finishIndex } = statementsFor(writes);
  let results: pg.QueryResult[];
  try {
    results = await transaction(pool, statements);
  } catch (error) {
    if (writes.length === 1) return [{ status: 'rejected', reason: error }];
    return eachAlone(writes, (one) => writeGroup(pool, one));
  }
  const finished = new Set(finishIndex === undefined ? [] : repository.finishedIds(results[finishIndex]));
  return writes.map((write) => ({ status: 'fulfilled', value: write.finishedBy !== undefined && finished.has(write.classifiedId) }));
}

const writers = new WeakMap<pg.Pool, Batcher<ProcessingWrite, boolean>>();

/** Commits a processing write with whatever others are ready; resolves to whether the classified's work ended. */
function commitProcessing(pool: pg.Pool, write: ProcessingWrite): Promise<boolean> {
  const writer = getOrMake(writers, pool, () => new Batcher((writes) => writeGroup(pool, writes), { maxBatch: 64, maxInFlight: 2 }));
  return writer.submit(write);
}

export type StatusOf = (fields: Pick<NewStatus, 'status' | 'message' | 'portals'> & Partial<NewStatus>) => NewStatus;

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

/**
 * The outcome of a revision accepted on `portals` once its media are known: done, or done with the
 * media that could not be used counted.
 */
export function acceptedStatus(statusOf: StatusOf, operation: Operation, portals: string[], media: MediaStatusItem[]): NewStatus {
  const words = OUTCOMES[operation];
  const failed = media.filter((item) => item.status === 'DOWNLOADING_FAILED' || item.status === 'CREATING_FAILED').length;
  const accepted = portals.join(', ') || 'no portal';
  return statusOf({
    status: failed > 0 ? words.mediaError : words.done,
    message: failed > 0 ? `Accepted on ${accepted}; ${failed} of ${media.length} media could not be used` : `Accepted on ${accepted}`,
    portals,
    mediaStatuses: media,
  });
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
  const classified = revision.payload;
  const step = statusOf({ status: words.step, message: `Revision ${revision.revision} is being checked`, portals: classified.portals });
  const rules = ruleOutcome(classified, revision.operation, statusOf);
  if (rules.refusedEverywhere) return commitProcessing(pool, { ...outcome, statuses: [step, ...rules.statuses] });

  const plan = planMedia(classified.media ?? [], claimed.media);
  // Downloads take a while: the checking step shows meanwhile. Without downloads it commits with the outcome.
  if (plan.toFetch.length > 0) await commitProcessing(pool, { classifiedId: id, revision: revision.revision, statuses: [step] });
  const fetched = await fetchMedia(plan.toFetch, { environment: revision.environment, agencyId: revision.agency_id }, context);
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
  const done = acceptedStatus(statusOf, revision.operation, rules.accepted, mediaStatuses(plan.wanted, claimed.media, revision.revision));
  const statuses = [...(plan.toFetch.length > 0 ? [] : [step]), ...rules.statuses, done];
  return commitProcessing(pool, { ...outcome, statuses, fetched });
}

/** Processes a claimed classified's pending revisions, and those acknowledged meanwhile, until its work ends. */
export async function processClassified(claimed: ClaimedClassified, context: WorkContext): Promise<void> {
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
    work = await repository.reloadClaimed(context.pool, claimed.classified_id, context.workerId);
  }
}
