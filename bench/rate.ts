/*
 * A fixed-rate (open-loop) load generator, forked like driver.ts. Request i is due at
 * t0 + i / rate whatever became of the earlier ones, so a slow server meets a growing queue
 * instead of a politely slowing client; each request's `sentAt` is the time it was due, so time
 * spent waiting for a free connection counts as latency. Every request carries a unique key (the
 * classified's offererEstateId, the lead's message) that lets the scenario find it downstream.
 */
import { Pool } from 'undici';
import { classifiedJson, leadJson } from './body.js';
import { wallClock } from './clock.js';

export type RateBody = { kind: 'classified'; mediaBase?: string; publishable?: boolean } | { kind: 'lead' };

export interface RateLoad {
  url: string;
  path: string;
  headers: Record<string, string>;
  body: RateBody;
  /** Requests per second. */
  rate: number;
  seconds: number;
  connections: number;
  /** Prefix of the keys, unique per run. */
  prefix: string;
}

export interface Sent {
  key: string;
  /** Epoch milliseconds (sub-millisecond precision) at which the request was due. */
  sentAt: number;
  answeredAt: number;
  /** HTTP status; 0 when no answer came. */
  status: number;
}

export interface RateResult {
  sent: Sent[];
  /** How far behind its schedule the generator fell at worst, in ms (a busy machine shows here). */
  maxLagMs: number;
  /** The first answer that was not 2xx (status and the start of its body), to tell why. */
  firstFailure?: string;
}

function bodyOf(body: RateBody, key: string): string {
  return body.kind === 'lead' ? leadJson(key) : classifiedJson(key, body.mediaBase, { publishable: body.publishable ?? false });
}

async function generate(load: RateLoad): Promise<RateResult> {
  const pool = new Pool(load.url, { connections: load.connections, pipelining: 1 });
  const total = Math.round(load.rate * load.seconds);
  const interval = 1000 / load.rate;
  const sent: Sent[] = [];
  const pending: Promise<void>[] = [];
  let maxLagMs = 0;
  let firstFailure: string | undefined;
  const t0 = wallClock();

  const fire = (i: number) => {
    const key = `${load.prefix}-${i}`;
    const record: Sent = { key, sentAt: t0 + i * interval, answeredAt: 0, status: 0 };
    sent.push(record);
    const body = bodyOf(load.body, key);
    pending.push(
      pool
        .request({ origin: load.url, path: load.path, method: 'POST', headers: load.headers, body })
        .then(async (response) => {
          record.status = response.statusCode;
          if (response.statusCode >= 300 && firstFailure === undefined)
            firstFailure = `${response.statusCode} ${(await response.body.text()).slice(0, 500)}`;
          else await response.body.dump();
        })
        .catch((error: Error) => {
          firstFailure ??= `no answer: ${error.message}`;
        })
        .finally(() => (record.answeredAt = wallClock())),
    );
  };

  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = wallClock();
      while (next < total && t0 + next * interval <= now) {
        maxLagMs = Math.max(maxLagMs, now - (t0 + next * interval));
        fire(next++);
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, Math.min(interval, t0 + next * interval - wallClock())));
    };
    tick();
  });
  await Promise.all(pending);
  await pool.close();
  return { sent, maxLagMs, ...(firstFailure === undefined ? {} : { firstFailure }) };
}

process.once('message', (load: RateLoad) => {
  generate(load).then(
    (result) => process.send!(result, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
