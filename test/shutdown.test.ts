/*
 * Shutdown drains: a request in flight when stop() begins still gets its answer, and the server
 * takes no new connection meanwhile. A probe route holds its answer until the test releases it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { APIS } from '../src/platform/catalogue.js';
import type { ApiModule } from '../src/platform/module.js';
import { getToken, http, makeClient, type TestServer, useServer } from './helpers.js';

let release: () => void = () => undefined;
let arrived: () => void = () => undefined;
const arrival = new Promise<void>((resolve) => (arrived = resolve));
const held = new Promise<void>((resolve) => (release = resolve));

const leads = APIS.find((api) => api.id === 'leads')!;
const probe: ApiModule = {
  api: leads,
  routes: async (app) => {
    app.get('/slow', { config: { scope: 'leads:read' } }, async () => {
      arrived();
      await held;
      return { finished: true };
    });
  },
};

const fixture = useServer({ apis: [probe], worker: true });
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

describe('stop()', () => {
  it('lets an in-flight request finish, refuses new connections, then stops the worker', async () => {
    const client = await makeClient(server.pool, ['agency-1'], ['leads:*']);
    const token = await getToken(server, client, { root: '/seeker-leads/v1', intermediary: 'agency-1' });
    const inFlight = http('GET', `${server.base}/seeker-leads/v1/slow`, {
      headers: { authorization: `Bearer ${token}`, connection: 'close' },
    });
    await arrival;

    const stopping = server.services.stop();
    // A new request is turned away: no listener any more, or 503 while the close is under way.
    const refused = await fetch(`${server.base}/health`, { headers: { connection: 'close' } }).then(
      (response) => response.status,
      () => 'connection refused',
    );
    assert.ok(refused === 503 || refused === 'connection refused', `a new request got ${refused}`);

    release();
    const answer = await inFlight;
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { finished: true });
    await stopping;
    assert.equal(server.services.app?.server.listening, false);
  });
});
