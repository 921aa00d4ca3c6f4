/*
 * Leads to webhooks: leads posted at a fixed rate, delivered to loopback receivers.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROCESSING_STREAM as PROCESS_TASK } from '../../src/apis/classifieds/jobs.js';
import { WEBHOOKS_STREAM as DELIVER_WEBHOOK } from '../../src/platform/delivery/index.js';
import type { Measurement } from '../driver.js';
import { acknowledgedRate } from '../fixedRate.js';
import { ask } from '../ipc.js';
import { loadWithBacklog, startWorkerChild } from '../endToEnd.js';
import type { Receipt } from '../loopback.js';
import { mediansBySecond, spread } from '../percentiles.js';
import { wallClock } from '../clock.js';
import { warmUp } from '../warmUp.js';
import { CONNECTIONS, USER_AGENT, type Context, type Scenario } from './types.js';

/**
 * Leads posted at 200/s to an agency with two ACTIVE webhook subscriptions, both
 * on loopback receivers (bench/loopback.ts, a process of its own), delivered by the worker of a
 * server+worker immogate child. Per delivery: the time from the lead's POST (when the generator
 * had it due) to the moment its receiver had the whole notification.
 */
const AGENCY = 'bench-agency';
const ROOT = '/seeker-leads/v1';
const RATE = 200;
const HOOKS = ['a', 'b'];
/** How long after the load stops a notification may still arrive before it counts as lost. */
const GRACE_MS = 10_000;

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${ROOT}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': USER_AGENT,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

/** Exactly two ACTIVE subscriptions, one per receiver: any left by an earlier invocation on the same database go first. */
async function subscribe(base: string, token: string, receivers: string): Promise<void> {
  const existing = await call(base, token, 'GET', '/webhook/subscriptions?limit=100');
  if (existing.status !== 200) throw new Error(`listing subscriptions failed: ${existing.status} ${JSON.stringify(existing.json)}`);
  for (const item of existing.json.items as { subscriptionId: string }[])
    await call(base, token, 'DELETE', `/webhook/subscriptions/${item.subscriptionId}`);
  for (const hook of HOOKS) {
    const created = await call(base, token, 'POST', '/webhook/subscriptions', {
      url: `${receivers}/hooks/${hook}`,
      apiKey: randomBytes(24).toString('hex'),
    });
    if (created.status !== 201) throw new Error(`subscribing ${hook} failed: ${created.status} ${JSON.stringify(created.json)}`);
  }
}

export const leads: Scenario = {
  name: 'leads',
  about:
    'POST /seeker-leads/v1/leads at 200/s for 30 s, two ACTIVE subscriptions on loopback receivers, server+worker child: POST (due time) to receipt',
  target: 'p50 <= 20 ms, p99 <= 100 ms, nothing lost (issue 6, kept by issue 25)',
  met: (row) => row.p50 <= 20 && row.p99 <= 100 && row.lost === 0,
  ratios: false,
  runs: 1,
  seconds: 30,
  async setup(context: Context) {
    // The classifieds' processing jobs left by the post runs would compete with the deliveries.
    const { loopback, immogate, stop } = await startWorkerChild(context, PROCESS_TASK, 'leads');
    try {
      const token = await context.issueToken(immogate.address, { root: ROOT, agency: AGENCY, scopes: ['leads:*'] });
      await subscribe(immogate.address, token, loopback.address);

      const load = {
        url: immogate.address,
        path: `${ROOT}/leads`,
        headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
        body: { kind: 'lead' },
        rate: RATE,
        connections: CONNECTIONS,
      } as const;
      await warmUp(context.pool, load, DELIVER_WEBHOOK, 'leads');

      const run = async (seconds: number): Promise<Measurement> => {
        const prefix = `leads-${Date.now()}`;
        await ask(loopback.child, 'receipts');
        const { generated, backlogSamples, backlog } = await loadWithBacklog(context.pool, DELIVER_WEBHOOK, { ...load, seconds, prefix });
        const accepted = new Map(generated.sent.filter((sent) => sent.status === 200).map((sent) => [sent.key, sent]));
        const expected = accepted.size * HOOKS.length;

        // Receipts of this run's accepted leads, one per (lead, receiver); a second one is a duplicate delivery.
        const firsts = new Map<string, Receipt>();
        let duplicates = 0;
        let unreadable = 0;
        let strangers = 0;
        const collect = async () => {
          const answer = await ask<{ receipts: Receipt[]; unreadable: number }>(loopback.child, 'receipts');
          unreadable += answer.unreadable;
          for (const receipt of answer.receipts) {
            if (!accepted.has(receipt.key)) strangers++;
            else if (firsts.has(`${receipt.hook} ${receipt.key}`)) duplicates++;
            else firsts.set(`${receipt.hook} ${receipt.key}`, receipt);
          }
        };
        const graceStart = Date.now();
        await collect();
        while (firsts.size < expected && Date.now() - graceStart < GRACE_MS) {
          await sleep(250);
          await collect();
        }
        const graceUsedMs = Date.now() - graceStart;
        const graceEnd = wallClock();

        const latency = (receipts: Receipt[]) => spread(receipts.map((receipt) => receipt.at - accepted.get(receipt.key)!.sentAt));
        const all = [...firsts.values()];
        // A delivery that never came counts with the time it had waited when the grace ended: the
        // percentiles are then lower bounds, rather than figures that leave out the slowest.
        const missing = [...accepted.values()].flatMap((sent) =>
          HOOKS.filter((hook) => !firsts.has(`${hook} ${sent.key}`)).map(() => graceEnd - sent.sentAt),
        );
        const total = spread([...all.map((receipt) => receipt.at - accepted.get(receipt.key)!.sentAt), ...missing]);
        const perHook = Object.fromEntries(HOOKS.map((hook) => [hook, latency(all.filter((receipt) => receipt.hook === hook))]));
        const answers: Record<string, number> = {};
        for (const sent of generated.sent) answers[sent.status] = (answers[sent.status] ?? 0) + 1;
        const details = {
          rate: RATE,
          answers,
          expectedDeliveries: expected,
          received: firsts.size,
          missingCountedAtGraceEnd: missing.length,
          duplicates,
          unreadable,
          notFromThisRun: strangers,
          perReceiver: perHook,
          postToReceiptMedianEachSecond: mediansBySecond(
            all.map((receipt) => {
              const sentAt = accepted.get(receipt.key)!.sentAt;
              return { at: sentAt, value: receipt.at - sentAt };
            }),
          ),
          postAnswer: spread([...accepted.values()].map((sent) => sent.answeredAt - sent.sentAt)),
          // The delivery alone: from the POST's answer (the lead committed) to its receipt.
          answerToReceipt: spread(all.map((receipt) => receipt.at - accepted.get(receipt.key)!.answeredAt)),
          acknowledgedPerSecond: acknowledgedRate(generated.sent, [...accepted.values()]),
          backlogEverySecond: backlogSamples,
          graceUsedMs,
          generatorMaxLagMs: Math.round(generated.maxLagMs),
          ...(generated.firstFailure === undefined ? {} : { firstFailure: generated.firstFailure }),
        };
        if (generated.firstFailure) process.stderr.write(`leads: first failure: ${generated.firstFailure}\n`);
        process.stderr.write(
          `leads: ${accepted.size} accepted of ${generated.sent.length}; POST to receipt, median of each second ${JSON.stringify(details.postToReceiptMedianEachSecond)}; ${firsts.size} of ${expected} deliveries received (${duplicates} duplicates) after ${graceUsedMs} ms grace; ` +
            `POST answer p50 ${details.postAnswer.p50} ms, p99 ${details.postAnswer.p99} ms (${details.acknowledgedPerSecond} acknowledged/s); ` +
            `answer to receipt p50 ${details.answerToReceipt.p50} ms, p99 ${details.answerToReceipt.p99} ms; backlog each second ${JSON.stringify(backlogSamples)}\n`,
        );
        return {
          rps: details.acknowledgedPerSecond,
          p50: total.p50,
          p99: total.p99,
          max: total.max,
          errors: generated.sent.length - accepted.size,
          total: generated.sent.length,
          lost: expected - firsts.size,
          backlog,
          details,
        };
      };
      return { run, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  },
};
