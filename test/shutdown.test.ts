/*
 * Shutdown drains: a request in flight when stop() begins still gets its answer, and the server
 * takes no new connection meanwhile. A probe route holds its answer until the test releases it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { heldRoute } from './fixtures/heldRoute.js';
import { type TestServer, useServer } from './helpers.js';

const held = heldRoute();
const fixture = useServer({ apis: [held.module], worker: true });
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

describe('stop()', () => {
  it('lets an in-flight request finish, refuses new connections, then stops the worker', async () => {
    const { inFlight } = await held.hold(server);

    const stopping = server.services.stop();
    // A new request is turned away: no listener any more, or 503 while the close is under way.
    const refused = await fetch(`${server.base}/health`, { headers: { connection: 'close' } }).then(
      (response) => response.status,
      () => 'connection refused',
    );
    assert.ok(refused === 503 || refused === 'connection refused', `a new request got ${refused}`);

    held.release();
    const answer = await inFlight;
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { finished: true });
    await stopping;
    assert.equal(server.services.app?.server.listening, false);
  });
});
