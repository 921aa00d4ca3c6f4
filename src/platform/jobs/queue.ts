import type pg from 'pg';
import { sql, type Sql } from '../db/sql.js';

export interface JobSpec {
  /** The task name, as in the job registry. */
  task: string;
  payload: Record<string, unknown>;
  /** Jobs of one queue run one at a time, in order: use one queue per resource whose writes must not overtake each other. */
  queue?: string;
  runAt?: Date;
  maxAttempts?: number;
  /** Replaces a pending job with the same key instead of adding a second one. */
  jobKey?: string;
}

/**
 * The statement that adds a job: in the caller's transaction, so the job exists exactly when the
 * write it belongs to commits. Works inside withTenant and tenantBatch too (through the
 * immogate_add_job door). Returns the job's id as `id`.
 */
export function addJob(spec: JobSpec): Sql {
  return sql`SELECT immogate_add_job(${spec.task}, ${JSON.stringify(spec.payload)}::json, ${spec.queue ?? null}, ${spec.runAt ?? null}::timestamptz,
                                   ${spec.maxAttempts ?? null}::integer, ${spec.jobKey ?? null}) AS id`;
}

/** Adds a job in the caller's transaction (see addJob). */
export async function enqueue(client: pg.ClientBase, spec: JobSpec): Promise<number> {
  const { rows } = await client.query<{ id: number }>(addJob(spec).text);
  return (rows[0] as { id: number }).id;
}
