import { run, type Runner, type Task, type TaskList } from 'graphile-worker';
import type { Config } from '../../config.js';
import type { Pool } from '../db/pool.js';
import { graphileLogger, type Logger } from '../log.js';
import type { JobDefinition } from './registry.js';

export interface WorkerOptions {
  pool: Pool;
  logger: Logger;
  config: Config;
  jobs: readonly JobDefinition[];
}

/**
 * Runs jobs with graphile-worker on the application's database. New jobs are announced by
 * NOTIFY and picked up within milliseconds; the poll interval only covers jobs whose run_at
 * was in the future. A job that throws is retried with graphile-worker's exponential backoff.
 */
export async function startWorker(options: WorkerOptions): Promise<Runner> {
  const taskList: TaskList = {};
  for (const job of options.jobs) {
    const task: Task = async (payload, helpers) => {
      await job.handler(payload, {
        pool: options.pool,
        logger: options.logger.child({ job: job.name, jobId: helpers.job.id }),
        config: options.config,
        attempt: helpers.job.attempts,
        jobId: helpers.job.id,
        signal: helpers.abortSignal,
      });
    };
    taskList[job.name] = task;
  }
  const crontab = options.jobs
    .filter((job) => job.schedule !== undefined)
    .map((job) => `${job.schedule} ${job.name}`)
    .join('\n');
  return run({
    pgPool: options.pool,
    taskList,
    crontab,
    concurrency: options.config.workerConcurrency,
    noHandleSignals: true,
    // stop() waits for running jobs; after this grace their signal aborts, so outbound calls give up.
    gracefulShutdownAbortTimeout: options.config.shutdownGraceSeconds * 1000,
    pollInterval: 1000,
    // Without batching, graphile-worker 0.17 records a job's completion without awaiting it, and
    // stop() does not wait for that write: a job finishing during shutdown stayed locked (and ran
    // again four hours later) once the pool closed. Batches, even with no delay, are flushed by stop().
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    logger: graphileLogger(options.logger),
  });
}
