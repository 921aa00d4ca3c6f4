/**
 * immogate as the benchmark runs it: a child process of its own (so its RSS can be read from
 * /proc and it gets its own event loop), configured from the environment run.ts passes. The
 * server always runs; BENCH_WORKER=1 adds the worker, in the same process as `immogate start` does.
 */
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/log.js';
import { startServices } from '../src/runtime.js';

const config = loadConfig(process.env);
const services = await startServices(config, createLogger(config), { server: true, worker: process.env.BENCH_WORKER === '1' }, {
  onFirstRun: () => undefined,
});
process.send!({ address: config.publicUrl });
process.on('message', (message) => {
  if (message === 'stop') void services.stop().then(() => process.exit(0));
});
