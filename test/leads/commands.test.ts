/*
 * The lead operations of the CLI, run as a separate process on the test database:
 * `immogate leads erase` and `immogate leads redeliver`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { before, describe, it } from 'node:test';
import { freePort, http, waitFor, type TestServer, useServer } from '../helpers.js';
import { runCli } from '../processes.js';
import { leadRequest } from '../fixtures/leads.js';

const ROOT = '/seeker-leads/v1';
const fixture = useServer({
  worker: true,
  env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.05' },
  client: { intermediaries: ['agency-1'], scopes: ['leads:*'] },
});
let server: TestServer;
let bearer: string;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  // A fast retry schedule, so a delivery to a receiver that is down fails for good within a second.
  bearer = await fixture.token({ root: ROOT, intermediary: 'agency-1' });
});

function cli(args: string[]) {
  return runCli(args, { DATABASE_URL: fixture.database.url });
}

function call(method: string, path: string, body?: unknown) {
  return http(method, `${server.base}${ROOT}${path}`, { headers: { authorization: `Bearer ${bearer}` }, body });
}

async function postLead(email: string): Promise<string> {
  const result = await call('POST', '/leads', leadRequest({ email }));
  assert.equal(result.status, 200, result.text);
  const { rows } = await server.pool.query('SELECT id FROM leads WHERE request_id = $1', [
    (result.body as { requestId: string }).requestId,
  ]);
  return rows[0].id;
}

describe('immogate leads erase', () => {
  it('erases every lead of the author and prints what it did', async () => {
    const id = await postLead('Erase.Me@example.org');
    const result = await cli(['leads', 'erase', '--email', 'erase.me@example.org', '--json']);
    assert.deepEqual([result.code, result.stderr], [0, '']);
    assert.deepEqual(JSON.parse(result.stdout), { email: 'erase.me@example.org', leadsErased: 1, notificationsScrubbed: 0 });
    const { rows } = await server.pool.query(
      'SELECT first_name, last_name, message, phone_numbers, erased_at IS NOT NULL AS erased FROM leads WHERE id = $1',
      [id],
    );
    assert.deepEqual(rows, [{ first_name: null, last_name: null, message: null, phone_numbers: [], erased: true }]);
    const human = await cli(['leads', 'erase', '--email', 'erase.me@example.org']);
    assert.deepEqual(human, {
      code: 0,
      stdout: 'erased 0 lead(s) of erase.me@example.org; scrubbed 0 stored notification(s)\n',
      stderr: '',
    });
  });

  it('refuses something that is not an email address', async () => {
    assert.deepEqual(await cli(['leads', 'erase', '--email', 'nobody']), {
      code: 1,
      stdout: '',
      stderr: 'immogate: --email must be an email address, got "nobody"\n',
    });
  });
});

describe('immogate leads redeliver', () => {
  it('sends the failed notifications since a time again, once the receiver is back', async () => {
    const port = await freePort();
    const subscription = await call('POST', '/webhook/subscriptions', {
      url: `http://127.0.0.1:${port}/leads`,
      apiKey: 'cli-test-key-0123456789',
    });
    assert.equal(subscription.status, 201, subscription.text);
    const since = new Date(Date.now() - 1000).toISOString();
    const leadId = await postLead('redeliver@example.org');
    // Nobody listens on the port yet: the delivery fails for good.
    const [failed] = await waitFor(
      'the notification to fail',
      async () =>
        (await server.pool.query("SELECT id, state FROM webhook_deliveries WHERE payload -> 'metadata' ->> 'leadId' = $1", [leadId])).rows,
      (rows) => rows[0]?.state === 'FAILED',
    );
    const received: string[] = [];
    const receiver: Server = createServer((request, response) => {
      received.push(request.headers['webhook-id'] as string);
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    try {
      const result = await cli(['leads', 'redeliver', '--since', since, '--json']);
      assert.deepEqual([result.code, result.stderr], [0, '']);
      assert.deepEqual(JSON.parse(result.stdout), { redelivered: [{ deliveryId: failed.id, webhookId: leadId }], skipped: [] });
      await waitFor(
        'the redelivery',
        async () => received,
        (ids) => ids.length === 1,
      );
      // Redelivered under its webhook-id, the lead.received event's id: the lead's.
      assert.deepEqual(received, [leadId]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('reports an unknown delivery id and exits 1', async () => {
    const unknown = '0f6a4d2e-3b1c-4e5f-8a9b-7c6d5e4f3a2b';
    const result = await cli(['leads', 'redeliver', '--delivery', unknown]);
    assert.deepEqual(result, {
      code: 1,
      stdout: `redelivered 0 notification(s)\nskipped 1:\n  ${unknown}  no lead notification has this id or webhook-id\n`,
      stderr: '',
    });
  });

  it('needs exactly one of --delivery and --since, each well formed', async () => {
    const usage = (stderr: string) => ({ code: 1, stdout: '', stderr: `immogate: ${stderr}\n` });
    assert.deepEqual(await cli(['leads', 'redeliver']), usage('give exactly one of --delivery or --since'));
    assert.deepEqual(
      await cli(['leads', 'redeliver', '--delivery', 'x', '--since', '2026-01-01']),
      usage('give exactly one of --delivery or --since'),
    );
    assert.deepEqual(await cli(['leads', 'redeliver', '--since', 'yesterday']), usage('--since must be an ISO 8601 time, got "yesterday"'));
    assert.deepEqual(
      await cli(['leads', 'redeliver', '--delivery', 'abc']),
      usage('--delivery must be a delivery id or a webhook-id (a UUID), got "abc"'),
    );
  });
});
