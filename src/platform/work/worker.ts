/*
 * The worker of one process: a runner per stream woken by NOTIFY, and the scheduler of periodic
 * tasks. Any number of processes may run one on the same database.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Config } from '../../config.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { Outage } from '../db/outage.js';
import { DiskWatch } from '../diskSpace.js';
import { WorkListener } from './listener.js';
import { Scheduler, type ScheduledTask } from './schedule.js';
import { RequestsFirstPace, type ServersLoad } from './requestsFirst.js';
import { StreamRunner, type WorkContext, type WorkStream } from './stream.js';

export interface WorkerOptions {
  pool: Pool;
  /** The database the pool connects to: the worker LISTENs on a connection of its own. */
  databaseUrl: string;
  logger: Logger;
  config: Config;
  streams: readonly WorkStream<unknown>[];
  tasks: readonly ScheduledTask[];
  /** The load of the server processes beside this worker (`immogate start`): new work is paced while they are busy. */
  serversLoad?: ServersLoad;
}

export interface Worker {
  /** The id this worker's claims are held under. */
  readonly workerId: string;
  /** Items running now, per stream. */
  inFlight(): Record<string, number>;
  /**
   * Claims nothing more, lets running items finish for SHUTDOWN_GRACE_SECONDS, then aborts the
   * rest (which give their items back) and stops.
   */
  stop(): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const { config, logger } = options;
  const controller = new AbortController();
  // Every call in flight listens on this one signal (each removes its listener when it ends): as
  // many at once as the streams' slots, so Node's leak warning at 11 would be a false alarm.
  setMaxListeners(0, controller.signal);
  const disk = await DiskWatch.start(config, logger, 'new work');
  const context: WorkContext = {
    pool: options.pool,
    logger,
    config,
    workerId: randomUUID(),
    leaseSeconds: config.workerLeaseSeconds,
    signal: controller.signal,
    // Ended by the next claim that succeeds: the runners claim every second or so while it lasts.
    outage: new Outage(logger, {
      started: 'database unavailable: work paused until it is back',
      ended: 'database available again: work resumed',
      counted: 'failures',
    }),
    paused: () => disk?.low === true,
    ...(options.serversLoad && config.workerPaceWhileServersBusy > 0
      ? { pace: new RequestsFirstPace(options.serversLoad, config.workerPaceWhileServersBusy) }
      : {}),
  };
  const scheduler = new Scheduler(options.tasks, context);
  // First, before anything runs on: a start that finds its database unavailable here tries again whole.
  await scheduler.start().catch((error: unknown) => {
    disk?.stop();
    throw error;
  });
  const runners = options.streams.map((stream) => new StreamRunner(stream, context));
  const byName = new Map(runners.map((runner) => [runner.name, runner]));
  const listener = new WorkListener(
    options.databaseUrl,
    logger,
    (name) => byName.get(name)?.wake(),
    () => {
      for (const runner of runners) runner.wake();
    },
  );
  await listener.start();
  // The servers calmed down: what the pace held back is claimed now, not at the next notification.
  options.serversLoad?.onCalm(() => {
    for (const runner of runners) runner.wake();
  });
  for (const runner of runners) runner.start();
  let stopping: Promise<void> | undefined;
  return {
    workerId: context.workerId,
    inFlight: () => Object.fromEntries(runners.map((runner) => [runner.name, runner.inFlight])),
    stop() {
      stopping ??= (async () => {
        const grace = setTimeout(() => controller.abort(), config.shutdownGraceSeconds * 1000);
        await Promise.all([scheduler.stop(), ...runners.map((runner) => runner.stop())]);
        clearTimeout(grace);
        await listener.stop();
        disk?.stop();
      })();
      return stopping;
    },
  };
}
