import type pg from 'pg';

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
 * Adds a job in the caller's transaction: it exists exactly when the write it belongs to
 * commits. Works inside withTenant too (through the immogate_add_job door).
 */
export async function enqueue(client: pg.ClientBase, spec: JobSpec): Promise<number> {
  const { rows } = await client.query<{ id: number }>('SELECT immogate_add_job($1, $2::json, $3, $4, $5, $6) AS id', [
    spec.task,
    JSON.stringify(spec.payload),
    spec.queue ?? null,
    spec.runAt ?? null,
    spec.maxAttempts ?? null,
    spec.jobKey ?? null,
  ]);
  return (rows[0] as { id: number }).id;
}
