/*
 * The event-loop budget guard of dev mode (platform/http/loopGuard.ts): a request that holds the
 * loop over REQUEST_LOOP_WARN_MS (50 ms with --dev) in one stretch gets one warning naming its
 * method and route pattern; an ordinary request, or one merely in flight meanwhile, gets none.
 * A module of the test's own serves a route that spins, so the stretch is known.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiById } from '../../src/platform/catalogue.js';
import { LOOP_WARNING } from '../../src/platform/http/loopGuard.js';
import type { ApiModule } from '../../src/platform/module.js';
import { http, TRACEPARENT, useServer } from '../helpers.js';

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Holding the loop is the point.
  }
}

/** Stands in for the listing import: a route that spins for the `ms` its body asks, after an await; one that waits without spinning. */
const spinning: ApiModule = {
  api: apiById('clim'),
  async routes(app) {
    app.post<{ Body: { ms: number } }>(
      '/spin',
      {
        config: { public: true },
        schema: { body: { type: 'object', required: ['ms'], properties: { ms: { type: 'integer', minimum: 0, maximum: 1000 } } } },
      },
      async (request) => {
        await sleep(1);
        spin(request.body.ms);
        return { spun: request.body.ms };
      },
    );
    app.get('/wait', { config: { public: true } }, async () => {
      await sleep(150);
      return { waited: true };
    });
  },
};

function serverWithGuard(env: Record<string, string>) {
  const lines: string[] = [];
  const fixture = useServer({
    env: { LOG_LEVEL: 'warn', ...env },
    config: { dev: true },
    apis: [spinning],
    logTo: { write: (line: string) => lines.push(line) },
  });
  const warnings = () =>
    lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === LOOP_WARNING)
      .map(({ time, ...line }) => {
        assert.equal(typeof time, 'number');
        return line;
      });
  return { fixture, warnings };
}

describe('the event-loop guard in dev mode (50 ms by default)', () => {
  // Unset: dev mode's default applies (the tests' servers set 50 otherwise).
  const { fixture, warnings } = serverWithGuard({ REQUEST_LOOP_WARN_MS: '' });
  let base: string;

  before(async () => {
    await fixture.ready();
    assert.equal(fixture.server.config.requestLoopWarnMs, 50);
    base = fixture.server.base;
  });

  it('warns once, naming the method and route pattern, when a request holds the loop for 150 ms', async () => {
    const spun = await http('POST', `${base}/import-listings/v1/spin`, { body: { ms: 150 } });
    assert.equal(spun.status, 200, spun.text);
    assert.deepEqual(spun.body, { spun: 150 });
    await sleep(50);
    const [warning, ...others] = warnings();
    assert.deepEqual(others, []);
    assert.ok(warning.heldMs >= 150 && warning.heldMs < 1000, `heldMs ${warning.heldMs}`);
    const traceparent = spun.headers.get('traceparent') ?? '';
    assert.match(traceparent, TRACEPARENT);
    assert.deepEqual(warning, {
      level: 40,
      service: 'immogate',
      method: 'POST',
      route: '/import-listings/v1/spin',
      heldMs: warning.heldMs,
      budgetMs: 50,
      traceparent,
      msg: LOOP_WARNING,
    });
  });

  it('blames only the request whose code ran: ordinary requests, and those waiting meanwhile, get no warning', async () => {
    const before = warnings().length;
    const waiting = [1, 2, 3].map(() => http('GET', `${base}/import-listings/v1/wait`));
    await sleep(20);
    const [spun, ready, health] = await Promise.all([
      http('POST', `${base}/import-listings/v1/spin`, { body: { ms: 120 } }),
      http('GET', `${base}/ready`),
      http('GET', `${base}/health`),
    ]);
    for (const result of await Promise.all(waiting)) assert.deepEqual([result.status, result.body], [200, { waited: true }]);
    assert.deepEqual([spun.status, ready.status, health.status], [200, 200, 200]);
    for (let i = 0; i < 20; i++) assert.equal((await http('POST', `${base}/import-listings/v1/spin`, { body: { ms: 0 } })).status, 200);
    await sleep(50);
    const found = warnings().slice(before);
    assert.deepEqual(
      found.map(({ method, route }) => `${method} ${route}`),
      ['POST /import-listings/v1/spin'],
    );
    assert.ok(found[0].heldMs >= 120, `heldMs ${found[0].heldMs}`);
  });
});

describe('the event-loop guard turned off (REQUEST_LOOP_WARN_MS=0)', () => {
  const { fixture, warnings } = serverWithGuard({ REQUEST_LOOP_WARN_MS: '0' });

  it('says nothing of a request that holds the loop', async () => {
    await fixture.ready();
    const spun = await http('POST', `${fixture.server.base}/import-listings/v1/spin`, { body: { ms: 120 } });
    assert.equal(spun.status, 200);
    await sleep(50);
    assert.deepEqual(warnings(), []);
  });
});
