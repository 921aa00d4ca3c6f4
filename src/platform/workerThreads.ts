/*
 * Worker threads for work too long for the event loop (a large JSON body, the rules of a listing
 * holding a megabyte of text): while one runs, the loop serves every other request. A pool
 * (piscina) of at most half the cores, so the loop and PostgreSQL keep theirs; its threads start
 * with the first task and end after a minute without one.
 */
import os from 'node:os';
import { Piscina } from 'piscina';

export class WorkerThreads {
  private pool: Piscina | undefined;

  /** `filename`: the module whose default export runs each task. */
  constructor(private readonly filename: URL) {}

  /**
   * What the module's function answers for `task`; both travel by structured clone. Aborting
   * `signal` ends the thread running the task (piscina terminates it) and rejects with an AbortError.
   */
  run<T>(task: unknown, signal?: AbortSignal): Promise<T> {
    this.pool ??= new Piscina({
      filename: this.filename.href,
      minThreads: 0,
      maxThreads: Math.max(1, Math.floor(os.availableParallelism() / 2)),
      idleTimeout: 60_000,
    });
    return this.pool.run(task, signal ? { signal } : {});
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}
