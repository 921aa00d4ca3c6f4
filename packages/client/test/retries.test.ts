/*
 * Retries, through a scripted loopback server in front of immogate: 5xx and dropped connections
 * retried for idempotent calls only, 429 for any call, Retry-After honoured as seconds or as a
 * date, and every bound (attempts, one wait, all waits, off). Also the token renewed after a 401,
 * and a wait for an outcome that does not come (this file's immogate runs no worker).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { makeClient, useServer } from '../../../test/helpers.js';
import { type ClientOptions, type ImmogateClient, ProblemError, type RetryInfo, WaitTimeoutError } from '../src/index.js';
import { ScriptedProxy } from './fixtures/proxy.js';
import { clientOf, rental, tokensIssued } from './helpers.js';

const fixture = useServer({ client: { intermediaries: ['agency-1'], scopes: ['caas:*'] } });
const LIST = '/caas/v4/classifieds';
let counter = 0;

before(() => fixture.ready());

const BUSY = { status: 503, body: { type: '/problems/unavailable', title: 'Service unavailable', status: 503, detail: 'Try again' } };

/** A proxy in front of the fixture's immogate, and a client whose classifieds calls go through it. */
async function throughProxy(
  options: Partial<ClientOptions> = {},
): Promise<{ proxy: ScriptedProxy; client: ImmogateClient; retries: RetryInfo[] }> {
  const proxy = await ScriptedProxy.start(fixture.server.base);
  const retries: RetryInfo[] = [];
  const retry = options.retry === false ? false : { baseDelayMs: 10, ...options.retry, onRetry: (info: RetryInfo) => retries.push(info) };
  const client = clientOf(fixture, 'agency-1', {
    apis: { classifieds: { baseUrl: `${proxy.base}/caas/v4`, audience: `${fixture.server.base}/caas/v4` } },
    ...options,
    retry,
  });
  return { proxy, client, retries };
}

/** GET /classifieds for an offererEstateId no classified has: an empty list whatever the tests created. */
function nothing(client: ImmogateClient): Promise<unknown[]> {
  return client.classifieds.list({ offererEstateId: 'none' }).toArray();
}

function brief(retries: RetryInfo[]): { attempt: number; status: number | undefined; delayMs?: number }[] {
  return retries.map(({ attempt, status }) => ({ attempt, status }));
}

describe('retries', () => {
  it('retries a GET answered 503 and 502, then returns what immogate answers', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      proxy.script('GET', LIST, BUSY, { status: 502 });
      assert.deepEqual(await nothing(client), []);
      assert.equal(proxy.requests('GET', LIST).length, 3);
      assert.deepEqual(brief(retries), [
        { attempt: 1, status: 503 },
        { attempt: 2, status: 502 },
      ]);
      for (const retry of retries) assert.ok(retry.delayMs >= 0 && retry.delayMs <= 10 * 2 ** (retry.attempt - 1), String(retry.delayMs));
    } finally {
      await proxy.close();
    }
  });

  it('retries a GET whose connection was dropped', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      proxy.script('GET', LIST, 'drop');
      assert.deepEqual(await nothing(client), []);
      assert.equal(proxy.requests('GET', LIST).length, 2);
      assert.deepEqual(brief(retries), [{ attempt: 1, status: undefined }]);
      assert.ok(retries[0]?.error instanceof TypeError);
    } finally {
      await proxy.close();
    }
  });

  it('retries a POST answered 503 with the same Idempotency-Key (the server answers a repeated key once)', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      proxy.script('POST', LIST, BUSY);
      const { classifiedId } = await client.classifieds.create(rental(`R-${++counter}`));
      assert.match(classifiedId, /^[0-9a-f-]{36}$/);
      const keys = proxy.requests('POST', LIST).map((request) => request.headers['idempotency-key']);
      assert.equal(keys.length, 2);
      assert.equal(keys[1], keys[0]);
      assert.deepEqual(brief(retries), [{ attempt: 1, status: 503 }]);
    } finally {
      await proxy.close();
    }
  });

  it('retries a POST refused with 429 (it was not processed), once Retry-After has passed', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      proxy.script('POST', LIST, { status: 429, headers: { 'retry-after': '1' } });
      const { classifiedId } = await client.classifieds.create(rental(`R-${++counter}`));
      assert.equal(proxy.requests('POST', LIST).length, 2);
      assert.deepEqual(
        retries.map(({ attempt, status, delayMs }) => ({ attempt, status, delayMs })),
        [{ attempt: 1, status: 429, delayMs: 1000 }],
      );
      assert.equal((await client.classifieds.get(classifiedId)).revision, 1);
    } finally {
      await proxy.close();
    }
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    const { proxy, client, retries } = await throughProxy();
    try {
      proxy.script('GET', LIST, { status: 503, headers: { 'retry-after': new Date(Date.now() + 2_000).toUTCString() } });
      assert.deepEqual(await nothing(client), []);
      // The date has whole seconds: the wait is what is left until it, up to 2 s, and far above the 10 ms backoff.
      assert.equal(retries.length, 1);
      assert.ok((retries[0]?.delayMs ?? 0) > 100 && (retries[0]?.delayMs ?? 0) <= 2_000, String(retries[0]?.delayMs));
    } finally {
      await proxy.close();
    }
  });

  it('gives up at once when Retry-After asks for longer than one wait or all waits may last', async () => {
    const { proxy, client, retries } = await throughProxy({ retry: { maxDelayMs: 5_000, maxTotalDelayMs: 500 } });
    try {
      proxy.script('GET', LIST, { status: 429, headers: { 'retry-after': '3600' } }, { status: 503, headers: { 'retry-after': '1' } });
      const first = await nothing(client).catch((caught: unknown) => caught);
      assert.ok(first instanceof ProblemError);
      assert.deepEqual([first.status, first.retryAfterMs], [429, 3_600_000]);
      const second = await nothing(client).catch((caught: unknown) => caught);
      assert.ok(second instanceof ProblemError);
      assert.deepEqual([second.status, second.retryAfterMs], [503, 1_000]);
      assert.equal(proxy.requests('GET', LIST).length, 2);
      assert.deepEqual(retries, []);
    } finally {
      await proxy.close();
    }
  });

  it('stops after maxRetries, and makes no retry when retries are off', async () => {
    const bounded = await throughProxy({ retry: { maxRetries: 2 } });
    const off = await throughProxy({ retry: false });
    try {
      bounded.proxy.script('GET', LIST, BUSY, BUSY, BUSY, BUSY);
      await assert.rejects(nothing(bounded.client), { name: 'ProblemError', status: 503 });
      assert.equal(bounded.proxy.requests('GET', LIST).length, 3);
      assert.deepEqual(brief(bounded.retries), [
        { attempt: 1, status: 503 },
        { attempt: 2, status: 503 },
      ]);
      off.proxy.script('GET', LIST, BUSY);
      await assert.rejects(nothing(off.client), { name: 'ProblemError', status: 503 });
      assert.equal(off.proxy.requests('GET', LIST).length, 1);
    } finally {
      await bounded.proxy.close();
      await off.proxy.close();
    }
  });

  it('retries the token request after a 503, and asks for one token all the same', async () => {
    const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*']);
    const proxy = await ScriptedProxy.start(fixture.server.base);
    try {
      proxy.script('POST', '/oauth/token', BUSY);
      const client = clientOf(fixture, 'agency-1', {
        clientId: credentials.clientId,
        clientSecret: credentials.secret,
        tokenUrl: `${proxy.base}/oauth/token`,
        retry: { baseDelayMs: 10 },
      });
      assert.deepEqual(await nothing(client), []);
      assert.equal(proxy.requests('POST', '/oauth/token').length, 2);
      assert.equal((await tokensIssued(fixture, credentials.clientId)).tokens, 1);
    } finally {
      await proxy.close();
    }
  });

  it('drops a token the API refused with 401 and sends the call once more with a new one', async () => {
    const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*']);
    const { proxy, client } = await throughProxy({ clientId: credentials.clientId, clientSecret: credentials.secret });
    try {
      assert.deepEqual(await nothing(client), []);
      proxy.script('GET', LIST, { status: 401 });
      assert.deepEqual(await nothing(client), []);
      const [first, refused, renewed] = proxy.requests('GET', LIST).map((request) => request.headers.authorization);
      assert.equal(refused, first);
      assert.notEqual(renewed, first);
      assert.equal((await tokensIssued(fixture, credentials.clientId)).tokens, 2);
      // A second 401 in a row is the answer: no token request per call.
      proxy.script('GET', LIST, { status: 401 }, { status: 401 });
      await assert.rejects(nothing(client), { name: 'ProblemError', status: 401 });
      assert.equal((await tokensIssued(fixture, credentials.clientId)).tokens, 3);
    } finally {
      await proxy.close();
    }
  });
});

describe('waitForTerminal without a worker', () => {
  it('gives up after timeoutMs with the statuses it saw last', async () => {
    const client = clientOf(fixture, 'agency-1');
    const { classifiedId } = await client.classifieds.create(rental(`R-${++counter}`));
    const error = await client.classifieds
      .waitForTerminal(classifiedId, { timeoutMs: 300, initialDelayMs: 50 })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof WaitTimeoutError);
    assert.equal(error.message, `classified ${classifiedId}: no outcome within 300 ms (latest status RECEIVED)`);
    assert.deepEqual(
      (error.last as { status: string }[]).map((status) => status.status),
      ['RECEIVED'],
    );
  });
});
