import type pg from 'pg';
import { inTransaction } from '../../platform/db/pool.js';
import type { JobContext, JobDefinition } from '../../platform/jobs/registry.js';
import { processMedia } from './media.js';
import { applyRules, describeViolations, type Violation } from './rules.js';
import type { Classified } from './schema/classified.js';
import type { Environment } from '../catalogue.js';
import { notifyRecorded, OUTCOMES, recordStatus, type NewStatus, type Operation } from './statuses.js';
import { PROCESS_TASK } from './writes.js';

/**
 * Processes one acknowledged revision: the checking step (CREATING, UPDATING, DELETING), then
 * its outcome. Revisions of a classified arrive in order through its own job queue. The job may
 * run again after a crash at any point: statuses are keyed by (classified, revision, status) and
 * recorded once, media outcomes are kept per URL once the job's downloads are done (a re-run
 * fetches only what was not recorded), and a revision marked processed is skipped.
 */
interface RevisionRow {
  classified_id: string;
  revision: number;
  environment: string;
  agency_id: string;
  operation: Operation;
  payload: Classified | null;
  unchanged: boolean;
  processed_at: Date | null;
  current_portals: string[] | null;
}

async function loadRevision(pool: pg.Pool, classifiedId: string, revision: number): Promise<RevisionRow | undefined> {
  const { rows } = await pool.query<RevisionRow>(
    `SELECT r.classified_id, r.revision, r.environment, r.agency_id, r.operation, r.payload, r.unchanged, r.processed_at,
            ARRAY(SELECT jsonb_array_elements_text(c.payload -> 'portals')) AS current_portals
       FROM classified_revisions r JOIN classifieds c ON c.id = r.classified_id
      WHERE r.classified_id = $1 AND r.revision = $2`,
    [classifiedId, revision],
  );
  return rows[0];
}

type StatusOf = (fields: Pick<NewStatus, 'status' | 'message' | 'portals'> & Partial<NewStatus>) => NewStatus;

function statusFactory(revision: RevisionRow): StatusOf {
  return (fields) => ({
    classifiedId: revision.classified_id,
    environment: revision.environment,
    agencyId: revision.agency_id,
    revision: revision.revision,
    ...fields,
  });
}

async function finish(pool: pg.Pool, revision: RevisionRow, statuses: NewStatus[], extra?: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  await inTransaction(pool, async (client) => {
    for (const status of statuses) await recordStatus(client, status);
    await extra?.(client);
    await client.query('UPDATE classified_revisions SET processed_at = now() WHERE classified_id = $1 AND revision = $2', [
      revision.classified_id,
      revision.revision,
    ]);
  });
}

async function processDelete(pool: pg.Pool, revision: RevisionRow, statusOf: StatusOf): Promise<void> {
  const portals = revision.current_portals ?? [];
  await finish(pool, revision, [statusOf({ status: 'DELETED', message: 'The classified and all its media were deleted', portals })], async (client) => {
    // Gone for reads and rules from now on; its offererEstateId and media URLs are free again.
    await client.query('UPDATE classifieds SET deleted_at = now() WHERE id = $1', [revision.classified_id]);
    await client.query('DELETE FROM classified_media WHERE classified_id = $1', [revision.classified_id]);
  });
}

function rejectionDetails(rejected: { portal: string; violations: Violation[] }[]): string {
  return rejected.map(({ portal, violations }) => `${portal}: ${describeViolations(violations)}`).join(' | ');
}

async function processWrite(pool: pg.Pool, revision: RevisionRow, statusOf: StatusOf, context: JobContext): Promise<void> {
  const words = OUTCOMES[revision.operation];
  const classified = revision.payload as Classified;
  const outcome = applyRules(classified);
  const statuses: NewStatus[] = [];

  const refusedEverywhere = outcome.technical.length > 0 || (outcome.accepted.length === 0 && outcome.rejected.length > 0);
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
  if (!refusedEverywhere) {
    const media = await processMedia(pool, revision.classified_id, revision.revision, classified.media ?? [], context);
    const failed = media.filter((item) => item.status === 'DOWNLOADING_FAILED' || item.status === 'CREATING_FAILED').length;
    statuses.push(
      statusOf({
        status: failed > 0 ? words.mediaError : words.done,
        message:
          failed > 0
            ? `Accepted on ${outcome.accepted.join(', ') || 'no portal'}; ${failed} of ${media.length} media could not be used`
            : `Accepted on ${outcome.accepted.join(', ') || 'no portal'}`,
        portals: outcome.accepted,
        mediaStatuses: media,
      }),
    );
  }
  await finish(pool, revision, statuses);
}

export async function processRevision(classifiedId: string, revisionNumber: number, context: JobContext): Promise<void> {
  const { pool } = context;
  const revision = await loadRevision(pool, classifiedId, revisionNumber);
  // Unchanged PUTs are complete when acknowledged; a processed revision is not processed twice.
  if (!revision || revision.processed_at !== null) return;
  const statusOf = statusFactory(revision);
  const words = OUTCOMES[revision.operation];
  const portals = revision.operation === 'DELETE' ? (revision.current_portals ?? []) : (revision.payload?.portals ?? []);
  await inTransaction(pool, async (client) => {
    const step = await recordStatus(client, statusOf({ status: words.step, message: `Revision ${revision.revision} is being checked`, portals }));
    // The write recorded RECEIVED without its webhooks (see notifyRecorded); on a re-run the step
    // is met again and they are not scheduled twice.
    if (step) await notifyRecorded(client, revision.classified_id, revision.revision, 'RECEIVED', revision.environment as Environment);
  });
  if (revision.operation === 'DELETE') await processDelete(pool, revision, statusOf);
  else await processWrite(pool, revision, statusOf, context);
}

export const processingJob: JobDefinition = {
  name: PROCESS_TASK,
  async handler(payload, context) {
    const { classifiedId, revision } = payload as { classifiedId: string; revision: number };
    await processRevision(classifiedId, revision, context);
  },
};
