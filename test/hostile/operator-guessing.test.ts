/*
 * Guessing ADMIN_TOKEN, on /admin and at the console's operator sign-in: every wrong token is
 * counted per address in PostgreSQL and logged at warn (address and route, never the guess); from
 * the 11th in the window the address gets 429 with Retry-After before anything it sends is
 * compared, the right token too, until the window has passed. Each limit is paired with its
 * mutation check: the same guesses on a server whose limit is switched off by configuration reach
 * the comparison (401), so the 429s above come from the throttle and from nothing else.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import {
  CapturedLogs,
  TRACEPARENT,
  assertProblem,
  http,
  startTestServer,
  type HttpResult,
  type ServerFixture,
  useServer,
} from '../helpers.js';

const ADMIN_TOKEN = 'operator-guessing-token-0123456789';
const logs = new CapturedLogs();
const throttled = useServer({ env: { ADMIN_TOKEN, LOG_LEVEL: 'warn' }, logTo: logs.stream });
const unthrottled = useServer({ env: { ADMIN_TOKEN, ADMIN_TOKEN_FAILURES_PER_ADDRESS: '1000000' } });

function admin(fixture: ServerFixture, token?: string): Promise<HttpResult> {
  return http('GET', `${fixture.server.base}/admin/clients`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

function operatorSignIn(fixture: ServerFixture, adminToken: string): Promise<HttpResult> {
  return http('POST', `${fixture.server.base}/console/api/session`, { body: { kind: 'operator', adminToken } });
}

function assertWrongOnAdmin(result: HttpResult): void {
  assertProblem(result, 401, 'Unauthorized', 'The operator endpoints need Authorization: Bearer <ADMIN_TOKEN>');
  assert.equal(result.headers.get('www-authenticate'), 'Bearer');
}

function assertWrongAtSignIn(result: HttpResult): void {
  assertProblem(result, 401, 'Unauthorized', 'The admin token is wrong');
}

/** The 429 of a locked address: Retry-After within the 60-second window, the detail saying when. */
function assertLocked(result: HttpResult): void {
  const retryAfter = Number(result.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${result.headers.get('retry-after')}`);
  assertProblem(result, 429, 'Too many requests', `Too many wrong admin tokens from this address lately; retry in ${retryAfter} seconds`);
  assert.equal(result.headers.get('cache-control'), 'no-store');
}

/** The warn line of one wrong token: address and route, the request's traceparent, and nothing of the guess. */
function assertFailureLine(line: Record<string, unknown> | undefined, route: string): void {
  assert.ok(line);
  assert.match(String(line.traceparent), TRACEPARENT);
  assert.deepEqual(line, {
    level: 40,
    time: line.time,
    service: 'immogate',
    traceparent: line.traceparent,
    address: '127.0.0.1',
    route,
    msg: 'wrong ADMIN_TOKEN',
  });
}

beforeEach(async () => {
  await throttled.ready();
  await unthrottled.ready();
  await throttled.server.pool.query('DELETE FROM auth_failures');
  await unthrottled.server.pool.query('DELETE FROM auth_failures');
  logs.lines.length = 0;
});

describe('wrong ADMIN_TOKENs on /admin', () => {
  it('the first 10 from an address are 401s, each logged at warn without the guess; then 429 with Retry-After, the right token too', async () => {
    for (let i = 0; i < 10; i++) assertWrongOnAdmin(await admin(throttled, `guess-number-${i}`));
    const lines = logs.withMessage('wrong ADMIN_TOKEN');
    assert.equal(lines.length, 10);
    for (const line of lines) assertFailureLine(line, 'GET /admin/clients');
    assert.equal(JSON.stringify(logs.lines).includes('guess-number'), false);

    assertLocked(await admin(throttled, 'guess-number-10'));
    assertLocked(await admin(throttled, ADMIN_TOKEN));
    assertLocked(await admin(throttled));
    // Refused before any comparison: a locked guess is neither counted nor logged again.
    assert.equal(logs.withMessage('wrong ADMIN_TOKEN').length, 10);
    const { rows } = await throttled.server.pool.query("SELECT key, failures FROM auth_failures WHERE kind = 'operator'");
    assert.deepEqual(rows, [{ key: '127.0.0.1', failures: 10 }]);
  });

  it('the lock lifts once the window (AUTH_FAILURE_WINDOW_SECONDS, 60) has passed: the right token is served again', async () => {
    for (let i = 0; i < 10; i++) assertWrongOnAdmin(await admin(throttled, `guess-${i}`));
    assertLocked(await admin(throttled, ADMIN_TOKEN));
    // Moved back rather than waited for.
    await throttled.server.pool.query("UPDATE auth_failures SET window_started_at = window_started_at - interval '61 seconds'");
    const served = await admin(throttled, ADMIN_TOKEN);
    assert.equal(served.status, 200, served.text);
    // The window after starts from nothing: one more wrong token is a 401 again.
    assertWrongOnAdmin(await admin(throttled, 'guess-after'));
  });

  it('a request without a token is refused but is no guess: it is not counted', async () => {
    for (let i = 0; i < 12; i++) assertWrongOnAdmin(await admin(throttled));
    assert.equal((await admin(throttled, ADMIN_TOKEN)).status, 200);
    assert.deepEqual(logs.withMessage('wrong ADMIN_TOKEN'), []);
  });

  it('the count is in the database: another process on it refuses the address too', async () => {
    for (let i = 0; i < 10; i++) assertWrongOnAdmin(await admin(throttled, `guess-${i}`));
    const second = await startTestServer(throttled.database, { env: { ADMIN_TOKEN } });
    try {
      assertLocked(await http('GET', `${second.base}/admin/clients`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }));
    } finally {
      await second.close();
    }
  });
});

describe("wrong ADMIN_TOKENs at the console's operator sign-in", () => {
  it('the first 10 are 401s, each logged at warn without the guess; then 429 with Retry-After, the right token too', async () => {
    for (let i = 0; i < 10; i++) assertWrongAtSignIn(await operatorSignIn(throttled, `sign-in-guess-${i}`));
    const lines = logs.withMessage('wrong ADMIN_TOKEN');
    assert.equal(lines.length, 10);
    for (const line of lines) assertFailureLine(line, 'POST /console/api/session');
    assert.equal(JSON.stringify(logs.lines).includes('sign-in-guess'), false);

    assertLocked(await operatorSignIn(throttled, 'sign-in-guess-10'));
    const right = await operatorSignIn(throttled, ADMIN_TOKEN);
    assertLocked(right);
    assert.equal(right.headers.get('set-cookie'), null);
  });

  it('shares its count with /admin: 5 wrong at sign-in and 5 on /admin lock both', async () => {
    for (let i = 0; i < 5; i++) assertWrongAtSignIn(await operatorSignIn(throttled, `guess-${i}`));
    for (let i = 5; i < 10; i++) assertWrongOnAdmin(await admin(throttled, `guess-${i}`));
    assertLocked(await operatorSignIn(throttled, ADMIN_TOKEN));
    assertLocked(await admin(throttled, ADMIN_TOKEN));
  });
});

describe('mutation check: the same guesses with the throttle switched off (ADMIN_TOKEN_FAILURES_PER_ADDRESS=1000000)', () => {
  it('/admin: the 11th and 20th wrong guesses are 401s, not 429s, and the right token is served', async () => {
    for (let i = 0; i < 20; i++) assertWrongOnAdmin(await admin(unthrottled, `guess-${i}`));
    assert.equal((await admin(unthrottled, ADMIN_TOKEN)).status, 200);
  });

  it('console sign-in: the 11th and 20th wrong guesses are 401s, not 429s, and the right token signs in', async () => {
    for (let i = 0; i < 20; i++) assertWrongAtSignIn(await operatorSignIn(unthrottled, `guess-${i}`));
    assert.equal((await operatorSignIn(unthrottled, ADMIN_TOKEN)).status, 200);
  });
});

describe('behind a trusted proxy (TRUST_PROXY=127.0.0.1): wrong ADMIN_TOKENs count against the address the proxy names', () => {
  const proxied = useServer({ env: { ADMIN_TOKEN, TRUST_PROXY: '127.0.0.1' } });
  const viaProxy = (from: string, token: string) =>
    http('GET', `${proxied.server.base}/admin/clients`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from } });

  it("10 wrong tokens from one address lock that address out, not the operator's", async () => {
    await proxied.ready();
    for (let i = 0; i < 10; i++) assertWrongOnAdmin(await viaProxy('203.0.113.66', `guess-${i}`));
    assertLocked(await viaProxy('203.0.113.66', ADMIN_TOKEN));
    const operator = await viaProxy('198.51.100.7', ADMIN_TOKEN);
    assert.equal(operator.status, 200, operator.text);
    const { rows } = await proxied.server.pool.query("SELECT key, failures FROM auth_failures WHERE kind = 'operator'");
    assert.deepEqual(rows, [{ key: '203.0.113.66', failures: 10 }]);
  });

  it('without the proxy header the peer itself is the address, as before', async () => {
    await proxied.server.pool.query('DELETE FROM auth_failures');
    const direct = await http('GET', `${proxied.server.base}/admin/clients`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(direct.status, 200, direct.text);
  });
});
