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
    pollInterval: 1000,
    logger: graphileLogger(options.logger),
  });
}
