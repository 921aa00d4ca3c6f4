/*
 * The event-loop budget guard of dev mode and the tests: a request that held the event loop longer
 * than REQUEST_LOOP_WARN_MS in one stretch is logged at warn with its method and route pattern, so
 * the next quadratic rule shows up in a developer's log or a test, not in production.
 *
 * How it measures: the loop runs one callback at a time (an I/O event, a timer, a promise
 * continuation), each of them synchronous work nobody else can interrupt. async_hooks' before and
 * after mark where each outermost callback starts and ends: that is one stretch the loop was held.
 * An AsyncLocalStorage entered in the first onRequest hook says which request each callback works
 * for (Fastify carries it through body parsing and validation with an AsyncResource), and a stretch
 * is charged to every request whose code ran in it. monitorEventLoopDelay would see the delay but
 * could not say whose it was. The hooks cost a call per callback and per promise, which is why the
 * guard is off in production unless configured.
 */
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';

/** The longest stretch a request held the loop, in milliseconds. */
interface Charge {
  longestMs: number;
}

export const LOOP_WARNING = 'one request held the event loop over its budget';

export function installLoopGuard(app: FastifyInstance, budgetMs: number, logger: Logger): void {
  if (budgetMs <= 0) return;
  const requests = new AsyncLocalStorage<Charge>();
  const charges = new WeakMap<FastifyRequest, Charge>();
  let depth = 0;
  let started = 0;
  const inStretch = new Set<Charge>();
  const note = () => {
    const charge = requests.getStore();
    if (charge !== undefined) inStretch.add(charge);
  };
  const hook = createHook({
    before() {
      if (depth === 0) started = performance.now();
      depth += 1;
      note();
    },
    after() {
      // Enabled inside a callback, the guard sees that callback's end without its start.
      if (depth === 0) return;
      note();
      depth -= 1;
      if (depth > 0) return;
      const held = performance.now() - started;
      for (const charge of inStretch) charge.longestMs = Math.max(charge.longestMs, held);
      inStretch.clear();
    },
  });
  hook.enable();
  app.addHook('onClose', async () => {
    hook.disable();
  });
  // A callback hook, so that everything Fastify does after it for this request runs inside run().
  app.addHook('onRequest', (request, _reply, done) => {
    const charge: Charge = { longestMs: 0 };
    charges.set(request, charge);
    requests.run(charge, done);
  });
  app.addHook('onResponse', async (request) => {
    const charge = charges.get(request);
    if (charge === undefined || charge.longestMs <= budgetMs) return;
    logger.warn(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        heldMs: Math.round(charge.longestMs),
        budgetMs,
        traceparent: request.id,
      },
      LOOP_WARNING,
    );
  });
}
