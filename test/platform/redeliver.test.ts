/*
 * The operator's redelivery of webhooks of every API: `immogate deliveries redeliver` (a process
 * of its own) and POST /admin/deliveries/redeliveries, against a real immogate whose worker
 * delivers to receivers on loopback. A short retry schedule makes a delivery to a receiver that
 * is down fail for good within a second.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { minimalClassified } from '../fixtures/classifieds.js';
import {
  assertProblem,
  createTestDatabase,
  freePort,
  getToken,
  http,
  makeClient,
  startTestServer,
  waitFor,
  type HttpResult,
  type TestClient,
  type TestDatabase,
  type TestServer,
} from '../helpers.js';
import { runCli } from '../processes.js';
import { leadRequest } from '../fixtures/leads.js';

type Body = Record<string, any>;

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const REDELIVERIES = '/admin/deliveries/redeliveries';
const SECRET = 'a-receiver-secret-of-some-length';
const LEAD_KEY = 'lead-api-key-0123456789';

let database: TestDatabase;
let server: TestServer;
/** The same database served without ADMIN_TOKEN (and without a worker). */
let bare: TestServer;
let client: TestClient;
/** A port nobody listens on: every delivery there fails. */
let downPort: number;

before(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database, {
    worker: true,
    env: { ADMIN_TOKEN, ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.05' },
  });
  bare = await startTestServer(database);
  client = await makeClient(
    server.pool,
    ['agency-1', 'agency-2', 'agency-3', 'agency-4', 'agency-5', 'agency-6', 'agency-7'],
    ['caas:*', 'leads:*'],
  );
  downPort = await freePort();
});

after(async () => {
  await bare.close();
  await server.close();
  await database.drop();
});

// ---- receivers ----

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Records every request; answers 204, or holds the answer while `holding`. */
class Receiver {
  readonly requests: Received[] = [];
  holding = false;
  private readonly held: ServerResponse[] = [];
  private server?: Server;

  constructor(readonly port: number) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
        if (this.holding) this.held.push(response);
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  release(): void {
    this.holding = false;
    for (const response of this.held.splice(0)) response.writeHead(204).end();
  }

  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  arrived(count: number): Promise<Received[]> {
    return waitFor(
      `${count} request(s) at the receiver`,
      async () => this.requests,
      (requests) => requests.length >= count,
    );
  }
}

/** The payload of a received webhook, verified with the Standard Webhooks reference library. */
function verified(request: Received, secret: string): unknown {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
  );
  return new Webhook(Buffer.from(secret).toString('base64')).verify(request.body, headers);
}

// ---- the APIs, as a CRM uses them ----

interface Tenant {
  root: string;
  bearer: string;
}

async function tenant(root: string, agency: string): Promise<Tenant> {
  return { root, bearer: await getToken(server, client, { root, intermediary: agency }) };
}

function call(method: string, who: Tenant, path: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${server.base}${who.root}${path}`, { headers: { authorization: `Bearer ${who.bearer}` }, body });
}

/** Status webhooks of the CREATED statuses: one delivery per classified. */
async function subscribeCaas(who: Tenant, url: string, secret = SECRET): Promise<void> {
  const result = await call('PUT', who, '/webhooks', { url, statuses: ['CREATED'], secret });
  assert.equal(result.status, 200, result.text);
}

let estates = 0;
async function postClassified(who: Tenant): Promise<string> {
  const body = minimalClassified();
  body.portals = ['SL'];
  body.data.metaData.source.offererEstateId = `R-${++estates}`;
  const result = await call('POST', who, '/classifieds', body);
  assert.equal(result.status, 202, result.text);
  return (result.body as { classifiedId: string }).classifiedId;
}

async function subscribeLeads(who: Tenant, url: string): Promise<string> {
  const result = await call('POST', who, '/webhook/subscriptions', { url, apiKey: LEAD_KEY });
  assert.equal(result.status, 201, result.text);
  return (result.body as { subscriptionId: string }).subscriptionId;
}

async function postLead(who: Tenant): Promise<string> {
  const result = await call('POST', who, '/leads', leadRequest());
  assert.equal(result.status, 200, result.text);
  const { rows } = await server.pool.query('SELECT id FROM leads WHERE request_id = $1', [
    (result.body as { requestId: string }).requestId,
  ]);
  return rows[0].id;
}

interface Delivery {
  id: string;
  /** What the receiver sees as webhook-id: a status webhook's is the status event's id, not the delivery's. */
  webhookId: string;
  state: string;
  payload: Body;
}

/** The delivery whose payload has `value` at `path`, once it is in `state`. */
async function delivery(path: string[], value: string, state: string): Promise<Delivery> {
  const [row] = await waitFor(
    `the delivery of ${value} to be ${state}`,
    async () =>
      (
        await server.pool.query<Delivery>(
          'SELECT id, coalesce(event_id, id) AS "webhookId", state, payload FROM webhook_deliveries WHERE payload #>> $1 = $2',
          [path, value],
        )
      ).rows,
    (rows) => rows[0]?.state === state,
  );
  return row!;
}

const statusDelivery = (classifiedId: string, state = 'FAILED') => delivery(['classifiedId'], classifiedId, state);
const leadDelivery = (leadId: string, state = 'FAILED') => delivery(['metadata', 'leadId'], leadId, state);

async function attempts(id: string): Promise<number> {
  return (await server.pool.query<{ attempts: number }>('SELECT attempts FROM webhook_deliveries WHERE id = $1', [id])).rows[0]!.attempts;
}

/** A delivery as the command names it: its id and the webhook-id its receiver saw. */
const named = (delivery: Delivery) => ({ deliveryId: delivery.id, webhookId: delivery.webhookId });

function cli(args: string[]) {
  return runCli(['deliveries', 'redeliver', ...args], { DATABASE_URL: database.url });
}

/** A command that prints JSON and exits `code`, with nothing on stderr. */
async function cliJson(args: string[], code = 0): Promise<unknown> {
  const result = await cli([...args, '--json']);
  assert.deepEqual([result.code, result.stderr], [code, '']);
  return JSON.parse(result.stdout);
}

// ---- tests ----

describe('immogate deliveries redeliver', () => {
  it('brings failed classified status webhooks through once the receiver is back, by --delivery and by --since, with the same webhook-id', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const port = await freePort();
    const crm = await tenant('/caas/v4', 'agency-1');
    await subscribeCaas(crm, `http://127.0.0.1:${port}/hooks`);
    const first = await postClassified(crm);
    const a = await statusDelivery(first);
    const second = await postClassified(crm);
    const b = await statusDelivery(second);
    // The first attempt and the one retry of the schedule.
    assert.deepEqual([await attempts(a.id), await attempts(b.id)], [2, 2]);

    const receiver = new Receiver(port);
    await receiver.start();
    try {
      assert.deepEqual(await cli(['--delivery', b.id]), {
        code: 0,
        stdout: `redelivered 1 webhook(s):\n  ${b.id}  webhook-id ${b.webhookId}\n`,
        stderr: '',
      });
      const [toB] = await receiver.arrived(1);
      assert.deepEqual(
        [toB!.path, toB!.headers['webhook-id'], verified(toB!, SECRET)],
        [`/hooks/classifieds/${second}/statuses`, b.webhookId, b.payload],
      );
      assert.equal(b.payload.status, 'CREATED');
      await statusDelivery(second, 'DELIVERED');

      // b is delivered now: only a is a failure since then.
      assert.deepEqual(await cliJson(['--since', since]), { redelivered: [named(a)], skipped: [] });
      const [, toA] = await receiver.arrived(2);
      assert.deepEqual(
        [toA!.path, toA!.headers['webhook-id'], verified(toA!, SECRET)],
        [`/hooks/classifieds/${first}/statuses`, a.webhookId, a.payload],
      );
      await statusDelivery(first, 'DELIVERED');
      assert.deepEqual([await attempts(a.id), await attempts(b.id)], [3, 3]);

      // An operator may resend a delivered webhook: by id, whatever its state.
      assert.deepEqual(await cliJson(['--delivery', a.id]), { redelivered: [named(a)], skipped: [] });
      const [, , again] = await receiver.arrived(3);
      assert.deepEqual([again!.headers['webhook-id'], verified(again!, SECRET)], [a.webhookId, a.payload]);
      assert.equal(receiver.requests.length, 3);
    } finally {
      await receiver.stop();
    }
  });

  it('takes the webhook-id a receiver saw: a lead again to each of its subscriptions, a status webhook again; naming both ids', async () => {
    const receiver = new Receiver(await freePort());
    await receiver.start();
    try {
      const leads = await tenant('/seeker-leads/v1', 'agency-7');
      const first = await subscribeLeads(leads, `${receiver.base}/first`);
      const second = await subscribeLeads(leads, `${receiver.base}/second`);
      const leadId = await postLead(leads);
      const seen = await receiver.arrived(2);
      assert.deepEqual(
        seen.map((request) => request.headers['webhook-id']),
        [leadId, leadId],
      );
      const { rows } = await server.pool.query<{ id: string; subscription_id: string }>(
        "SELECT id, subscription_id FROM webhook_deliveries WHERE payload -> 'metadata' ->> 'leadId' = $1 ORDER BY created_at, id",
        [leadId],
      );
      assert.deepEqual(rows.map((row) => row.subscription_id).sort(), [first, second].sort());
      await leadDelivery(leadId, 'DELIVERED');
      const [one, two] = rows.map((row) => row.id) as [string, string];

      // The receiver knows the message by its webhook-id, the lead's id: every delivery of it goes again.
      assert.deepEqual(await cli(['--delivery', leadId]), {
        code: 0,
        stdout: `redelivered 2 webhook(s):\n  ${one}  webhook-id ${leadId}\n  ${two}  webhook-id ${leadId}\n`,
        stderr: '',
      });
      const again = (await receiver.arrived(4)).slice(2);
      assert.deepEqual(again.map((request) => request.path).sort(), ['/first', '/second']);
      assert.deepEqual(
        again.map((request) => request.headers['webhook-id']),
        [leadId, leadId],
      );
      // The delivery id names that one delivery only.
      assert.deepEqual(await cliJson(['--delivery', two]), { redelivered: [{ deliveryId: two, webhookId: leadId }], skipped: [] });
      const [third] = (await receiver.arrived(5)).slice(4);
      assert.equal(third!.path, rows[1]!.subscription_id === first ? '/first' : '/second');

      // A status webhook's webhook-id is its status event's id, not its delivery's.
      const crm = await tenant('/caas/v4', 'agency-7');
      await subscribeCaas(crm, `${receiver.base}/hooks`);
      const status = await statusDelivery(await postClassified(crm), 'DELIVERED');
      assert.notEqual(status.webhookId, status.id);
      assert.deepEqual(await cliJson(['--delivery', status.webhookId]), { redelivered: [named(status)], skipped: [] });
      await waitFor(
        'the status webhook again',
        async () => receiver.requests.filter((request) => request.headers['webhook-id'] === status.webhookId),
        (requests) => requests.length === 2,
      );
    } finally {
      await receiver.stop();
    }
  });

  it('narrows --since by --api, --agency and --environment', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const down = `http://127.0.0.1:${downPort}/hooks`;
    const production = await tenant('/caas/v4', 'agency-2');
    const sandbox = await tenant('/sandbox/caas/v4', 'agency-2');
    const other = await tenant('/caas/v4', 'agency-3');
    const leads = await tenant('/seeker-leads/v1', 'agency-2');
    for (const who of [production, sandbox, other]) await subscribeCaas(who, down);
    await subscribeLeads(leads, down);
    const inProduction = await statusDelivery(await postClassified(production));
    const inSandbox = await statusDelivery(await postClassified(sandbox));
    const ofAgency3 = await statusDelivery(await postClassified(other));
    const lead = await leadDelivery(await postLead(leads));

    // Each call takes one of them; the ones taken fail again meanwhile, but no later filter matches them.
    assert.deepEqual(await cliJson(['--since', since, '--api', 'leads', '--agency', 'agency-2']), {
      redelivered: [named(lead)],
      skipped: [],
    });
    assert.deepEqual(await cliJson(['--since', since, '--api', 'caas', '--agency', 'agency-2', '--environment', 'sandbox']), {
      redelivered: [named(inSandbox)],
      skipped: [],
    });
    assert.deepEqual(await cliJson(['--since', since, '--api', 'caas', '--environment', 'production', '--agency', 'agency-3']), {
      redelivered: [named(ofAgency3)],
      skipped: [],
    });
    assert.deepEqual(await cliJson(['--since', since, '--api', 'caas', '--agency', 'agency-2', '--environment', 'production']), {
      redelivered: [named(inProduction)],
      skipped: [],
    });
    // Nothing failed after now.
    assert.deepEqual(await cli(['--since', new Date(Date.now() + 60_000).toISOString()]), {
      code: 0,
      stdout: 'redelivered 0 webhook(s)\n',
      stderr: '',
    });
  });

  it('skips, saying why, an unknown id, a deleted classifieds subscription, an inactive lead subscription and a delivery being attempted', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const down = `http://127.0.0.1:${downPort}/hooks`;
    const crm = await tenant('/caas/v4', 'agency-4');
    const leads = await tenant('/seeker-leads/v1', 'agency-4');
    await subscribeCaas(crm, down);
    const status = await statusDelivery(await postClassified(crm));
    const subscription = await subscribeLeads(leads, down);
    const lead = await leadDelivery(await postLead(leads));
    assert.equal((await call('DELETE', crm, '/webhooks')).status, 200);
    const off = await call('PUT', leads, `/webhook/subscriptions/${subscription}`, { status: 'INACTIVE' });
    assert.equal(off.status, 200, off.text);

    assert.deepEqual(await cliJson(['--since', since, '--agency', 'agency-4']), {
      redelivered: [],
      skipped: [
        { ...named(status), reason: 'its subscription was deleted' },
        { ...named(lead), reason: 'its subscription is INACTIVE' },
      ],
    });
    // By id, a delivery that is not queued fails the command.
    assert.deepEqual(await cli(['--delivery', status.id]), {
      code: 1,
      stdout: `redelivered 0 webhook(s)\nskipped 1:\n  ${status.id}  webhook-id ${status.webhookId}  its subscription was deleted\n`,
      stderr: '',
    });
    assert.deepEqual(await cliJson(['--delivery', lead.id], 1), {
      redelivered: [],
      skipped: [{ ...named(lead), reason: 'its subscription is INACTIVE' }],
    });
    const unknown = '0f6a4d2e-3b1c-4e5f-8a9b-7c6d5e4f3a2b';
    assert.deepEqual(await cli(['--delivery', unknown]), {
      code: 1,
      stdout: `redelivered 0 webhook(s)\nskipped 1:\n  ${unknown}  no delivery has this id or webhook-id\n`,
      stderr: '',
    });
    assert.deepEqual(
      [(await statusDelivery(status.payload.classifiedId)).state, (await leadDelivery(lead.payload.metadata.leadId)).state],
      ['FAILED', 'FAILED'],
    );

    // A delivery whose attempt is under way is left to it: a second sender would only race it.
    const receiver = new Receiver(await freePort());
    receiver.holding = true;
    await receiver.start();
    try {
      const busy = await tenant('/caas/v4', 'agency-6');
      await subscribeCaas(busy, `${receiver.base}/hooks`);
      const classifiedId = await postClassified(busy);
      const [held] = await receiver.arrived(1);
      // The status webhook's webhook-id is its event's id; the operator names the delivery by its own id.
      const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE event_id = $1', [
        held!.headers['webhook-id'],
      ]);
      const id = rows[0]!.id;
      assert.deepEqual(await cliJson(['--delivery', id], 1), {
        redelivered: [],
        skipped: [{ deliveryId: id, webhookId: held!.headers['webhook-id'], reason: 'an attempt of it is under way' }],
      });
      receiver.release();
      await statusDelivery(classifiedId, 'DELIVERED');
      assert.deepEqual([receiver.requests.length, await attempts(id)], [1, 1]);
    } finally {
      await receiver.stop();
    }
  });

  it('refuses arguments it cannot act on, before touching anything', async () => {
    const usage = (stderr: string) => ({ code: 1, stdout: '', stderr: `immogate: ${stderr}\n` });
    assert.deepEqual(await cli([]), usage('give exactly one of --delivery or --since'));
    assert.deepEqual(
      await cli(['--delivery', '0f6a4d2e-3b1c-4e5f-8a9b-7c6d5e4f3a2b', '--since', '2026-01-01T00:00:00Z']),
      usage('give exactly one of --delivery or --since'),
    );
    assert.deepEqual(await cli(['--delivery', 'abc']), usage('--delivery must be a delivery id or a webhook-id (a UUID), got "abc"'));
    assert.deepEqual(await cli(['--since', 'yesterday']), usage('--since must be an ISO 8601 time, got "yesterday"'));
    assert.deepEqual(
      await cli(['--delivery', '0f6a4d2e-3b1c-4e5f-8a9b-7c6d5e4f3a2b', '--agency', 'agency-1']),
      usage('--agency applies only with --since'),
    );
    const unknownApi = await cli(['--since', '2026-01-01T00:00:00Z', '--api', 'clim']);
    assert.equal(unknownApi.code, 2);
    assert.equal(unknownApi.stdout, '');
    assert.ok(
      unknownApi.stderr.startsWith("error: option '--api <api>' argument 'clim' is invalid. Allowed choices are caas, leads.\n"),
      unknownApi.stderr,
    );
  });
});

describe('POST /admin/deliveries/redeliveries', () => {
  const redeliver = (body: unknown, target: TestServer = server, authorization: string | null = `Bearer ${ADMIN_TOKEN}`) =>
    http('POST', `${target.base}${REDELIVERIES}`, { headers: authorization === null ? {} : { authorization }, body });
  const invalid = (errors: { name: string; reason: string }[]) => ({ errors, errorSource: 'body' });
  const unknown = '0f6a4d2e-3b1c-4e5f-8a9b-7c6d5e4f3a2b';

  it('does not exist without ADMIN_TOKEN, and needs it when set', async () => {
    assertProblem(await redeliver({ deliveryId: unknown }, bare), 404, 'Not found', `No resource at POST ${REDELIVERIES}`);
    const detail = 'The operator endpoints need Authorization: Bearer <ADMIN_TOKEN>';
    const missing = await redeliver({ deliveryId: unknown }, server, null);
    assertProblem(missing, 401, 'Unauthorized', detail);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    assertProblem(await redeliver({ deliveryId: unknown }, server, 'Bearer not-the-operator-token-at-all'), 401, 'Unauthorized', detail);
    const crm = await tenant('/caas/v4', 'agency-5');
    assertProblem(await redeliver({ deliveryId: unknown }, server, `Bearer ${crm.bearer}`), 401, 'Unauthorized', detail);
  });

  it('validates its body, naming the field', async () => {
    const problem = async (body: unknown, errors: { name: string; reason: string }[]) =>
      assertProblem(await redeliver(body), 400, 'Bad request', 'Your request has not been validated', invalid(errors));
    const oneOf = 'give exactly one of deliveryId and since.';
    await problem({}, [
      { name: '/deliveryId', reason: oneOf },
      { name: '/since', reason: oneOf },
    ]);
    await problem({ deliveryId: unknown, since: '2026-01-01T00:00:00Z' }, [
      { name: '/deliveryId', reason: oneOf },
      { name: '/since', reason: oneOf },
    ]);
    await problem({ deliveryId: unknown, agency: 'agency-5', environment: 'production' }, [
      { name: '/agency', reason: 'applies only with since.' },
      { name: '/environment', reason: 'applies only with since.' },
    ]);
    await problem({ since: '2026-01-01T00:00:00Z', reason: 'receiver back' }, [
      { name: '/reason', reason: 'must NOT have additional properties: reason.' },
    ]);
    await problem({ deliveryId: 'abc' }, [{ name: '/deliveryId', reason: 'must match format "uuid".' }]);
    await problem({ since: 'yesterday', api: 'clim', environment: 'staging' }, [
      { name: '/since', reason: 'must match format "date-time".' },
      { name: '/api', reason: 'must be equal to one of the allowed values: caas, leads.' },
      { name: '/environment', reason: 'must be equal to one of the allowed values: production, sandbox.' },
    ]);
    await problem([], [{ name: '', reason: 'must be object.' }]);
  });

  it('redelivers and answers the outcome per delivery; a subscription replaced by PUT /webhooks gets them at its new address', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const crm = await tenant('/caas/v4', 'agency-5');
    await subscribeCaas(crm, `http://127.0.0.1:${downPort}/hooks`);
    const classifiedId = await postClassified(crm);
    const failed = await statusDelivery(classifiedId);
    // The CRM moves its receiver and changes its key: the same subscription, so its failures follow.
    const receiver = new Receiver(await freePort());
    await receiver.start();
    try {
      await subscribeCaas(crm, `${receiver.base}/moved`, 'the-new-receiver-secret-0123456');
      const result = await redeliver({ since, api: 'caas', agency: 'agency-5', environment: 'production' });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(result.body, { redelivered: [failed.id], skipped: [] });
      const [request] = await receiver.arrived(1);
      assert.deepEqual(
        [request!.path, request!.headers['webhook-id'], verified(request!, 'the-new-receiver-secret-0123456')],
        [`/moved/classifieds/${classifiedId}/statuses`, failed.webhookId, failed.payload],
      );
      await statusDelivery(classifiedId, 'DELIVERED');
    } finally {
      await receiver.stop();
    }
    const byId = await redeliver({ deliveryId: unknown });
    assert.equal(byId.status, 200, byId.text);
    assert.deepEqual(byId.body, { redelivered: [], skipped: [{ deliveryId: unknown, reason: 'no delivery has this id' }] });
  });
});
