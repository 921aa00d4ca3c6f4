/*
 * The soak: a mixed load for a long time (BENCH_SECONDS, 600 unless set) on a server+worker child,
 * every path that locks subscriptions, deliveries or work rows busy at once: classified POSTs and
 * PUTs (processing, status webhooks), GETs, leads (lead webhooks), both webhooks on loopback
 * receivers. What it reports beyond the figures is the child's own log: the count of `deadlock
 * detected` in it must be 0 (issue 23, item 5), as must the errors it logged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { PROCESSING_STREAM as PROCESS_TASK } from '../../src/apis/classifieds/jobs.js';
import { WEBHOOKS_STREAM as DELIVER_WEBHOOK } from '../../src/platform/delivery/index.js';
import { classifiedJson } from '../body.js';
import { wallClock } from '../clock.js';
import type { Measurement } from '../driver.js';
import { acknowledgedRate, loadAtFixedRate } from '../fixedRate.js';
import { ask } from '../ipc.js';
import { dropPendingJobs, pendingJobs } from '../jobs.js';
import type { Receipt } from '../loopback.js';
import { spread } from '../percentiles.js';
import { lateGrowth } from '../trend.js';
import type { RateResult, Sent } from '../rate.js';
import { USER_AGENT, type Scenario } from './types.js';

const AGENCY = 'soak-agency';
const LEADS = '/seeker-leads/v1';
const CAAS = '/caas/v4';
const RATES = { post: 40, put: 30, get: 30, leads: 20 };
/** Classifieds the PUTs and GETs go to, in turn. */
const TARGETS = 50;
const GRACE_MS = 15_000;
/** RSS of the last third of the run over that of the middle third (trend.ts) that still counts as no growth. */
const MAX_GROWTH = 1.1;

/** `rate` requests a second for `seconds` from this process (PUT and GET are light to send), each timed from its due time. */
async function paced(
  base: string,
  rate: number,
  seconds: number,
  request: (i: number) => { method: 'PUT' | 'GET'; path: string; body?: string; headers: Record<string, string> },
): Promise<Sent[]> {
  const pool = new Pool(base, { connections: 20 });
  const sent: Sent[] = [];
  const pending: Promise<void>[] = [];
  const t0 = wallClock();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - wallClock();
    if (wait > 0) await sleep(wait);
    const record: Sent = { key: String(i), sentAt: due, answeredAt: 0, status: 0 };
    sent.push(record);
    const { method, path: target, body, headers } = request(i);
    pending.push(
      pool
        .request({ origin: base, path: target, method, headers, body })
        .then(async (response) => {
          record.status = response.statusCode;
          await response.body.dump();
        })
        .catch(() => undefined)
        .finally(() => (record.answeredAt = wallClock())),
    );
  }
  await Promise.all(pending);
  await pool.close();
  return sent;
}

const ok = (sent: Sent[]) => sent.filter((s) => s.status >= 200 && s.status < 300);

/** The child's V8 heap in use, in MB, from its /metrics (prom-client's default metrics); undefined if unreadable. */
async function heapUsedMb(base: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${base}/metrics`)).text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text);
    return match ? Math.round(Number(match[1]) / 2 ** 20) : undefined;
  } catch {
    return undefined;
  }
}

/** One sample of the child every interval of the run: memory and backlog when taken, the p99 of each path over the requests due in the interval. */
interface Interval {
  /** Seconds into the run at the interval's end. */
  second: number;
  rssMb: number;
  heapUsedMb: number | undefined;
  backlog: { deliveries: number; classifieds: number };
  p99?: Record<PathName, number>;
}

type PathName = 'post' | 'put' | 'get' | 'lead' | 'leadToWebhook';

/** VmRSS of `pid` in kB. */
function rssKb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

function printIntervals(intervals: Interval[], step: number): void {
  const header = ['s', 'RSS MB', 'heap MB', 'deliveries', 'classifieds', 'p99 post', 'put', 'get', 'lead', 'lead→hook'];
  const lines = intervals.map((interval) =>
    [
      interval.second,
      interval.rssMb,
      interval.heapUsedMb ?? '?',
      interval.backlog.deliveries,
      interval.backlog.classifieds,
      ...(['post', 'put', 'get', 'lead', 'leadToWebhook'] as const).map((name) => interval.p99?.[name] ?? '-'),
    ].map(String),
  );
  process.stderr.write(`soak: every ${step} s: memory and backlog at the end of the interval, p99 ms of the requests due in it\n`);
  for (const cells of [header, ...lines]) process.stderr.write(`soak: ${cells.map((cell) => cell.padStart(12)).join('')}\n`);
}

export const soak: Scenario = {
  name: 'soak',
  about: `mixed load on a server+worker child: POST classifieds ${RATES.post}/s, PUT ${RATES.put}/s, GET ${RATES.get}/s, leads ${RATES.leads}/s, lead and status webhooks to loopback receivers; its log's deadlocks counted`,
  target: 'peak RSS <= 300 MB, no RSS growth (issue 25); 0 deadlock detected in the log, nothing lost (issue 23)',
  met(row) {
    const details = row.runs[0]?.details as { peakRssMb?: number; rssGrowth?: number; deadlocksLogged?: number } | undefined;
    if (details?.peakRssMb === undefined || details.rssGrowth === undefined) return undefined;
    return details.peakRssMb <= 300 && details.rssGrowth <= MAX_GROWTH && details.deadlocksLogged === 0 && row.lost === 0;
  },
  ratios: false,
  runs: 1,
  seconds: 600,
  async setup(context) {
    await dropPendingJobs(context.pool, PROCESS_TASK);
    await dropPendingJobs(context.pool, DELIVER_WEBHOOK);
    const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-soak-')), 'server.log');
    const loopback = await context.start('loopback', {});
    const immogate = await context.startImmogate({ BENCH_WORKER: '1', ALLOW_PRIVATE_TARGETS: 'true', BENCH_LOG_FILE: logFile });
    const stop = async () => {
      await immogate.stop();
      await loopback.stop();
    };
    try {
      const base = immogate.address;
      const [leadsToken, caasToken] = await Promise.all([
        context.issueToken(base, { root: LEADS, agency: AGENCY, scopes: ['leads:*'] }),
        context.issueToken(base, { root: CAAS, agency: AGENCY, scopes: ['caas:*'] }),
      ]);
      const headers = (token: string) => ({
        authorization: `Bearer ${token}`,
        'user-agent': USER_AGENT,
        'content-type': 'application/json',
      });
      const send = async (method: string, target: string, token: string, body: unknown, expected: number) => {
        const response = await fetch(`${base}${target}`, { method, headers: headers(token), body: JSON.stringify(body) });
        const text = await response.text();
        if (response.status !== expected) throw new Error(`${method} ${target}: ${response.status} ${text}`);
        return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      };
      await send(
        'POST',
        `${LEADS}/webhook/subscriptions`,
        leadsToken,
        { url: `${loopback.address}/hooks/soak`, apiKey: 'soak-api-key-0123456789' },
        201,
      );
      await send('PUT', `${CAAS}/webhooks`, caasToken, { url: `${loopback.address}/hooks/soak-statuses` }, 200);
      const prefix = `soak-${Date.now()}`;
      const targets: string[] = [];
      for (let i = 0; i < TARGETS; i++) {
        const key = `${prefix}-t${i}`;
        const created = await send(
          'POST',
          `${CAAS}/classifieds`,
          caasToken,
          JSON.parse(classifiedJson(key, `${loopback.address}/media`, { publishable: true })),
          202,
        );
        targets.push(String(created?.classifiedId));
      }

      const run = async (seconds: number): Promise<Measurement> => {
        process.stderr.write(`soak: ${seconds} s of mixed load\n`);
        const pid = immogate.child.pid!;
        let peakKb = rssKb(pid);
        // Per minute, or every 10 s in a run too short for a trend over minutes.
        const step = seconds < 180 ? 10 : 60;
        const intervals: Interval[] = [];
        const receipts = new Map<string, Receipt>();
        const collect = async () => {
          const answer = await ask<{ receipts: Receipt[] }>(loopback.child, 'receipts');
          for (const receipt of answer.receipts) if (receipt.hook === 'soak') receipts.set(receipt.key, receipt);
        };
        let tick = 0;
        const sampler = setInterval(() => {
          peakKb = Math.max(peakKb, rssKb(pid));
          tick += 1;
          if (tick % 5 === 0) void collect();
          if (tick % step === 0) {
            const second = tick;
            const rssMb = Math.round(rssKb(pid) / 1024);
            void Promise.all([heapUsedMb(base), pendingJobs(context.pool, DELIVER_WEBHOOK), pendingJobs(context.pool, PROCESS_TASK)]).then(
              ([heap, deliveries, classifieds]) => {
                intervals.push({ second, rssMb, heapUsedMb: heap, backlog: { deliveries, classifieds } });
                process.stderr.write(
                  `soak: ${second} s: RSS ${rssMb} MB, heap used ${heap ?? '?'} MB, backlog ${deliveries} deliveries, ${classifieds} classifieds\n`,
                );
              },
              () => undefined,
            );
          }
        }, 1000);
        const started = wallClock();
        let posts: RateResult;
        let leads: RateResult;
        let puts: Sent[];
        let gets: Sent[];
        try {
          [posts, leads, puts, gets] = await Promise.all([
            loadAtFixedRate({
              url: base,
              path: `${CAAS}/classifieds`,
              headers: headers(caasToken),
              body: { kind: 'classified', mediaBase: `${loopback.address}/media`, publishable: true },
              rate: RATES.post,
              seconds,
              connections: 20,
              prefix: `${prefix}-p`,
            }),
            loadAtFixedRate({
              url: base,
              path: `${LEADS}/leads`,
              headers: headers(leadsToken),
              body: { kind: 'lead' },
              rate: RATES.leads,
              seconds,
              connections: 20,
              prefix: `${prefix}-l`,
            }),
            paced(base, RATES.put, seconds, (i) => {
              const n = i % TARGETS;
              return {
                method: 'PUT',
                path: `${CAAS}/classifieds/${targets[n]}`,
                headers: headers(caasToken),
                body: classifiedJson(`${prefix}-t${n}`, `${loopback.address}/media`, { publishable: true }),
              };
            }),
            paced(base, RATES.get, seconds, (i) => ({
              method: 'GET',
              path: `${CAAS}/classifieds/${targets[i % TARGETS]}`,
              headers: { authorization: `Bearer ${caasToken}`, 'user-agent': USER_AGENT },
            })),
          ]);
        } finally {
          clearInterval(sampler);
        }
        const elapsed = (wallClock() - started) / 1000;
        const backlog = {
          deliveries: await pendingJobs(context.pool, DELIVER_WEBHOOK),
          classifieds: await pendingJobs(context.pool, PROCESS_TASK),
        };
        const leadsOk = new Map(ok(leads.sent).map((s) => [s.key, s]));
        const graceStart = Date.now();
        while (Date.now() - graceStart < GRACE_MS) {
          await collect();
          if ([...leadsOk.keys()].every((key) => receipts.has(key))) break;
          await sleep(500);
        }
        const lost = [...leadsOk.keys()].filter((key) => !receipts.has(key)).length;
        const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
        const deadlocks = log.filter((line) => line.includes('deadlock detected'));
        const errors = log.filter((line) => /"level":(50|60)/.test(line));
        const all = [...posts.sent, ...leads.sent, ...puts, ...gets];
        const answered = ok(all);
        const paths = {
          post: spread(ok(posts.sent).map((s) => s.answeredAt - s.sentAt)),
          put: spread(ok(puts).map((s) => s.answeredAt - s.sentAt)),
          get: spread(ok(gets).map((s) => s.answeredAt - s.sentAt)),
          lead: spread([...leadsOk.values()].map((s) => s.answeredAt - s.sentAt)),
          leadToWebhook: spread(
            [...leadsOk.entries()].filter(([key]) => receipts.has(key)).map(([key, s]) => receipts.get(key)!.at - s.sentAt),
          ),
        };
        // Each interval's p99 over the requests due in it (the answers of its last requests come after its sample).
        const inInterval = (s: Sent, interval: Interval) =>
          s.sentAt - started < interval.second * 1000 && s.sentAt - started >= (interval.second - step) * 1000;
        intervals.sort((a, b) => a.second - b.second);
        for (const interval of intervals) {
          const p99 = (sent: Sent[], end: (s: Sent) => number | undefined) =>
            spread(
              sent
                .filter((s) => inInterval(s, interval))
                .flatMap((s) => {
                  const at = end(s);
                  return at === undefined ? [] : [at - s.sentAt];
                }),
            ).p99;
          interval.p99 = {
            post: p99(ok(posts.sent), (s) => s.answeredAt),
            put: p99(ok(puts), (s) => s.answeredAt),
            get: p99(ok(gets), (s) => s.answeredAt),
            lead: p99([...leadsOk.values()], (s) => s.answeredAt),
            leadToWebhook: p99([...leadsOk.values()], (s) => receipts.get(s.key)?.at),
          };
        }
        printIntervals(intervals, step);
        const rssGrowth = lateGrowth(intervals.map((interval) => interval.rssMb));
        const heapGrowth = lateGrowth(intervals.flatMap((interval) => (interval.heapUsedMb === undefined ? [] : [interval.heapUsedMb])));
        const rates = {
          post: acknowledgedRate(posts.sent, ok(posts.sent)),
          put: acknowledgedRate(puts, ok(puts)),
          get: acknowledgedRate(gets, ok(gets)),
          leads: acknowledgedRate(leads.sent, [...leadsOk.values()]),
        };
        for (const [name, figures] of Object.entries(paths))
          process.stderr.write(`soak: ${name}: ${figures.count} ok, p50 ${figures.p50} ms, p99 ${figures.p99} ms, max ${figures.max} ms\n`);
        process.stderr.write(
          `soak: acknowledged/s ${JSON.stringify(rates)}; peak RSS ${Math.round(peakKb / 1024)} MB; ` +
            `RSS of the last third over the middle third x${rssGrowth?.toFixed(2)}, heap used x${heapGrowth?.toFixed(2)}; backlog at the end ${JSON.stringify(backlog)}; ` +
            `log: ${deadlocks.length} deadlock detected, ${errors.length} errors (${logFile})\n`,
        );
        for (const line of [...deadlocks, ...errors].slice(0, 3)) process.stderr.write(`soak: ${line.slice(0, 600)}\n`);
        const latencies = spread(answered.map((s) => s.answeredAt - s.sentAt));
        return {
          rps: Math.round(answered.length / elapsed),
          p50: latencies.p50,
          p99: latencies.p99,
          max: latencies.max,
          errors: all.length - answered.length,
          total: all.length,
          lost,
          backlog: backlog.deliveries + backlog.classifieds,
          details: {
            rates,
            paths,
            peakRssMb: Math.round(peakKb / 1024),
            rssGrowth,
            heapGrowth,
            intervalSeconds: step,
            intervals,
            deadlocksLogged: deadlocks.length,
            errorsLogged: errors.length,
            firstFailures: [posts.firstFailure, leads.firstFailure].filter(Boolean),
          },
        };
      };
      return { run, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  },
  // Its child is its own, not run.ts's: the peak RSS it measured goes in the table's column.
  cells: (row) => ({ 'peak RSS MB': (row.runs[0]?.details as { peakRssMb?: number } | undefined)?.peakRssMb ?? '-' }),
  note(row) {
    const details = row.runs[0]?.details as
      | { deadlocksLogged?: number; errorsLogged?: number; peakRssMb?: number; rssGrowth?: number; heapGrowth?: number }
      | undefined;
    if (!details) return undefined;
    return (
      `deadlock detected in the log: ${details.deadlocksLogged} (target 0); errors logged: ${details.errorsLogged}; peak RSS ${details.peakRssMb} MB; ` +
      `RSS of the run's last third over its middle third x${details.rssGrowth?.toFixed(2)} (no growth: <= x${MAX_GROWTH}), heap used x${details.heapGrowth?.toFixed(2)}`
    );
  },
};
