/*
 * A database that goes away under a running server (ALLOW_CONNECTIONS false, its backends
 * terminated), and one that turns read-only: every request that needs it gets the 503 problem
 * with Retry-After within the pool's connect timeout, the log tells the outage once (no stack per
 * request), the metric counts the refusals, and when the database is back the server is ready by
 * itself, takes writes, and its worker finishes what was acknowledged before.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { before, describe, it } from 'node:test';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { leadRequest } from '../fixtures/leads.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import {
  assertProblem,
  CapturedLogs,
  getToken,
  http,
  type HttpResult,
  startTestServer,
  type TestServer,
  tokensOfEachApi,
  useServer,
  waitFor,
} from '../helpers.js';
import { allowConnections, refuseConnections, setReadOnly } from './database.js';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const logs = new CapturedLogs();
const fixture = useServer({
  worker: true,
  env: { ADMIN_TOKEN, LOG_LEVEL: 'info' },
  logTo: logs.stream,
  client: { intermediaries: ['agency-1'], scopes: ['caas:*', 'clim:*', 'leads:*'] },
});

let server: TestServer;
const tokens: Record<string, string> = {};
let console_: ConsoleSession;

const STARTED = 'database unavailable: requests refused until it is back';
const ENDED = 'database available again: requests accepted';
const WORK_STARTED = 'database unavailable: work paused until it is back';
const WORK_ENDED = 'database available again: work resumed';
// Generous for a busy 2-core machine; the connect timeout is 1.5 s, and a refused connection fails at once.
const LATENCY_BOUND_MS = 4_000;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  Object.assign(tokens, await tokensOfEachApi(server, fixture.client, 'agency-1'));
  console_ = await ConsoleSession.asClient(server.base, fixture.client, 'agency-1', 'production');
});

function classified(n: number): Record<string, any> {
  const body = minimalClassified();
  body.data.metaData.source.offererEstateId = `OUT-${n}`;
  return body;
}

interface Probe {
  name: string;
  send: () => Promise<HttpResult>;
}

/** One GET and one write of each API, the token endpoint, the console's backend and /admin. */
function probes(classifiedId: string): Probe[] {
  const bearer = (api: string) => ({ authorization: `Bearer ${tokens[api]}` });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  return [
    { name: 'GET caas', send: () => http('GET', `${server.base}/caas/v4/classifieds/${classifiedId}`, { headers: bearer('caas') }) },
    {
      name: 'POST caas',
      send: () => http('POST', `${server.base}/caas/v4/classifieds`, { headers: bearer('caas'), body: classified(99) }),
    },
    { name: 'GET clim', send: () => http('GET', `${server.base}/import-listings/v1/listings/L-1`, { headers: bearer('clim') }) },
    {
      name: 'POST clim',
      send: () => http('POST', `${server.base}/import-listings/v1/listings`, { headers: bearer('clim'), body: berlinRentApartment() }),
    },
    {
      name: 'GET leads',
      send: () => http('GET', `${server.base}/seeker-leads/v1/leads?minDate=1700000000&maxDate=1700086400`, { headers: bearer('leads') }),
    },
    {
      name: 'POST leads',
      send: () => http('POST', `${server.base}/seeker-leads/v1/leads`, { headers: bearer('leads'), body: leadRequest() }),
    },
    {
      name: 'POST /oauth/token',
      send: () =>
        http('POST', `${server.base}/oauth/token`, {
          body: {
            grant_type: 'client_credentials',
            client_id: fixture.client.clientId,
            client_secret: fixture.client.secret,
            audience: `${server.base}/caas/v4`,
            intermediary_id: 'agency-1',
          },
        }),
    },
    { name: 'GET console', send: () => console_.request('GET', '/session') },
    {
      name: 'POST console sign-in',
      send: () =>
        http('POST', `${server.base}/console/api/session`, {
          body: {
            kind: 'integrator',
            clientId: fixture.client.clientId,
            clientSecret: fixture.client.secret,
            agency: 'agency-1',
            environment: 'production',
          },
        }),
    },
    { name: 'GET /admin', send: () => http('GET', `${server.base}/admin/pipeline`, { headers: admin }) },
    {
      name: 'POST /admin',
      send: () =>
        http('POST', `${server.base}/admin/clients`, { headers: admin, body: { name: 'during the outage', intermediaries: ['agency-9'] } }),
    },
  ];
}

function assertUnavailable(result: HttpResult, name: string): void {
  assert.equal(result.status, 503, `${name}: ${result.status} ${result.text}`);
  assertProblem(result, 503, 'Service unavailable', 'The database is unavailable; retry later');
  assert.equal(result.headers.get('retry-after'), '5', name);
}

async function timed(send: () => Promise<HttpResult>): Promise<{ result: HttpResult; ms: number }> {
  const started = performance.now();
  const result = await send();
  return { result, ms: performance.now() - started };
}

function refusedMetric(text: string, reason: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`immogate_requests_refused_total{reason="${reason}"}`));
  return Number(line?.split(' ').at(-1));
}

async function readyStatus(): Promise<number> {
  return (await http('GET', `${server.base}/ready`)).status;
}

async function processedCount(ids: string[]): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM classified_revisions WHERE classified_id = ANY($1) AND processed_at IS NOT NULL',
    [ids],
  );
  return rows[0]?.n ?? 0;
}

describe('the database refusing connections', () => {
  it('answers 503 problems with Retry-After at once, logs the outage once, and recovers by itself', async () => {
    // Acknowledged just before the outage: the worker may be in the middle of them when it starts.
    const acknowledged: string[] = [];
    for (let n = 0; n < 5; n++) {
      const result = await http('POST', `${server.base}/caas/v4/classifieds`, {
        headers: { authorization: `Bearer ${tokens.caas}` },
        body: classified(n),
      });
      assert.equal(result.status, 202, result.text);
      acknowledged.push((result.body as { classifiedId: string }).classifiedId);
    }
    const before = refusedMetric((await http('GET', `${server.base}/metrics`)).text, 'database_unavailable');
    assert.equal(before, 0);

    await refuseConnections(fixture.database.name);
    let slowest = 0;
    const list = probes(acknowledged[0] ?? '');
    for (const probe of list) {
      const { result, ms } = await timed(probe.send);
      assertUnavailable(result, probe.name);
      slowest = Math.max(slowest, ms);
    }
    const { result: ready, ms: readyMs } = await timed(() => http('GET', `${server.base}/ready`));
    assertProblem(ready, 503, 'Service unavailable', 'The database is not reachable');
    assert.equal(ready.headers.get('retry-after'), '5');
    slowest = Math.max(slowest, readyMs);
    assert.ok(slowest < LATENCY_BOUND_MS, `the slowest 503 took ${Math.round(slowest)} ms`);
    process.stderr.write(`# slowest 503 during the outage: ${Math.round(slowest)} ms\n`);

    // /health and /metrics need no database.
    assert.equal((await http('GET', `${server.base}/health`)).status, 200);
    const metrics = await http('GET', `${server.base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.equal(refusedMetric(metrics.text, 'database_unavailable'), list.length);

    assert.equal(logs.withMessage(STARTED).length, 1);
    assert.equal(logs.withMessage('request failed').length, 0);
    const outageLine = logs.withMessage(STARTED)[0] ?? {};
    assert.equal(outageLine.level, 40);
    assert.equal(outageLine.err, undefined);
    assert.match(String(outageLine.reason), /^(55000 database "immogate_t_[0-9a-f]+" is not currently accepting connections|57P01 .*)$/);

    const back = performance.now();
    await allowConnections(fixture.database.name);
    await waitFor('/ready to answer 200', readyStatus, (status) => status === 200, 200, 100);
    const readyAfterMs = performance.now() - back;
    process.stderr.write(`# ready again ${Math.round(readyAfterMs)} ms after the database accepted connections\n`);
    await waitFor(
      'the outage to be logged as over',
      async () => logs.withMessage(ENDED),
      (lines) => lines.length === 1,
      100,
      100,
    );
    assert.equal(logs.withMessage(ENDED)[0]?.refused, list.length);

    const lead = await http('POST', `${server.base}/seeker-leads/v1/leads`, {
      headers: { authorization: `Bearer ${tokens.leads}` },
      body: leadRequest(),
    });
    assert.equal(lead.status, 200, lead.text);
    const after = await http('POST', `${server.base}/caas/v4/classifieds`, {
      headers: { authorization: `Bearer ${tokens.caas}` },
      body: classified(6),
    });
    assert.equal(after.status, 202, after.text);
    acknowledged.push((after.body as { classifiedId: string }).classifiedId);

    // The worker resumed by itself: everything acknowledged, before the outage and after, is processed.
    const resumed = performance.now();
    await waitFor(
      'the acknowledged classifieds to be processed',
      () => processedCount(acknowledged),
      (n) => n === acknowledged.length,
      300,
      100,
    );
    process.stderr.write(
      `# acknowledged classifieds processed ${Math.round(performance.now() - resumed)} ms after the first write accepted\n`,
    );
    // The worker's outage, if its claims met it, was told once too, and its end.
    assert.ok(logs.withMessage(WORK_STARTED).length <= 1);
    assert.equal(logs.withMessage(WORK_ENDED).length, logs.withMessage(WORK_STARTED).length);
    const errors = logs.lines.filter((line) => Number(line.level) >= 50);
    assert.deepEqual(errors, []);
  });
});

describe('a read-only database', () => {
  it('refuses writes with the 503 problem and says so at /ready; reads go on', async () => {
    const created = await http('POST', `${server.base}/caas/v4/classifieds`, {
      headers: { authorization: `Bearer ${tokens.caas}` },
      body: classified(7),
    });
    assert.equal(created.status, 202, created.text);
    const id = (created.body as { classifiedId: string }).classifiedId;
    await setReadOnly(fixture.database.name, true);
    try {
      for (const probe of probes(id).filter((candidate) => candidate.name.startsWith('POST '))) {
        assertUnavailable(await probe.send(), probe.name);
      }
      const ready = await http('GET', `${server.base}/ready`);
      assertProblem(ready, 503, 'Service unavailable', 'The database is read-only');
      const read = await http('GET', `${server.base}/caas/v4/classifieds/${id}`, { headers: { authorization: `Bearer ${tokens.caas}` } });
      assert.equal(read.status, 200, read.text);
      const leads = await http('GET', `${server.base}/seeker-leads/v1/leads?minDate=1700000000&maxDate=1700086400`, {
        headers: { authorization: `Bearer ${tokens.leads}` },
      });
      assert.equal(leads.status, 200, leads.text);
      assert.equal(
        (await http('GET', `${server.base}/admin/pipeline`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
        200,
      );
    } finally {
      await setReadOnly(fixture.database.name, false);
    }
    await waitFor('/ready to answer 200', readyStatus, (status) => status === 200, 200, 100);
    const lead = await http('POST', `${server.base}/seeker-leads/v1/leads`, {
      headers: { authorization: `Bearer ${tokens.leads}` },
      body: leadRequest(),
    });
    assert.equal(lead.status, 200, lead.text);
  });
});

/**
 * A TCP relay to the test's PostgreSQL that can go silent: its connections are cut and new ones
 * accepted but never answered, as behind a dead host or a partition, where no refusal comes back.
 */
class SilentRelay {
  private silent = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => this.accept(socket));

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Cuts what is open; what connects from now on hangs. */
  goSilent(): void {
    this.silent = true;
    this.cutAll();
  }

  /** Relays again; the connections left hanging are cut, as a recovered network would reset them. */
  speak(): void {
    this.silent = false;
    this.cutAll();
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
    if (this.silent) return;
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(upstream);
    upstream.on('error', () => socket.destroy());
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      socket.destroy();
    });
    socket.on('close', () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
  }
}

describe('a database that does not answer at all', () => {
  it('answers the 503 problem when the connect timeout (1.5 s) runs out, within 2 s, and recovers', async () => {
    const admin = new URL(process.env.IMMOGATE_TEST_ADMIN_URL ?? '');
    const relay = new SilentRelay({ host: admin.hostname, port: Number(admin.port || 5432) });
    const port = await relay.listen();
    const relayed = new URL(fixture.database.url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(port);
    const other = await startTestServer({ ...fixture.database, url: relayed.toString() });
    try {
      const token = await getToken(other, fixture.client, { root: '/seeker-leads/v1', intermediary: 'agency-1' });
      relay.goSilent();
      const sends: Probe[] = [
        {
          name: 'GET leads',
          send: () =>
            http('GET', `${other.base}/seeker-leads/v1/leads?minDate=1700000000&maxDate=1700086400`, {
              headers: { authorization: `Bearer ${token}` },
            }),
        },
        {
          name: 'POST leads',
          send: () =>
            http('POST', `${other.base}/seeker-leads/v1/leads`, { headers: { authorization: `Bearer ${token}` }, body: leadRequest() }),
        },
      ];
      const answers = await Promise.all(sends.map((probe) => timed(probe.send)));
      for (const [index, { result }] of answers.entries()) assertUnavailable(result, sends[index]?.name ?? '');
      const slowest = Math.max(...answers.map(({ ms }) => ms));
      process.stderr.write(`# slowest 503 with a silent database: ${Math.round(slowest)} ms\n`);
      // The connect timeout is 1.5 s; the bound leaves room for a busy 2-core machine.
      assert.ok(slowest < LATENCY_BOUND_MS, `the slowest 503 took ${Math.round(slowest)} ms`);
      const ready = await http('GET', `${other.base}/ready`);
      assertProblem(ready, 503, 'Service unavailable', 'The database is not reachable');

      relay.speak();
      await waitFor(
        '/ready to answer 200',
        async () => (await http('GET', `${other.base}/ready`)).status,
        (status) => status === 200,
        100,
        100,
      );
      const lead = await http('POST', `${other.base}/seeker-leads/v1/leads`, {
        headers: { authorization: `Bearer ${token}` },
        body: leadRequest(),
      });
      assert.equal(lead.status, 200, lead.text);
    } finally {
      await other.close();
      await relay.close();
    }
  });
});
