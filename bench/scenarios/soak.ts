/*
 * The soak: a mixed load for a long time (BENCH_SECONDS, 600 unless set) on `immogate start` as a
 * user runs it (a primary, a server process and a worker process), every path that locks
 * subscriptions, deliveries or work rows busy at once: classified POSTs and PUTs (processing,
 * status webhooks), GETs, leads (lead webhooks), both webhooks to loopback receivers.
 *
 * What it holds immogate to (issue 33): the worker keeps pace with what the server admits, so the
 * lag of each webhook (a status from when it was recorded, a lead from when it was posted) has a
 * p99 of at most 5 s in every minute, and the backlog at the end is no larger than at the start;
 * all of immogate's processes together stay under 400 MB, none growing from the middle third of
 * the run to the last; the log holds no `deadlock detected` and no error; nothing is lost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { PROCESSING_STREAM as PROCESS_TASK } from '../../src/apis/classifieds/jobs.js';
import { WEBHOOKS_STREAM as DELIVER_WEBHOOK } from '../../src/platform/delivery/index.js';
import { freePort } from '../../test/helpers.js';
import { classifiedJson } from '../body.js';
import { wallClock } from '../clock.js';
import type { Measurement } from '../driver.js';
import { acknowledgedRate, loadAtFixedRate } from '../fixedRate.js';
import { isNode, processTree, roleOf, rssKb, startCommand, stopCommand, untilReady } from '../immogateCommand.js';
import { ask } from '../ipc.js';
import { dropPendingJobs, pendingJobs } from '../jobs.js';
import type { Receipt } from '../loopback.js';
import { spread } from '../percentiles.js';
import type { RateResult, Sent } from '../rate.js';
import { lateGrowth } from '../trend.js';
import { LOAD_TEST_LIMITS, USER_AGENT, type Scenario } from './types.js';

const AGENCY = 'soak-agency';
const LEADS = '/seeker-leads/v1';
const CAAS = '/caas/v4';
const RATES = { post: 40, put: 30, get: 30, leads: 20 };
/** Classifieds the PUTs and GETs go to, in turn. */
const TARGETS = 50;
/** After the load: how long its last webhooks may take before what has not arrived counts as late by that much. */
const GRACE_MS = 30_000;
/** The targets of issue 33. */
const LAG_P99_MS = 5_000;
const PEAK_RSS_MB = 400;
const MAX_GROWTH = 1.1;
const BACKLOG_GROWTH = 1.1;

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

/** One sample a second: each immogate process's RSS, and the backlog of both queues. */
interface Sample {
  /** Seconds into the run. */
  second: number;
  rssKbByPid: Record<number, number>;
  backlog: number;
}

/** One minute of the run (or ten seconds of a short one): the p99 lag of what was created in it, the backlog and memory at its end. */
interface Interval {
  second: number;
  statusLagP99: number;
  statusLagP50: number;
  statusWriteToWebhookP99: number;
  leadLagP99: number;
  backlog: number;
  rssMb: number;
}

/** A status the worker recorded for the soak's agency: its id and when (epoch ms). */
async function statusesSince(context: Parameters<Scenario['setup']>[0], since: number): Promise<Map<string, number>> {
  const { rows } = await context.pool.query<{ id: string; at: number }>(
    `SELECT status_id AS id, extract(epoch FROM status_date)::float8 * 1000 AS at
       FROM classified_statuses WHERE environment = 'production' AND agency_id = $1 AND status_date >= to_timestamp($2 / 1000.0)`,
    [AGENCY, since],
  );
  return new Map(rows.map((row) => [row.id, row.at]));
}

function printIntervals(intervals: Interval[], step: number): void {
  const header = ['s', 'status p50', 'status p99', 'write→hook', 'lead p99', 'backlog', 'RSS MB'];
  const lines = intervals.map((i) =>
    [i.second, i.statusLagP50, i.statusLagP99, i.statusWriteToWebhookP99, i.leadLagP99, i.backlog, i.rssMb].map(String),
  );
  process.stderr.write(
    `soak: each ${step} s, by when things were created in it: lag ms of status webhooks (from the status) and lead webhooks (from the POST); backlog and RSS of all immogate processes at its end\n`,
  );
  for (const cells of [header, ...lines]) process.stderr.write(`soak: ${cells.map((cell) => cell.padStart(12)).join('')}\n`);
}

interface SoakDetails {
  peakRssMb: number;
  /** Each process's own peak, by what it is (primary, server, worker). */
  peakRssMbByProcess: Record<string, number>;
  rssGrowthByProcess: Record<string, number | undefined>;
  worstLagP99Ms: { status: number; lead: number };
  backlogFirst: number;
  backlogLast: number;
  deadlocksLogged: number;
  errorsLogged: number;
}

export const soak: Scenario = {
  name: 'soak',
  about: `mixed load on \`immogate start\`: POST classifieds ${RATES.post}/s, PUT ${RATES.put}/s, GET ${RATES.get}/s, leads ${RATES.leads}/s, lead and status webhooks to loopback receivers`,
  target: `status and lead webhook lag p99 <= ${LAG_P99_MS / 1000} s in every minute; backlog at the end <= x${BACKLOG_GROWTH} the start; all processes' peak RSS <= ${PEAK_RSS_MB} MB, none growing over x${MAX_GROWTH}; 0 deadlocks, 0 errors logged, nothing lost (issues 23, 25, 33)`,
  met(row) {
    const d = row.runs[0]?.details as SoakDetails | undefined;
    if (!d) return undefined;
    const growths = Object.values(d.rssGrowthByProcess).filter((g): g is number => g !== undefined);
    return (
      d.worstLagP99Ms.status <= LAG_P99_MS &&
      d.worstLagP99Ms.lead <= LAG_P99_MS &&
      d.backlogLast <= Math.max(BACKLOG_GROWTH * d.backlogFirst, d.backlogFirst + 100) &&
      d.peakRssMb <= PEAK_RSS_MB &&
      growths.every((g) => g <= MAX_GROWTH) &&
      d.deadlocksLogged === 0 &&
      d.errorsLogged === 0 &&
      row.lost === 0
    );
  },
  ratios: false,
  runs: 1,
  seconds: 600,
  async setup(context) {
    await dropPendingJobs(context.pool, PROCESS_TASK);
    await dropPendingJobs(context.pool, DELIVER_WEBHOOK);
    const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-soak-')), 'immogate.log');
    const loopback = await context.start('loopback', {});
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // As a user starts it, plus the bench's database and DATA_DIR (its secrets.key opens what the
    // database holds); one agency at 90 writes a second is the load, not a tenant over its quota,
    // but the backlog bounds are the defaults: a worker that fell behind would meet them.
    const command = startCommand(
      {
        ...process.env,
        DATABASE_URL: context.databaseUrl,
        DATA_DIR: context.dataDir,
        PORT: String(port),
        ALLOW_PRIVATE_TARGETS: 'true',
        LOG_LEVEL: 'warn',
        ...LOAD_TEST_LIMITS,
        MAX_BACKLOG_PER_AGENCY: '10000',
        MAX_WAITING_PER_AGENCY: '1000',
      },
      logFile,
      context.profileFlags(),
    );
    const stop = async () => {
      await stopCommand(command);
      await loopback.stop();
    };
    try {
      await untilReady(command, base, { pollMs: 50, timeoutMs: 60_000 });
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
      await send('PUT', `${CAAS}/webhooks`, caasToken, { url: `${loopback.address}/hooks/statuses` }, 200);
      const prefix = `soak-${Date.now()}`;
      const targets: string[] = [];
      for (let i = 0; i < TARGETS; i++) {
        const body = JSON.parse(classifiedJson(`${prefix}-t${i}`, `${loopback.address}/media`, { publishable: true }));
        targets.push(String((await send('POST', `${CAAS}/classifieds`, caasToken, body, 202))?.classifiedId));
      }
      // The set-up's webhooks are delivered before the run: what it measures starts from an empty queue.
      for (
        let i = 0;
        i < 60 && (await pendingJobs(context.pool, DELIVER_WEBHOOK)) + (await pendingJobs(context.pool, PROCESS_TASK)) > 0;
        i++
      )
        await sleep(500);
      await ask(loopback.child, 'receipts');

      const run = async (seconds: number): Promise<Measurement> => {
        process.stderr.write(`soak: ${seconds} s of mixed load on immogate start\n`);
        const primary = command.child.pid!;
        // Per minute, or every 10 s in a run too short for a trend over minutes.
        const step = seconds < 180 ? 10 : 60;
        const samples: Sample[] = [];
        const receipts: Receipt[] = [];
        const collect = async () => receipts.push(...(await ask<{ receipts: Receipt[] }>(loopback.child, 'receipts')).receipts);
        const started = wallClock();
        let tick = 0;
        const sampler = setInterval(() => {
          tick += 1;
          const second = tick;
          const rssKbByPid = Object.fromEntries(
            processTree(primary)
              .filter(isNode)
              .map((pid) => [pid, rssKb(pid)]),
          );
          void Promise.all([pendingJobs(context.pool, DELIVER_WEBHOOK), pendingJobs(context.pool, PROCESS_TASK)]).then(
            ([deliveries, classifieds]) => samples.push({ second, rssKbByPid, backlog: deliveries + classifieds }),
            () => undefined,
          );
          if (tick % 5 === 0) void collect();
        }, 1000);
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
        const backlogAtEnd = (await pendingJobs(context.pool, DELIVER_WEBHOOK)) + (await pendingJobs(context.pool, PROCESS_TASK));
        // The statuses the run produced, and what arrived of them and of the leads within the grace.
        const leadsOk = new Map(ok(leads.sent).map((s) => [s.key, s]));
        const graceStart = Date.now();
        let statuses = await statusesSince(context, started);
        for (;;) {
          await collect();
          const arrived = new Set(receipts.map((r) => r.key));
          statuses = await statusesSince(context, started);
          const done = [...leadsOk.keys()].every((key) => arrived.has(key)) && [...statuses.keys()].every((id) => arrived.has(id));
          if (done || Date.now() - graceStart > GRACE_MS) break;
          await sleep(500);
        }
        const graceEnd = wallClock();
        const statusReceipts = new Map(receipts.filter((r) => r.hook === 'statuses').map((r) => [r.key, r]));
        const leadReceipts = new Map(receipts.filter((r) => r.hook === 'soak').map((r) => [r.key, r]));
        const lost = [...leadsOk.keys()].filter((key) => !leadReceipts.has(key)).length;
        const undeliveredStatuses = [...statuses.keys()].filter((id) => !statusReceipts.has(id)).length;
        // What never arrived counts as late as the grace's end: the percentiles are lower bounds then.
        const statusLags = [...statuses.entries()].map(([id, at]) => ({ at, lag: (statusReceipts.get(id)?.at ?? graceEnd) - at }));
        const writeLags = [...statusReceipts.values()].flatMap((r) =>
          r.writtenAt === undefined ? [] : [{ at: r.writtenAt, lag: r.at - r.writtenAt }],
        );
        const leadLags = [...leadsOk.entries()].map(([key, s]) => ({
          at: s.sentAt,
          lag: (leadReceipts.get(key)?.at ?? graceEnd) - s.sentAt,
        }));
        const within = (from: number, to: number) => (item: { at: number }) => item.at >= from && item.at < to;
        const intervals: Interval[] = [];
        samples.sort((a, b) => a.second - b.second);
        for (let second = step; second <= Math.ceil(elapsed / step) * step; second += step) {
          const inIt = within(started + (second - step) * 1000, started + second * 1000);
          const last = samples.filter((sample) => sample.second <= second).at(-1);
          const status = spread(statusLags.filter(inIt).map((l) => l.lag));
          intervals.push({
            second,
            statusLagP50: status.p50,
            statusLagP99: status.p99,
            statusWriteToWebhookP99: spread(writeLags.filter(inIt).map((l) => l.lag)).p99,
            leadLagP99: spread(leadLags.filter(inIt).map((l) => l.lag)).p99,
            backlog: last?.backlog ?? 0,
            rssMb: last ? Math.round(Object.values(last.rssKbByPid).reduce((sum, kb) => sum + kb, 0) / 1024) : 0,
          });
        }
        printIntervals(intervals, step);
        const peakRssMb = Math.round(
          Math.max(0, ...samples.map((s) => Object.values(s.rssKbByPid).reduce((sum, kb) => sum + kb, 0))) / 1024,
        );
        const roles = new Map<string, string>();
        const peakRssMbByProcess: Record<string, number> = {};
        for (const sample of samples)
          for (const [pid, kb] of Object.entries(sample.rssKbByPid)) {
            const role = roles.get(pid) ?? roleOf(Number(pid));
            roles.set(pid, role);
            peakRssMbByProcess[role] = Math.max(peakRssMbByProcess[role] ?? 0, Math.round(kb / 1024));
          }
        // Each process by its pid (a child that died and was replaced starts a series of its own).
        const pids = [...new Set(samples.flatMap((s) => Object.keys(s.rssKbByPid)))];
        const rssGrowthByProcess = Object.fromEntries(
          pids.map((pid) => [pid, lateGrowth(samples.flatMap((s) => (s.rssKbByPid[Number(pid)] ? [s.rssKbByPid[Number(pid)]!] : [])))]),
        );
        const meanBacklog = (from: number, to: number) => {
          const values = samples.filter((s) => s.second > from && s.second <= to).map((s) => s.backlog);
          return values.length === 0 ? 0 : Math.round(values.reduce((sum, v) => sum + v, 0) / values.length);
        };
        const backlogFirst = meanBacklog(0, step);
        const backlogLast = meanBacklog(Math.floor(elapsed) - step, Math.ceil(elapsed));
        const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
        const deadlocks = log.filter((line) => line.includes('deadlock detected'));
        const errors = log.filter((line) => /"level":(50|60)/.test(line));
        const all = [...posts.sent, ...leads.sent, ...puts, ...gets];
        const answered = ok(all);
        const worstLagP99Ms = {
          status: Math.max(...intervals.map((i) => (Number.isNaN(i.statusLagP99) ? 0 : i.statusLagP99))),
          lead: Math.max(...intervals.map((i) => (Number.isNaN(i.leadLagP99) ? 0 : i.leadLagP99))),
        };
        const rates = {
          post: acknowledgedRate(posts.sent, ok(posts.sent)),
          put: acknowledgedRate(puts, ok(puts)),
          get: acknowledgedRate(gets, ok(gets)),
          leads: acknowledgedRate(leads.sent, [...leadsOk.values()]),
        };
        process.stderr.write(
          `soak: acknowledged/s ${JSON.stringify(rates)}; ${statuses.size} statuses (${undeliveredStatuses} not delivered within the grace), ` +
            `${leadsOk.size} leads (${lost} not delivered); worst minute's lag p99: status ${worstLagP99Ms.status} ms, lead ${worstLagP99Ms.lead} ms; ` +
            `backlog first ${step} s ${backlogFirst}, last ${backlogLast}, at the end ${backlogAtEnd}; peak RSS of all processes ${peakRssMb} MB (each ${JSON.stringify(peakRssMbByProcess)}), ` +
            `growth of each (last third over middle third) ${JSON.stringify(rssGrowthByProcess)}; log: ${deadlocks.length} deadlock detected, ${errors.length} errors (${logFile})\n`,
        );
        for (const line of [...deadlocks, ...errors].slice(0, 3)) process.stderr.write(`soak: ${line.slice(0, 600)}\n`);
        const latencies = spread(answered.map((s) => s.answeredAt - s.sentAt));
        const details: SoakDetails = {
          peakRssMb,
          peakRssMbByProcess,
          rssGrowthByProcess,
          worstLagP99Ms,
          backlogFirst,
          backlogLast,
          deadlocksLogged: deadlocks.length,
          errorsLogged: errors.length,
        };
        return {
          rps: Math.round(answered.length / elapsed),
          p50: latencies.p50,
          p99: latencies.p99,
          max: latencies.max,
          errors: all.length - answered.length,
          total: all.length,
          lost,
          backlog: backlogAtEnd,
          details: {
            ...details,
            rates,
            intervalSeconds: step,
            intervals,
            undeliveredStatuses,
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
  // Its processes are its own, not run.ts's: the peak RSS it measured goes in the table's column.
  cells: (row) => ({ 'peak RSS MB': (row.runs[0]?.details as SoakDetails | undefined)?.peakRssMb ?? '-' }),
  note(row) {
    const d = row.runs[0]?.details as SoakDetails | undefined;
    if (!d) return undefined;
    const growths = Object.values(d.rssGrowthByProcess).map((g) => (g === undefined ? '?' : `x${g.toFixed(2)}`));
    return (
      `worst minute's webhook lag p99: status ${d.worstLagP99Ms.status} ms, lead ${d.worstLagP99Ms.lead} ms (target <= ${LAG_P99_MS} ms); ` +
      `backlog first minute ${d.backlogFirst}, last ${d.backlogLast}; peak RSS of all processes ${d.peakRssMb} MB (target <= ${PEAK_RSS_MB}), ` +
      `each process's growth ${growths.join(', ')} (<= x${MAX_GROWTH}); deadlocks ${d.deadlocksLogged}, errors logged ${d.errorsLogged}`
    );
  },
};
