/*
 * A table locked from outside (an operator's `LOCK TABLE leads IN ACCESS EXCLUSIVE MODE`, held 30 s)
 * under a steady load of two agencies: the requests that need the table are answered 503 at their
 * lock deadline (DATABASE_LOCK_TIMEOUT_MS, 2 s), rolled back, and none of them commits when the lock
 * goes; every other request goes on as before (its p99 within 2x its p99 before the lock, measured
 * in the same test, on a server that has met a lock before); /ready and /metrics answer within a
 * second throughout.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import pg from 'pg';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { percentile, SteadyLoad, type Sent } from '../fixtures/steadyLoad.js';
import { assertProblem, CapturedLogs, http, useServer } from '../helpers.js';

const logs = new CapturedLogs();
const fixture = useServer({
  worker: true,
  env: { LOG_LEVEL: 'warn' },
  logTo: logs.stream,
  client: { intermediaries: ['agency-a', 'agency-b'], scopes: ['caas:*', 'leads:*'] },
});

const AGENCIES = ['agency-a', 'agency-b'] as const;
const QUIET_SECONDS = 10;
/**
 * The quiet p99 the p99 while locked is held to twice of, at least this: on a shared 2-core
 * machine, scheduling alone moves a p99 of 10 ms by as much (a lock that held other requests up
 * made them wait seconds, before the pool was shared out).
 */
const QUIET_P99_FLOOR_MS = 25;
const LOCK_SECONDS = 30;
/** The lock met before the measured windows (see the test). */
const WARM_UP_LOCK_SECONDS = 4;
/** The lock deadline is 2 s; a 503 may take longer on a busy machine, never this long. */
const REFUSAL_BOUND_MS = 3_000;
const PROBE_BOUND_MS = 1_000;
const LOCKED = 'The request did not complete within its deadline: the data it needs is locked by other work; retry later';
const BUSY = 'The server is busy: no database connection became free in time; retry later';

const tokens: Record<string, string> = {};
const classifiedIds: Record<string, string> = {};

before(async () => {
  await fixture.ready();
  for (const agency of AGENCIES) {
    tokens[`caas ${agency}`] = await fixture.token({ root: '/caas/v4', intermediary: agency });
    tokens[`leads ${agency}`] = await fixture.token({ root: '/seeker-leads/v1', intermediary: agency });
    const body = minimalClassified();
    body.data.metaData.source.offererEstateId = `LOCK-READ-${agency}`;
    const created = await http('POST', `${fixture.server.base}/caas/v4/classifieds`, {
      headers: { authorization: `Bearer ${tokens[`caas ${agency}`]}` },
      body,
    });
    assert.equal(created.status, 202, created.text);
    classifiedIds[agency] = (created.body as { classifiedId: string }).classifiedId;
  }
});

/** Each agency's leads (the locked table), classified creates and reads (other tables): 17 requests a second in all. */
function load(): SteadyLoad {
  const base = fixture.server.base;
  return new SteadyLoad(
    AGENCIES.flatMap((agency) => [
      {
        name: `lead ${agency}`,
        rate: 3,
        send: (n: number) =>
          http('POST', `${base}/seeker-leads/v1/leads`, {
            headers: { authorization: `Bearer ${tokens[`leads ${agency}`]}` },
            body: leadRequest({ lastName: `Lock-${agency}-${n}` }),
          }),
      },
      {
        name: `classified create ${agency}`,
        rate: 3,
        send: (n: number) => {
          const body = minimalClassified();
          body.data.metaData.source.offererEstateId = `LOCK-${agency}-${n}`;
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

/** Polls `url` every `everyMs` until stopped: each answer's status and time. */
function poll(url: string, everyMs: number): { stop(): Promise<{ status: number; ms: number }[]> } {
  const seen: { status: number; ms: number }[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const answer = await http('GET', url);
      seen.push({ status: answer.status, ms: performance.now() - started });
      await sleep(everyMs);
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

/** Holds `LOCK TABLE leads IN ACCESS EXCLUSIVE MODE` for `seconds`, from a session of its own. */
async function holdLock(seconds: number): Promise<{ lockedAt: number; releasedAt: number }> {
  const holder = new pg.Client({ connectionString: fixture.database.url });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE leads IN ACCESS EXCLUSIVE MODE');
  const lockedAt = performance.now();
  await sleep(seconds * 1000);
  await holder.query('ROLLBACK');
  const releasedAt = performance.now();
  await holder.end();
  return { lockedAt, releasedAt };
}

const ms = (value: number) => Math.round(value);
const statuses = (sent: Sent[]) => [...new Set(sent.map((one) => one.result?.status ?? one.error))];

describe('a table locked from outside for 30 s', () => {
  it('refuses what needs it at the lock deadline, commits none of it later, and serves everything else as before', async () => {
    const traffic = load().start();
    // A server in service has met a lock before. The first lock of a process's life also pays for
    // the first runs of the refusal's code (the lock deadline's error, the 503, the stalled share):
    // on a busy machine the others' slowest requests in that lock's first second were 2-4x their
    // usual, enough to decide a p99 of 330 requests. That one-off is met here, before the measured
    // windows, so that they compare a lock with no lock; what it held up is still checked below
    // (every classified request answered 202 or 200).
    await holdLock(WARM_UP_LOCK_SECONDS);
    await sleep(3_000);
    // The probes run throughout, as a monitor's do: the quiet windows carry their load too, so the
    // comparison is of the lock alone (they once started with it, and their first answers, on new
    // connections, fell into the locked window only).
    const ready = poll(`${fixture.server.base}/ready`, 200);
    const metrics = poll(`${fixture.server.base}/metrics`, 1000);
    const quietFrom = performance.now();
    await sleep(QUIET_SECONDS * 1000);

    const { lockedAt, releasedAt } = await holdLock(LOCK_SECONDS);
    const quietAgainFrom = performance.now() + 3_000;
    await sleep(3_000 + QUIET_SECONDS * 1000);
    await traffic.stop();
    const readyAnswers = await ready.stop();
    const scrapes = await metrics.stop();

    const others = ['classified create', 'classified read'];
    // Quiet: before the lock and after it (once the leads it refused are retried no more).
    const quiet = [
      ...traffic.between(quietFrom + 1000, lockedAt, ...others),
      ...traffic.between(quietAgainFrom, Number.POSITIVE_INFINITY, ...others),
    ];
    const locked = traffic.between(lockedAt, releasedAt, ...others);
    const quietP99 = percentile(
      quiet.map((sent) => sent.ms),
      99,
    );
    const lockedP99 = percentile(
      locked.map((sent) => sent.ms),
      99,
    );
    // Leads sent while the lock was held, with time to meet their deadline before it went.
    const refused = traffic.between(lockedAt, releasedAt - REFUSAL_BOUND_MS, 'lead');
    process.stderr.write(
      `# other requests: quiet p99 (before and after) ${ms(quietP99)} ms (${quiet.length}), while the lock was held p99 ${ms(lockedP99)} ms (${locked.length}); ` +
        `leads refused: ${refused.length}, slowest ${ms(Math.max(...refused.map((sent) => sent.ms)))} ms; ` +
        `/ready slowest ${ms(Math.max(...readyAnswers.map((answer) => answer.ms)))} ms, /metrics slowest ${ms(Math.max(...scrapes.map((answer) => answer.ms)))} ms\n`,
    );

    // What the leads refused were told, and how soon.
    const byDetail = new Map<string, number[]>();
    for (const sent of refused) {
      const detail = String((sent.result?.body as { detail?: string } | undefined)?.detail ?? sent.error);
      byDetail.set(detail, [...(byDetail.get(detail) ?? []), ms(sent.ms)]);
    }
    for (const [detail, times] of byDetail) process.stderr.write(`# ${times.length} x ${detail} (slowest ${Math.max(...times)} ms)\n`);
    // Every other request was served, as fast as before the lock.
    // Every one of them, the warm-up lock's too.
    assert.deepEqual(statuses(traffic.sent.filter((sent) => sent.kind.startsWith('classified create'))), [202]);
    assert.deepEqual(statuses(traffic.sent.filter((sent) => sent.kind.startsWith('classified read'))), [200]);
    assert.ok(quiet.length > 180 && locked.length > 250, `${quiet.length} and ${locked.length} requests`);
    assert.ok(
      lockedP99 <= 2 * Math.max(quietP99, QUIET_P99_FLOOR_MS),
      `p99 ${ms(lockedP99)} ms while locked, ${ms(quietP99)} ms before and after`,
    );

    // What needed the table was refused at the lock deadline, or at once while its share of the
    // pool was held by requests waiting for the lock, within 3 s; or acknowledged, once the lock went.
    assert.ok(refused.length > 100, `${refused.length} leads`);
    for (const sent of refused) {
      assert.ok(sent.result, sent.error);
      if (sent.result.status === 200) continue;
      const detail = (sent.result.body as { detail?: string } | undefined)?.detail ?? '';
      assert.ok([LOCKED, BUSY].includes(detail), sent.result.text);
      assertProblem(sent.result, 503, 'Service unavailable', detail);
      assert.equal(sent.result.headers.get('retry-after'), '1');
      assert.ok(sent.ms <= REFUSAL_BOUND_MS, `a lead was refused after ${ms(sent.ms)} ms`);
    }

    // The probes never waited for the pool.
    assert.deepEqual([...new Set(readyAnswers.map((answer) => answer.status))], [200]);
    assert.deepEqual([...new Set(scrapes.map((answer) => answer.status))], [200]);
    for (const answer of [...readyAnswers, ...scrapes]) assert.ok(answer.ms <= PROBE_BOUND_MS, `a probe took ${ms(answer.ms)} ms`);

    // Exactly the acknowledged leads are there: nothing refused committed when the lock went.
    const leads = traffic.sent.filter((sent) => sent.kind.startsWith('lead'));
    const nameOf = (sent: Sent) => `Lock-${sent.kind.slice('lead '.length)}-${sent.n}`;
    const stored = new pg.Client({ connectionString: fixture.database.url });
    await stored.connect();
    const { rows } = await stored.query<{ last_name: string }>(
      "SELECT last_name FROM leads WHERE last_name LIKE 'Lock-%' ORDER BY last_name",
    );
    await stored.end();
    const acknowledged = leads.filter((sent) => sent.result?.status === 200).map(nameOf);
    assert.deepEqual(
      rows.map((row) => row.last_name),
      acknowledged.sort(),
    );
    assert.deepEqual(statuses(leads.filter((sent) => sent.result?.status !== 200)), [503]);

    // Refusals are no errors of immogate's: nothing was logged as a failed request.
    assert.deepEqual(logs.withMessage('request failed'), []);
  });
});
