/*
 * Free disk space under DATA_DIR below MIN_FREE_DISK_MB: on a small tmpfs (we are root in CI;
 * skipped where mount is not allowed) a file fills the disk past the threshold. Writes get the 507
 * problem, reads, tokens and the console's sign-in go on, /ready names the disk, a worker started
 * meanwhile claims nothing; removing the file makes it all work again by itself. The database is
 * the test's own (external to DATA_DIR): what is watched here is the disk of the uploaded media.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/log.js';
import { startServices, type Services } from '../../src/runtime.js';
import { minimalClassified } from '../fixtures/classifieds.js';
import { ConsoleSession } from '../fixtures/console.js';
import { leadRequest } from '../fixtures/leads.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import {
  assertProblem,
  CapturedLogs,
  createTestDatabase,
  getToken,
  http,
  type HttpResult,
  makeClient,
  startTestServer,
  TEST_SECRETS_KEY,
  type TestClient,
  type TestDatabase,
  type TestServer,
  tokensOfEachApi,
  waitFor,
} from '../helpers.js';

const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const DISK_MB = 48;
const MIN_FREE_MB = 24;
const FILLER_MB = 32;

let mountPoint: string;
let skipped: string | undefined;
let database: TestDatabase;
let server: TestServer;
let worker: Services | undefined;
let client: TestClient;
const tokens: Record<string, string> = {};
const logs = new CapturedLogs();
const workerLogs = new CapturedLogs();

before(async () => {
  mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_MB}m,mode=0700`, 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    skipped = `cannot mount a tmpfs here (${String(error).split('\n')[0]}): the disk tests need root`;
    return;
  }
  database = await createTestDatabase();
  server = await startTestServer(database, {
    env: { DATA_DIR: mountPoint, MIN_FREE_DISK_MB: String(MIN_FREE_MB), ADMIN_TOKEN, LOG_LEVEL: 'info' },
    logTo: logs.stream,
  });
  client = await makeClient(server.pool, ['agency-1'], ['caas:*', 'clim:*', 'leads:*']);
  Object.assign(tokens, await tokensOfEachApi(server, client, 'agency-1'));
});

after(async () => {
  await worker?.stop();
  if (server) await server.close();
  if (database) await database.drop();
  if (skipped === undefined) execFileSync('umount', [mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

const filler = () => path.join(mountPoint, 'filler');
const bearer = (api: string) => ({ authorization: `Bearer ${tokens[api]}` });

function classified(id: string): Record<string, any> {
  const body = minimalClassified();
  body.data.metaData.source.offererEstateId = id;
  return body;
}

async function readiness(): Promise<HttpResult> {
  return http('GET', `${server.base}/ready`);
}

async function processed(classifiedId: string): Promise<boolean> {
  const { rows } = await server.pool.query<{ done: boolean }>(
    'SELECT bool_and(processed_at IS NOT NULL) AS done FROM classified_revisions WHERE classified_id = $1',
    [classifiedId],
  );
  return rows[0]?.done === true;
}

function refusedMetric(text: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith('immogate_requests_refused_total{reason="disk_low"}'));
  return Number(line?.split(' ').at(-1));
}

describe('free disk space below MIN_FREE_DISK_MB', () => {
  it('refuses writes with 507, keeps reads, tokens and sign-in, pauses a worker, and recovers when space is freed', async (t) => {
    if (skipped !== undefined) {
      t.skip(skipped);
      return;
    }
    const posted = await http('POST', `${server.base}/caas/v4/classifieds`, { headers: bearer('caas'), body: classified('D-1') });
    assert.equal(posted.status, 202, posted.text);
    const pending = (posted.body as { classifiedId: string }).classifiedId;
    const listing = await http('POST', `${server.base}/import-listings/v1/listings`, {
      headers: bearer('clim'),
      body: berlinRentApartment(),
    });
    assert.equal(listing.status, 201, listing.text);
    assert.equal((await readiness()).status, 200);

    fs.writeFileSync(filler(), Buffer.alloc(FILLER_MB * 1024 * 1024, 1));
    const ready = await waitFor('/ready to name the disk', readiness, (result) => result.status === 503, 100, 100);
    assertProblem(ready, 503, 'Service unavailable', 'Free disk space under DATA_DIR is below MIN_FREE_DISK_MB');
    assert.equal(ready.headers.get('retry-after'), '5');

    const writes: [string, () => Promise<HttpResult>][] = [
      ['POST caas', () => http('POST', `${server.base}/caas/v4/classifieds`, { headers: bearer('caas'), body: classified('D-2') })],
      ['DELETE caas', () => http('DELETE', `${server.base}/caas/v4/classifieds/${pending}`, { headers: bearer('caas') })],
      [
        'POST clim',
        () => http('POST', `${server.base}/import-listings/v1/listings`, { headers: bearer('clim'), body: berlinRentApartment() }),
      ],
      ['POST leads', () => http('POST', `${server.base}/seeker-leads/v1/leads`, { headers: bearer('leads'), body: leadRequest() })],
      [
        'POST /admin',
        () =>
          http('POST', `${server.base}/admin/clients`, {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            body: { name: 'while the disk is low', intermediaries: ['agency-9'] },
          }),
      ],
    ];
    for (const [name, send] of writes) {
      const result = await send();
      assert.equal(result.status, 507, `${name}: ${result.status} ${result.text}`);
      assertProblem(
        result,
        507,
        'Insufficient storage',
        'The server is low on disk space and accepts no writes now; reads still work; retry later',
      );
      assert.equal(result.headers.get('retry-after'), '60', name);
    }

    // Reads, a token, and the console's sign-in and reads still work.
    const read = await http('GET', `${server.base}/caas/v4/classifieds/${pending}`, { headers: bearer('caas') });
    assert.equal(read.status, 200, read.text);
    const leads = await http('GET', `${server.base}/seeker-leads/v1/leads?minDate=1700000000&maxDate=1700086400`, {
      headers: bearer('leads'),
    });
    assert.equal(leads.status, 200, leads.text);
    assert.equal((await getToken(server, client, { root: '/caas/v4', intermediary: 'agency-1' })).length > 0, true);
    const session = await ConsoleSession.asClient(server.base, client, 'agency-1', 'production');
    assert.equal((await session.request('GET', '/session')).status, 200);

    // A worker started now reads the disk first: it claims nothing while it is low.
    worker = await startServices(
      loadConfig({
        DATABASE_URL: database.url,
        DATA_DIR: mountPoint,
        MIN_FREE_DISK_MB: String(MIN_FREE_MB),
        SECRETS_KEY: TEST_SECRETS_KEY,
        LOG_LEVEL: 'info',
      }),
      createLogger({ logLevel: 'info' }, workerLogs.stream),
      { server: false, worker: true },
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(await processed(pending), false, 'a worker claimed work while the disk was low');

    const metrics = await http('GET', `${server.base}/metrics`);
    assert.equal(refusedMetric(metrics.text), writes.length);
    const low = logs.withMessage('free disk space below MIN_FREE_DISK_MB: writes refused until there is more');
    assert.equal(low.length, 1);
    assert.equal(low[0]?.level, 40);
    assert.equal(low[0]?.dataDir, mountPoint);
    assert.equal(low[0]?.minFreeMb, MIN_FREE_MB);
    assert.equal(workerLogs.withMessage('free disk space below MIN_FREE_DISK_MB: new work refused until there is more').length, 1);

    const freed = performance.now();
    fs.rmSync(filler());
    await waitFor(
      '/ready to answer 200',
      async () => (await readiness()).status,
      (status) => status === 200,
      100,
      100,
    );
    process.stderr.write(`# ready ${Math.round(performance.now() - freed)} ms after the space was freed\n`);
    const again = await http('POST', `${server.base}/seeker-leads/v1/leads`, { headers: bearer('leads'), body: leadRequest() });
    assert.equal(again.status, 200, again.text);
    const ended = logs.withMessage('free disk space above MIN_FREE_DISK_MB again: writes accepted');
    assert.equal(ended.length, 1);
    assert.equal(ended[0]?.refused, writes.length);
    // The worker resumes by itself (its next claim, within its poll interval).
    await waitFor(
      'the pending classified to be processed',
      () => processed(pending),
      (done) => done,
      200,
      100,
    );
    process.stderr.write(
      `# worker resumed: pending work processed ${Math.round(performance.now() - freed)} ms after the space was freed\n`,
    );
  });
});
