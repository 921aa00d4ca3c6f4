/*
 * Tokens: one per audience, shared by concurrent calls, reused until shortly before expiry, as
 * immogate's own record of token issuance (the table behind `immogate clients report`) counts
 * them; refusals of the token service as TokenErrors; the options a client is made with.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, makeClient, type TestClient, useServer } from '../../../test/helpers.js';
import { CLIENT_VERSION, ImmogateClient, type RetryInfo, TokenError } from '../src/index.js';
import { clientOf, tokensIssued, USER_AGENT } from './helpers.js';

const fixture = useServer({ client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'leads:*'] } });

/** A client of its own (immogate's issuance record is per client), and an ImmogateClient of it. */
async function freshClient(options: { environments?: string[] } = {}): Promise<{ credentials: TestClient; client: ImmogateClient }> {
  const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*', 'leads:*'], options.environments);
  const client = new ImmogateClient({
    baseUrl: fixture.server.base,
    clientId: credentials.clientId,
    clientSecret: credentials.secret,
    agency: 'agency-1',
    environment: 'production',
    userAgent: USER_AGENT,
  });
  return { credentials, client };
}

async function audiencesIssued(clientId: string): Promise<string[]> {
  const { rows } = await fixture.server.pool.query<{ audience: string }>(
    'SELECT audience FROM token_issuance WHERE client_id = $1 ORDER BY issued_at',
    [clientId],
  );
  return rows.map((row) => row.audience);
}

describe('tokens', () => {
  it('asks for one token when 100 calls need one at the same moment, and reuses it for the calls after', async () => {
    const { credentials, client } = await freshClient();
    const pages = await Promise.all(Array.from({ length: 100 }, () => client.classifieds.list().toArray()));
    assert.deepEqual(
      pages,
      Array.from({ length: 100 }, () => []),
    );
    assert.deepEqual(await tokensIssued(fixture, credentials.clientId), { tokens: 1, targets: 1, maxPerTarget: 1 });
    for (let i = 0; i < 10; i++) await client.classifieds.list().toArray();
    assert.deepEqual(await tokensIssued(fixture, credentials.clientId), { tokens: 1, targets: 1, maxPerTarget: 1 });
  });

  it('asks for one token per audience: each API root in the environment', async () => {
    const { credentials, client } = await freshClient();
    await Promise.all([
      ...Array.from({ length: 5 }, () => client.classifieds.list().toArray()),
      ...Array.from({ length: 5 }, () => client.leads.subscriptions.list().toArray()),
    ]);
    assert.deepEqual(await tokensIssued(fixture, credentials.clientId), { tokens: 2, targets: 2, maxPerTarget: 1 });
    assert.deepEqual((await audiencesIssued(credentials.clientId)).sort(), [
      `${fixture.server.base}/caas/v4`,
      `${fixture.server.base}/seeker-leads/v1`,
    ]);
  });

  it('asks for sandbox tokens in the sandbox', async () => {
    const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*'], ['sandbox']);
    const client = clientOf(fixture, 'agency-1', {
      clientId: credentials.clientId,
      clientSecret: credentials.secret,
      environment: 'sandbox',
    });
    assert.deepEqual(await client.classifieds.list().toArray(), []);
    assert.deepEqual(await audiencesIssued(credentials.clientId), [`${fixture.server.base}/sandbox/caas/v4`]);
  });

  it('replaces a token shortly before it expires', async () => {
    const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*']);
    // immogate's tokens live 24 hours: renewing 5 seconds after issue stands for "shortly before
    // expiry". Long enough for the token request and two calls on a busy machine (a second was
    // not, under a load average of 26: the second call already renewed).
    const client = clientOf(fixture, 'agency-1', {
      clientId: credentials.clientId,
      clientSecret: credentials.secret,
      refreshTokensBeforeExpiryMs: 86_400_000 - 5_000,
    });
    await client.classifieds.list().toArray();
    await client.classifieds.list().toArray();
    assert.equal((await tokensIssued(fixture, credentials.clientId)).tokens, 1);
    await sleep(5_200);
    await client.classifieds.list().toArray();
    await client.classifieds.list().toArray();
    assert.equal((await tokensIssued(fixture, credentials.clientId)).tokens, 2);
  });

  it('asks only for the scopes configured for an API', async () => {
    const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*']);
    const client = clientOf(fixture, 'agency-1', {
      clientId: credentials.clientId,
      clientSecret: credentials.secret,
      apis: { classifieds: { scope: 'caas:classifieds:read' } },
    });
    assert.deepEqual(await client.classifieds.list().toArray(), []);
    const { rows } = await fixture.server.pool.query('SELECT scope FROM token_issuance WHERE client_id = $1', [credentials.clientId]);
    assert.deepEqual(rows, [{ scope: 'caas:classifieds:read' }]);
    await assert.rejects(client.classifieds.webhooks.subscribe({ url: 'https://crm.example.org/hooks' }), {
      name: 'ProblemError',
      status: 403,
    });
  });

  it('throws the token service refusal as a TokenError: a wrong secret', async () => {
    const client = clientOf(fixture, 'agency-1', { clientSecret: 'not-the-secret' });
    await assert.rejects(client.classifieds.list().toArray(), (error: unknown) => {
      assert.ok(error instanceof TokenError);
      assert.deepEqual(
        { status: error.status, error: error.error, description: error.errorDescription, audience: error.audience },
        { status: 401, error: 'invalid_client', description: 'client authentication failed', audience: `${fixture.server.base}/caas/v4` },
      );
      return true;
    });
  });

  it('throws the token service refusal as a TokenError: an agency the client may not act for', async () => {
    const client = clientOf(fixture, 'agency-2');
    await assert.rejects(client.leads.subscriptions.list().toArray(), (error: unknown) => {
      assert.ok(error instanceof TokenError);
      assert.equal(error.status, 400);
      assert.equal(error.error, 'invalid_request');
      assert.equal(error.errorDescription, 'intermediary_id "agency-2" is not an intermediary this client may act for');
      return true;
    });
  });

  it('throws the token service refusal as a TokenError: an environment the client does not hold', async () => {
    const credentials = await makeClient(fixture.server.pool, ['agency-1'], ['caas:*'], ['sandbox']);
    const client = clientOf(fixture, 'agency-1', { clientId: credentials.clientId, clientSecret: credentials.secret });
    await assert.rejects(client.classifieds.list().toArray(), {
      name: 'TokenError',
      status: 400,
      error: 'invalid_target',
      errorDescription: 'this client may get tokens for the sandbox environment only, not production',
    });
  });

  it('throws a TokenError when the token service cannot be reached, retried as the token request only', async () => {
    const tokenUrl = `http://127.0.0.1:${await freePort()}/oauth/token`;
    const retries: RetryInfo[] = [];
    const client = clientOf(fixture, 'agency-1', {
      tokenUrl,
      retry: { maxRetries: 1, baseDelayMs: 1, onRetry: (info) => retries.push(info) },
    });
    await assert.rejects(client.classifieds.list().toArray(), (error: unknown) => {
      assert.ok(error instanceof TokenError);
      assert.deepEqual([error.status, error.error], [0, 'unreachable']);
      assert.ok(error.cause instanceof TypeError);
      return true;
    });
    assert.deepEqual(
      retries.map(({ method, url, attempt, status }) => ({ method, url, attempt, status })),
      [{ method: 'POST', url: tokenUrl, attempt: 1, status: undefined }],
    );
  });
});

describe('options', () => {
  it('completes the User-Agent to the three name/version parts the classifieds API requires', () => {
    const node = `node/${process.versions.node}`;
    assert.equal(clientOf(fixture, 'agency-1').userAgent, `${USER_AGENT} immogate-client/${CLIENT_VERSION} ${node}`);
    assert.equal(
      clientOf(fixture, 'agency-1', { userAgent: 'MyCrm/2.0 bridge/1.1' }).userAgent,
      `MyCrm/2.0 bridge/1.1 immogate-client/${CLIENT_VERSION}`,
    );
    assert.equal(clientOf(fixture, 'agency-1', { userAgent: 'MyCrm/2.0 curl/8.0 linux/6' }).userAgent, 'MyCrm/2.0 curl/8.0 linux/6');
  });

  it('refuses a User-Agent the classifieds API would refuse, and other bad options, when made', () => {
    for (const userAgent of ['MyCrm', 'a/1 b/2 c/3 d/4', 'My Crm/1', '']) {
      assert.throws(() => clientOf(fixture, 'agency-1', { userAgent }), {
        name: 'TypeError',
        message: `userAgent must be one to three name/version parts such as "MyCrm/2.1.0", not ${JSON.stringify(userAgent)}`,
      });
    }
    assert.throws(() => clientOf(fixture, 'agency-1', { baseUrl: 'localhost:8080' }), {
      name: 'TypeError',
      message: 'baseUrl must be an absolute http(s) URL, not "localhost:8080"',
    });
    assert.throws(() => clientOf(fixture, ''), { name: 'TypeError', message: 'agency must be a non-empty string' });
    assert.throws(() => clientOf(fixture, 'agency-1', { retry: { maxRetries: -1 } }), {
      name: 'RangeError',
      message: 'retry.maxRetries must be a number of at least 0, not -1',
    });
  });
});
