/*
 * A network partition between immogate and its database (a relay that drops everything both ways
 * for 10 s, then delivers what was held) under a steady load of two agencies: every request is
 * answered within 3 s (503 with Retry-After while the database is away), /ready says so within
 * 1 s, full service returns within 2 s of the heal, nothing acknowledged is lost, and no write
 * refused during the partition commits when it heals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { PartitionRelay } from '../fixtures/partition.js';
import { percentile, SteadyLoad, type Sent } from '../fixtures/steadyLoad.js';
import {
  assertProblem,
  createTestDatabase,
  getToken,
  http,
  makeClient,
  startTestServer,
  type TestClient,
  type TestDatabase,
  type TestServer,
  waitFor,
} from '../helpers.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';

const AGENCIES = ['agency-a', 'agency-b'] as const;
const QUIET_SECONDS = 5;
const PARTITION_SECONDS = 10;
const AFTER_SECONDS = 8;
/** Every request is answered within this, the partition's included. */
const ANSWER_BOUND_MS = 3_000;
const READY_BOUND_MS = 1_000;
const HEALED_WITHIN_MS = 2_000;
const UNAVAILABLE = 'The database is unavailable; retry later';

let database: TestDatabase;
let relay: PartitionRelay;
let server: TestServer;
let direct: Pool;
let client: TestClient;
const tokens: Record<string, string> = {};
const classifiedIds: Record<string, string> = {};

before(async () => {
  database = await createTestDatabase();
  direct = createPool(database.url, 2);
  const admin = new URL(database.url);
  relay = new PartitionRelay({ host: admin.hostname, port: Number(admin.port || 5432) });
  const port = await relay.listen();
  server = await startTestServer({ ...database, url: PartitionRelay.through(database.url, port) }, { worker: true });
  client = await makeClient(direct, [...AGENCIES], ['caas:*', 'leads:*']);
  for (const agency of AGENCIES) {
    tokens[`caas ${agency}`] = await getToken(server, client, { root: '/caas/v4', intermediary: agency });
    tokens[`leads ${agency}`] = await getToken(server, client, { root: '/seeker-leads/v1', intermediary: agency });
    const body = minimalClassified();
    body.data.metaData.source.offererEstateId = `PART-READ-${agency}`;
    const created = await http('POST', `${server.base}/caas/v4/classifieds`, {
      headers: { authorization: `Bearer ${tokens[`caas ${agency}`]}` },
      body,
    });
    assert.equal(created.status, 202, created.text);
    classifiedIds[agency] = (created.body as { classifiedId: string }).classifiedId;
  }
});

after(async () => {
  await server?.close();
  await relay?.close();
  await direct?.end();
  await database?.drop();
});

function load(): SteadyLoad {
  const base = server.base;
  return new SteadyLoad(
    AGENCIES.flatMap((agency) => [
      {
        name: `lead ${agency}`,
        rate: 3,
        send: (n: number) =>
          http('POST', `${base}/seeker-leads/v1/leads`, {
            headers: { authorization: `Bearer ${tokens[`leads ${agency}`]}` },
            body: leadRequest({ lastName: `Part-${agency}-${n}` }),
          }),
      },
      {
        name: `classified create ${agency}`,
        rate: 3,
        send: (n: number) => {
          const body = minimalClassified();
          body.data.metaData.source.offererEstateId = `PART-${agency}-${n}`;
          return http('POST', `${base}/caas/v4/classifieds`, { headers: { authorization: `Bearer ${tokens[`caas ${agency}`]}` }, body });
        },
      },
      {
        name: `classified read ${agency}`,
        rate: 2.5,
        send: () =>
          http('GET', `${base}/caas/v4/classifieds/${classifiedIds[agency]}`, {
            headers: { authorization: `Bearer ${tokens[`caas ${agency}`]}` },
          }),
      },
    ]),
  );
}

interface Probe {
  at: number;
  status: number;
  ms: number;
  detail: string | undefined;
}

/** /ready every 100 ms until stopped. */
function pollReady(): { stop(): Promise<Probe[]> } {
  const seen: Probe[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      const answer = await http('GET', `${server.base}/ready`);
      seen.push({ at, status: answer.status, ms: performance.now() - at, detail: (answer.body as { detail?: string }).detail });
      await sleep(100);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

const ms = (value: number) => Math.round(value);
const statusOf = (sent: Sent) => sent.result?.status ?? sent.error;

describe('a network partition between immogate and its database', () => {
  it('answers every request within 3 s, says so at /ready within 1 s, serves again within 2 s of the heal, and loses nothing', async () => {
    const traffic = load().start();
    await sleep(QUIET_SECONDS * 1000);
    const ready = pollReady();
    relay.partition();
    const partitionedAt = performance.now();
    await sleep(PARTITION_SECONDS * 1000);
    relay.heal();
    const healedAt = performance.now();
    await sleep(AFTER_SECONDS * 1000);
    await traffic.stop();
    const probes = await ready.stop();

    const slowest = Math.max(...traffic.sent.map((sent) => sent.ms));
    const during = traffic.between(partitionedAt + 200, healedAt - ANSWER_BOUND_MS);
    // Answered once the partition began (the poll was under way when it did).
    const firstReady503 = probes.find((probe) => probe.at + probe.ms >= partitionedAt && probe.status === 503);
    const firstReady200 = probes.find((probe) => probe.at >= healedAt && probe.status === 200);
    const afterHeal = traffic.between(healedAt + HEALED_WITHIN_MS, Number.POSITIVE_INFINITY);
    process.stderr.write(
      `# ${traffic.sent.length} requests, slowest answer ${ms(slowest)} ms, p99 ${ms(
        percentile(
          traffic.sent.map((sent) => sent.ms),
          99,
        ),
      )} ms; ` +
        `/ready 503 ${firstReady503 ? ms(firstReady503.at + firstReady503.ms - partitionedAt) : '-'} ms after the partition, ` +
        `200 ${firstReady200 ? ms(firstReady200.at + firstReady200.ms - healedAt) : '-'} ms after the heal; ` +
        `statuses during: ${JSON.stringify(Object.fromEntries([...new Set(during.map(statusOf))].map((s) => [s, during.filter((d) => statusOf(d) === s).length])))}\n`,
    );

    // Every request was answered, within the bound, the partition's included.
    assert.deepEqual(
      traffic.sent.filter((sent) => sent.result === undefined).map((sent) => sent.error),
      [],
    );
    assert.ok(slowest <= ANSWER_BOUND_MS, `the slowest answer took ${ms(slowest)} ms`);
    // During the partition: the 503 problem with Retry-After, each.
    assert.ok(during.length > 80, `${during.length} requests during the partition`);
    for (const sent of during) {
      assert.ok(sent.result);
      if ((sent.result.body as { detail?: string }).detail !== UNAVAILABLE)
        process.stderr.write(
          `# ${sent.kind} sent ${ms(sent.sentAt - partitionedAt)} ms into the partition, answered after ${ms(sent.ms)} ms: ${sent.result.text}\n`,
        );
      assertProblem(sent.result, 503, 'Service unavailable', UNAVAILABLE);
      assert.equal(sent.result.headers.get('retry-after'), '5');
    }
    // /ready said so within a second, each of its answers within a second.
    assert.ok(firstReady503 && firstReady503.at + firstReady503.ms - partitionedAt <= READY_BOUND_MS, JSON.stringify(firstReady503));
    assert.equal(firstReady503.detail, 'The database is not reachable');
    for (const probe of probes) assert.ok(probe.ms <= READY_BOUND_MS, `/ready took ${ms(probe.ms)} ms`);
    // Full service within 2 s of the heal.
    assert.ok(firstReady200 && firstReady200.at + firstReady200.ms - healedAt <= HEALED_WITHIN_MS, JSON.stringify(firstReady200));
    assert.ok(afterHeal.length > 50);
    for (const sent of afterHeal) assert.ok([200, 202].includes(sent.result?.status ?? 0), `${sent.kind}: ${sent.result?.text}`);

    // Nothing acknowledged is lost; nothing refused while the partition lasted committed when it healed
    // (after the sessions the partition left open had time to end: idle_in_transaction_session_timeout).
    await sleep(2_000);
    const leads = traffic.sent.filter((sent) => sent.kind.startsWith('lead'));
    const nameOf = (sent: Sent) => `Part-${sent.kind.slice('lead '.length)}-${sent.n}`;
    const { rows } = await direct.query<{ last_name: string }>("SELECT last_name FROM leads WHERE last_name LIKE 'Part-%'");
    const stored = new Set(rows.map((row) => row.last_name));
    assert.deepEqual(leads.filter((sent) => sent.result?.status === 200 && !stored.has(nameOf(sent))).map(nameOf), []);
    const refusedLater = during.filter((sent) => sent.kind.startsWith('lead')).map(nameOf);
    assert.deepEqual(
      refusedLater.filter((name) => stored.has(name)),
      [],
    );
    const created = traffic.sent.filter((sent) => sent.kind.startsWith('classified create') && sent.result?.status === 202);
    const ids = created.map((sent) => (sent.result?.body as { classifiedId?: string } | undefined)?.classifiedId ?? '');
    // The worker, partitioned too, finishes every acknowledged classified once the network is back.
    await waitFor(
      'every acknowledged classified to be processed',
      async () =>
        (
          await direct.query<{ n: number }>(
            "SELECT count(DISTINCT classified_id)::int AS n FROM classified_statuses WHERE classified_id = ANY($1::uuid[]) AND status IN ('CREATED', 'CREATED_WITH_MEDIA_ERROR', 'CREATING_FAILED')",
            [ids],
          )
        ).rows[0]?.n,
      (n) => n === ids.length,
      200,
      100,
    );
  });
});
