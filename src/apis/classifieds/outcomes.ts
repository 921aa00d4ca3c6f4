import type pg from 'pg';
import { Batcher, eachAlone } from '../../platform/db/batcher.js';
import { transaction, type Statement } from '../../platform/db/pool.js';
import { mediaOutcomesJson, type MediaOutcome } from './media.js';
import { recordStatuses, statusesJson, statusInput, type NewStatus } from './statuses.js';
import { getOrMake } from '../../platform/memo.js';

/**
 * What processing writes about one revision, at one moment: the statuses it reached (with their
 * webhooks) and, with its outcome, the media downloaded, the revision marked processed, the
 * classified gone (DELETE), and the end of the classified's work. The processing of many
 * classifieds finishing at the same moment is committed together (group commit, see Batcher):
 * one transaction, one statement per kind of write for all of them.
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

// Every statement joining the JSON or arrays of a group with a large table also names its keys
// with `= ANY (...)`: the planner, estimating such input at a hundred rows, would otherwise scan
// the table; the array condition gives it the index.
function statementsFor(writes: ProcessingWrite[]): { statements: Statement[]; finishIndex: number | undefined } {
  const statements: Statement[] = [];
  const statuses = writes.flatMap((write) => write.statuses);
  if (statuses.length > 0) {
    statements.push({
      name: 'caas.record_statuses',
      text: `WITH ${statusInput('recorded', '$1')}, ${recordStatuses('recorded')} SELECT 1`,
      values: [statusesJson(statuses)],
    });
  }
  const deleted = writes.filter((write) => write.deleted).map((write) => write.classifiedId);
  if (deleted.length > 0) {
    // Gone for reads and rules from now on; its offererEstateId and media URLs are free again.
    statements.push(
      { name: 'caas.mark_deleted', text: 'UPDATE classifieds SET deleted_at = now() WHERE id = ANY($1::uuid[])', values: [deleted] },
      { name: 'caas.drop_media', text: 'DELETE FROM classified_media WHERE classified_id = ANY($1::uuid[])', values: [deleted] },
    );
  }
  const fetched = writes.flatMap((write) => (write.fetched ?? []).map((outcome) => ({ write, outcome })));
  if (fetched.length > 0) {
    statements.push({
      name: 'caas.record_media',
      text: `UPDATE classified_media m
                SET fetch_status = o.status, content_type = o.content_type, size_bytes = o.size_bytes, fetch_error = o.error,
                    fetched_at = now(), fetched_revision = o.revision
               FROM jsonb_to_recordset($1::jsonb) AS o (classified_id uuid, revision integer, url text, status text, content_type text, size_bytes bigint, error text)
              WHERE m.classified_id = ANY ($2::uuid[]) AND m.classified_id = o.classified_id AND m.url = o.url`,
      values: [
        mediaOutcomesJson(
          fetched.map(({ write, outcome }) => ({ ...outcome, classifiedId: write.classifiedId, revision: write.revision })),
        ),
        [...new Set(fetched.map(({ write }) => write.classifiedId))],
      ],
    });
  }
  const processed = writes.filter((write) => write.processed);
  if (processed.length > 0) {
    statements.push({
      name: 'caas.processed',
      text: `UPDATE classified_revisions r SET processed_at = now()
               FROM unnest($1::uuid[], $2::integer[]) AS p (classified_id, revision)
              WHERE r.classified_id = ANY ($1::uuid[]) AND r.classified_id = p.classified_id AND r.revision = p.revision`,
      values: [processed.map((write) => write.classifiedId), processed.map((write) => write.revision)],
    });
  }
  const finishing = writes.filter((write) => write.finishedBy !== undefined);
  let finishIndex: number | undefined;
  if (finishing.length > 0) {
    const ids = finishing.map((write) => write.classifiedId);
    // In one order for every transaction that takes several of these locks: no deadlock between them.
    statements.push({
      name: 'caas.lock_for_finish',
      text: 'SELECT 1 FROM classifieds WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE',
      values: [ids],
    });
    finishIndex = statements.length;
    statements.push({
      name: 'caas.finish',
      text: `DELETE FROM caas_processing_queue q
               USING unnest($1::uuid[], $2::uuid[]) AS f (classified_id, worker)
              WHERE q.classified_id = ANY ($1::uuid[]) AND q.classified_id = f.classified_id AND q.claimed_by = f.worker
                AND NOT EXISTS (SELECT 1 FROM classified_revisions r WHERE r.classified_id = f.classified_id AND r.processed_at IS NULL)
             RETURNING q.classified_id`,
      values: [ids, finishing.map((write) => write.finishedBy)],
    });
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
  const finished = new Set(
    finishIndex === undefined ? [] : (results[finishIndex]?.rows ?? []).map((row: { classified_id: string }) => row.classified_id),
  );
  return writes.map((write) => ({ status: 'fulfilled', value: write.finishedBy !== undefined && finished.has(write.classifiedId) }));
}

const writers = new WeakMap<pg.Pool, Batcher<ProcessingWrite, boolean>>();

/** Commits a processing write with whatever others are ready; resolves to whether the classified's work ended. */
export function commitProcessing(pool: pg.Pool, write: ProcessingWrite): Promise<boolean> {
  const writer = getOrMake(writers, pool, () => new Batcher((writes) => writeGroup(pool, writes), { maxBatch: 64, maxInFlight: 2 }));
  return writer.submit(write);
}
