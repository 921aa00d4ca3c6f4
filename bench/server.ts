/*
 * immogate as the benchmark runs it: a child process of its own (so its RSS can be read from
 * /proc and it gets its own event loop), configured from the environment run.ts passes. The
 * server always runs; BENCH_WORKER=1 adds the worker, in the same process as `immogate start` does.
 * BENCH_PROCESSES=N runs N such processes sharing the port (node:cluster), as
 * `immogate start --processes N` does; this process then only forks and stops them.
 */
import cluster from 'node:cluster';
import fs from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/log.js';
import { startServices } from '../src/runtime.js';

const config = loadConfig(process.env);
const processes = Number(process.env.BENCH_PROCESSES ?? '1');

if (processes > 1 && cluster.isPrimary) {
  const children = Array.from({ length: processes }, () => cluster.fork());
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
  process.send!({ address: config.publicUrl });
  process.on('message', (message) => {
    if (message !== 'stop') return;
    for (const child of children) child.send('stop');
    void Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve)))).then(() => process.exit(0));
  });
} else {
  // BENCH_LOG_FILE: the log goes to this file, for a scenario that reads it (soak counts its deadlocks).
  const logFile = process.env.BENCH_LOG_FILE;
  const services = await startServices(
    config,
    createLogger(config, logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined),
    { server: true, worker: process.env.BENCH_WORKER === '1' },
    {
      onFirstRun: () => undefined,
    },
  );
  process.send!({ address: config.publicUrl });
  process.on('message', (message) => {
    if (message === 'stop') void services.stop().then(() => process.exit(0));
  });
}
