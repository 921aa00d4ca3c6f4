/*
 * Periodic maintenance (pruning, retention sweeps): each task runs every `everySeconds`, once for
 * all workers. Every worker looks every few seconds for tasks whose time has come; the one whose
 * UPDATE moves a task's next run forward runs it. A run cut short by a crash is not repeated: the
 * next one comes at its time, so a task must be safe to run again and to stop half-way (a sweep
 * that deletes in bounded batches is).
 */
import { reportFailure, type WorkContext } from './stream.js';
import { messageOf } from '../caught.js';

export interface ScheduledTask {
  name: string;
  everySeconds: number;
  run(context: WorkContext): Promise<void>;
}

const TICK_MS = 5_000;

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly tasks: readonly ScheduledTask[],
    private readonly context: WorkContext,
  ) {}

  async start(): Promise<void> {
    if (this.tasks.length === 0) return;
    // A task seen for the first time runs at once.
    await this.context.pool.query(
      'INSERT INTO scheduled_tasks (name, next_run_at) SELECT unnest($1::text[]), now() ON CONFLICT (name) DO NOTHING',
      [this.tasks.map((task) => task.name)],
    );
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
  }

  private tick(): void {
    if (this.stopped) return;
    this.current = this.runDue().finally(() => {
      if (!this.stopped) {
        this.timer = setTimeout(() => this.tick(), TICK_MS);
        this.timer.unref();
      }
    });
  }

  private async runDue(): Promise<void> {
    const { pool, logger } = this.context;
    let due: string[];
    try {
      const { rows } = await pool.query<{ name: string }>(
        `UPDATE scheduled_tasks t SET next_run_at = now() + make_interval(secs => s.every), last_started_at = now()
           FROM unnest($1::text[], $2::float8[]) AS s (name, every)
          WHERE t.name = s.name AND t.next_run_at <= now()
          RETURNING t.name`,
        [this.tasks.map((task) => task.name), this.tasks.map((task) => task.everySeconds)],
      );
      due = rows.map((row) => row.name);
    } catch (error) {
      reportFailure(this.context, error, () => logger.warn({ err: error }, 'looking for scheduled tasks failed'));
      return;
    }
    for (const task of this.tasks.filter((candidate) => due.includes(candidate.name))) {
      if (this.stopped) return;
      let failure: string | null = null;
      try {
        await task.run(this.context);
      } catch (error) {
        failure = messageOf(error);
        reportFailure(this.context, error, () => logger.error({ err: error, task: task.name }, 'scheduled task failed'));
      }
      await pool
        .query('UPDATE scheduled_tasks SET last_finished_at = now(), last_error = $2 WHERE name = $1', [task.name, failure])
        .catch(() => undefined);
    }
  }
}
