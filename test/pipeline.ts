/*
 * What the crash-recovery and scale-out tests share: immogate as real processes of the built CLI,
 * a media server and a webhook receiver on loopback that record every request, a load of
 * classified creates and leads that records what was acknowledged, and the checks of what the
 * asynchronous pipeline promises: everything acknowledged is processed and notified, nothing twice.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { minimalClassified } from './fixtures/classifieds.js';
import { http, type HttpResult } from './helpers.js';
import type { DemoClient } from './processes.js';

// ---- the APIs, as the demo client of a first start ----

export interface Tokens {
  base: string;
  caas: string;
  leads: string;
}

/** A sandbox token of the demo client for the API `root` of the server at `base`, asked as a client asks; the answer must be 200. */
export async function demoToken(base: string, demo: DemoClient, root: string): Promise<string> {
  const result = await http('POST', `${base}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: demo.clientId,
      client_secret: demo.secret,
      audience: base + root,
      intermediary_id: 'demo-agency',
    },
  });
  assert.equal(result.status, 200, result.text);
  return (result.body as { access_token: string }).access_token;
}

/** Sandbox tokens of the demo client for the classifieds and lead APIs of the server at `base`. */
export async function tokensFor(base: string, demo: DemoClient): Promise<Tokens> {
  return { base, caas: await demoToken(base, demo, '/sandbox/caas/v4'), leads: await demoToken(base, demo, '/sandbox/seeker-leads/v1') };
}

function caas(tokens: Tokens, method: string, route: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${tokens.base}/sandbox/caas/v4${route}`, { headers: { authorization: `Bearer ${tokens.caas}` }, body });
}

function leadApi(tokens: Tokens, method: string, route: string, body?: unknown): Promise<HttpResult> {
  return http(method, `${tokens.base}/sandbox/seeker-leads/v1${route}`, { headers: { authorization: `Bearer ${tokens.leads}` }, body });
}

/** Subscribes the receiver to every classified status (under /caas) and to lead notifications (/leads). */
export async function subscribe(tokens: Tokens, receiver: Receiver): Promise<void> {
  const statuses = await caas(tokens, 'PUT', '/webhooks', { url: `${receiver.base}/caas`, secret: 'a-secret-to-verify-signatures' });
  assert.equal(statuses.status, 200, statuses.text);
  const leads = await leadApi(tokens, 'POST', '/webhook/subscriptions', {
    url: `${receiver.base}/leads`,
    apiKey: 'an-api-key-of-the-test-receiver',
  });
  assert.equal(leads.status, 201, leads.text);
}

// ---- loopback servers ----

/** A 1x1 JPEG. */
const JPEG = Buffer.from(
  'ffd8ffe000104a46494600010101004800480000ffdb004300030202020203020202030303030406040404040408060605060908' +
    '0a0a090809090a0c0f0c0a0b0e0b09090d110d0e0f101011100a0c12131210130f101010ffc9000b080001000101011100ffcc00' +
    '06001010050fffda0008010100003f00d2cf20ffd9',
  'hex',
);

/**
 * Loopback media: every path is a JPEG, answered after a random 0-150 ms so that a kill can catch
 * downloads half-way. Records each request's path and arrival time. `hold()` keeps answers back
 * (requests are recorded and wait) until `release()`.
 */
export class MediaServer {
  /** Each request: its path, when it arrived and when its answer was sent (if it was). */
  readonly requests: { path: string; at: number; answeredAt?: number }[] = [];
  private held: (() => void)[] | undefined;
  private constructor(private readonly server: Server) {}

  /** On loopback, or on `host` (an address of this machine, e.g. a bridge that network namespaces reach). */
  static async start(host = '127.0.0.1'): Promise<MediaServer> {
    let media: MediaServer | undefined;
    const server = createServer((request, response) => {
      const recorded: MediaServer['requests'][number] = { path: request.url ?? '/', at: Date.now() };
      media!.requests.push(recorded);
      const answer = () => {
        if (response.destroyed) return;
        response.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG, () => (recorded.answeredAt = Date.now()));
      };
      if (media!.held) media!.held.push(answer);
      else setTimeout(answer, Math.random() * 150);
    });
    media = new MediaServer(server);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return media;
  }

  get base(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address}:${port}`;
  }

  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const answer of held) answer();
  }

  /** Requests per path. */
  fetches(): Map<string, number[]> {
    const byPath = new Map<string, number[]>();
    for (const request of this.requests) byPath.set(request.path, [...(byPath.get(request.path) ?? []), request.at]);
    return byPath;
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export interface Notification {
  kind: 'status' | 'lead';
  webhookId: string;
  body: Record<string, any>;
  at: number;
}

/** Loopback webhook receiver: answers 204 to everything and records it. */
export class Receiver {
  readonly received: Notification[] = [];
  private constructor(private readonly server: Server) {}

  /** On loopback, or on `host` (an address of this machine, e.g. a bridge that network namespaces reach). */
  static async start(host = '127.0.0.1'): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const kind = request.url?.startsWith('/caas/') ? 'status' : 'lead';
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, any>;
        receiver!.received.push({ kind, webhookId: String(request.headers['webhook-id']), body, at: Date.now() });
        response.writeHead(204).end();
      });
    });
    receiver = new Receiver(server);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return receiver;
  }

  get base(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address}:${port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// ---- load ----

/** What immogate acknowledged: classifiedId -> its media URLs, and the requestIds of leads. */
export interface Acknowledged {
  classifieds: Map<string, string[]>;
  leads: Set<string>;
  /** Answers other than the acknowledgement (none expected: a killed server gives connection errors). */
  unexpected: string[];
}

export function acknowledged(): Acknowledged {
  return { classifieds: new Map(), leads: new Set(), unexpected: [] };
}

let serial = 0;

/** A classified every portal accepts (as in test/classifieds/processing.test.ts), with 1-3 media of its own. */
function publishable(tag: string, media: MediaServer): { body: Record<string, any>; urls: string[] } {
  const n = ++serial;
  const body = minimalClassified();
  body.portals = ['SL', 'BD', 'BUCOM'];
  body.data.metaData.source.offererEstateId = `${tag}-${n}`;
  body.data.spaces = { spaceMeasureUnit: 'SQUARE_METER', overallSpace: 85 };
  body.data.texts = {
    description: {
      fr: 'Local commercial lumineux en plein centre, vitrine sur rue passante, réserve et sanitaires, idéal pour commerce de proximité ou boutique de créateur, disponible de suite.',
    },
  };
  const urls = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, (_, k) => `${media.base}/img/${tag}-${n}-${k}.jpg`);
  body.media = urls.map((url) => ({ url, mediaType: 'PICTURE' }));
  return { body, urls };
}

/**
 * Concurrent loops of classified creates and leads against one server, each pausing a little
 * between requests: a load the worker keeps up with, so what a test waits for after a crash is
 * recovery, not a backlog. Only acknowledged writes are recorded.
 */
export class Load {
  private stopped = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly tokens: Tokens,
    private readonly media: MediaServer,
    private readonly ack: Acknowledged,
    private readonly tag: string,
  ) {}

  start(shape: { classifieds: number; leads: number }): this {
    for (let i = 0; i < shape.classifieds; i += 1) this.loops.push(this.loop(() => this.createClassified()));
    for (let i = 0; i < shape.leads; i += 1) this.loops.push(this.loop(() => this.submitLead()));
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private async loop(step: () => Promise<void>): Promise<void> {
    while (!this.stopped) {
      try {
        await step();
      } catch {
        // The server was killed: the write may or may not have committed, and is not counted.
      }
      await sleep(40 + Math.random() * 60);
    }
  }

  private async createClassified(): Promise<void> {
    const { body, urls } = publishable(this.tag, this.media);
    const result = await caas(this.tokens, 'POST', '/classifieds', body);
    if (result.status === 202) this.ack.classifieds.set((result.body as { classifiedId: string }).classifiedId, urls);
    else this.ack.unexpected.push(`POST /classifieds: ${result.status} ${result.text}`);
  }

  private async submitLead(): Promise<void> {
    const n = ++serial;
    const result = await leadApi(this.tokens, 'POST', '/leads', {
      firstName: 'Ada',
      lastName: `Lovelace-${n}`,
      email: `ada.${this.tag}.${n}@example.org`,
      phoneNumbers: [{ type: 'MOBILE', number: '+33 6 12 34 56 78' }],
      message: 'Is the flat still available?',
      classifiedId: '12ABCDEFGHJK',
      submittedDate: '2026-03-01T10:00:00Z',
    });
    if (result.status === 200) this.ack.leads.add((result.body as { requestId: string }).requestId);
    else this.ack.unexpected.push(`POST /leads: ${result.status} ${result.text}`);
  }
}

// ---- the database ----

export async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

// ---- what the pipeline promises ----

const TERMINAL = ['CREATED', 'CREATED_WITH_MEDIA_ERROR', 'CREATING_FAILED'];

/** Asserts that no acknowledged classified or lead is missing from the database. */
export async function assertNothingLost(url: string, ack: Acknowledged): Promise<void> {
  const classifieds = await query<{ id: string }>(url, 'SELECT id FROM classifieds WHERE id = ANY($1::uuid[])', [
    [...ack.classifieds.keys()],
  ]);
  const found = new Set(classifieds.map((row) => row.id));
  assert.deepEqual(
    [...ack.classifieds.keys()].filter((id) => !found.has(id)),
    [],
    'acknowledged classifieds missing from the database',
  );
  const leads = await query<{ request_id: string }>(url, 'SELECT request_id FROM leads WHERE request_id = ANY($1::uuid[])', [
    [...ack.leads],
  ]);
  const foundLeads = new Set(leads.map((row) => row.request_id));
  assert.deepEqual(
    [...ack.leads].filter((id) => !foundLeads.has(id)),
    [],
    'acknowledged leads missing from the database',
  );
}

const statusKey = (classifiedId: string, revision: number, status: string) => `${classifiedId}|${revision}|${status}`;

/**
 * What is not done yet: classifieds (every one in the database, acknowledged or committed just
 * before a kill) without a terminal status, statuses whose webhook the receiver has not had, leads
 * whose notification it has not had. Empty when the pipeline has caught up.
 */
export async function outstanding(url: string, receiver: Receiver): Promise<string[]> {
  const classifieds = await query<{ id: string; statuses: string[] }>(
    url,
    `SELECT c.id, coalesce(array_agg(s.status) FILTER (WHERE s.status IS NOT NULL), '{}') AS statuses
       FROM classifieds c LEFT JOIN classified_statuses s ON s.classified_id = c.id GROUP BY c.id`,
  );
  const statuses = await query<{ classified_id: string; revision: number; status: string }>(
    url,
    'SELECT classified_id, revision, status FROM classified_statuses',
  );
  const leads = await query<{ id: string }>(url, 'SELECT id FROM leads');
  // A delivery the receiver heard may still be pending: its sender was killed before it recorded
  // the answer, and the delivery goes out again (same webhook-id) once its lease ends.
  const pending = await query<{ id: string; source: string }>(url, "SELECT id, source FROM webhook_deliveries WHERE state = 'PENDING'");
  const heard = new Set(
    receiver.received.filter((n) => n.kind === 'status').map((n) => statusKey(n.body.classifiedId, n.body.revision, n.body.status)),
  );
  const notified = new Set(receiver.received.filter((n) => n.kind === 'lead').map((n) => n.body.metadata.leadId as string));
  return [
    ...classifieds
      .filter((row) => !row.statuses.some((status) => TERMINAL.includes(status)))
      .map((row) => `classified ${row.id}: ${row.statuses.join(', ')}`),
    ...statuses
      .filter((row) => !heard.has(statusKey(row.classified_id, row.revision, row.status)))
      .map((row) => `webhook of ${statusKey(row.classified_id, row.revision, row.status)}`),
    ...leads.filter((row) => !notified.has(row.id)).map((row) => `notification of lead ${row.id}`),
    ...pending.map((row) => `${row.source} delivery ${row.id}: PENDING`),
  ];
}

/** Polls outstanding() until it is empty; fails after `withinMs` from `since`. Resolves to the time it took from `since`. */
export async function waitCaughtUp(url: () => string, receiver: Receiver, since: number, withinMs: number): Promise<number> {
  for (;;) {
    const left = await outstanding(url(), receiver);
    if (left.length === 0) return Date.now() - since;
    if (Date.now() - since > withinMs)
      assert.fail(`${left.length} things not done ${withinMs} ms after the restart:\n${left.slice(0, 20).join('\n')}`);
    await sleep(200);
  }
}

export interface PipelineFigures {
  classifieds: number;
  leads: number;
  statusWebhooks: number;
  /** Deliveries the receiver got more than once (always with the same webhook-id). */
  redelivered: number;
  /** Media URLs downloaded a second time because a kill interrupted the first download. */
  refetched: number;
  /** Of those, the ones whose first download had been answered before the kill (its outcome not recorded yet). */
  refetchedAfterAnswer: number;
}

/**
 * A kill -9: when it was sent, and a moment after the process was seen dead and everything it had
 * sent was handled (the media server records a request when this process's event loop gets to it,
 * which may be just after the kill was sent), before anything else took its work up.
 */
export interface Crash {
  killedAt: number;
  resumedAt: number;
}

/**
 * The end state after `crashes`: every acknowledged write there and processed once, every status
 * and lead notified once per subscription (repeats only under the same webhook-id), every media
 * URL downloaded once unless a kill interrupted its download: then twice, the first request sent
 * shortly (under 2 s) before that kill by the killed process, the outcome recorded after the kill,
 * the second request made by the process that took the work over.
 */
export async function assertConsistent(
  url: string,
  ack: Acknowledged,
  receiver: Receiver,
  media: MediaServer,
  crashes: Crash[],
): Promise<PipelineFigures> {
  assert.deepEqual(ack.unexpected, []);
  await assertNothingLost(url, ack);

  // Each classified went RECEIVED, CREATING, CREATED once, with every media downloaded.
  const classifieds = await query<{ id: string; statuses: string[]; media: { url: string; status: string }[] | null }>(
    url,
    `SELECT c.id, array_agg(s.revision || ' ' || s.status ORDER BY s.seq) AS statuses,
            (array_agg(s.media_statuses) FILTER (WHERE s.status = 'CREATED'))[1] AS media
       FROM classifieds c JOIN classified_statuses s ON s.classified_id = c.id GROUP BY c.id`,
  );
  for (const row of classifieds) {
    assert.deepEqual(row.statuses, ['1 RECEIVED', '1 CREATING', '1 CREATED'], `statuses of ${row.id}`);
    const urls = ack.classifieds.get(row.id);
    if (urls)
      assert.deepEqual(
        row.media,
        urls.map((mediaUrl) => ({ url: mediaUrl, status: 'CREATED' })),
        `media of ${row.id}`,
      );
  }
  assert.deepEqual(
    await query(url, 'SELECT classified_id, revision, status, count(*) FROM classified_statuses GROUP BY 1, 2, 3 HAVING count(*) > 1'),
    [],
    'a status recorded twice',
  );
  assert.deepEqual(await query(url, 'SELECT classified_id FROM caas_processing_queue'), [], 'work left in the processing queue');

  // Every delivery delivered, and received: one webhook-id per status and per lead.
  const deliveries = await query<{ id: string; source: string; state: string; key: string }>(
    url,
    // id: the webhook-id, which for a status is the id of its event in the feed.
    `SELECT coalesce(event_id, id) AS id, source, state,
            CASE WHEN source = 'leads' THEN payload #>> '{metadata,leadId}'
                 ELSE concat_ws('|', payload ->> 'classifiedId', payload ->> 'revision', payload ->> 'status') END AS key
       FROM webhook_deliveries`,
  );
  assert.deepEqual(
    deliveries.filter((row) => row.state !== 'DELIVERED'),
    [],
    'deliveries not delivered',
  );
  const statuses = await query<{ status_id: string; key: string }>(
    url,
    "SELECT status_id, concat_ws('|', classified_id, revision, status) AS key FROM classified_statuses",
  );
  const leads = await query<{ id: string }>(url, 'SELECT id FROM leads');
  const idsByKey = new Map<string, Set<string>>();
  for (const notification of receiver.received) {
    const key =
      notification.kind === 'lead'
        ? notification.body.metadata.leadId
        : statusKey(notification.body.classifiedId, notification.body.revision, notification.body.status);
    idsByKey.set(key, (idsByKey.get(key) ?? new Set()).add(notification.webhookId));
  }
  const expectedKeys = [...statuses.map((row) => row.key), ...leads.map((row) => row.id)].sort();
  assert.deepEqual(
    [...idsByKey.keys()].sort(),
    expectedKeys,
    'the notifications received are not those of the statuses and leads recorded',
  );
  assert.deepEqual(
    [...idsByKey].filter(([, ids]) => ids.size > 1).map(([key, ids]) => `${key}: ${[...ids].join(', ')}`),
    [],
    'one status or lead notified under two webhook-ids',
  );
  const deliveryByKey = new Map(deliveries.map((row) => [row.key, row.id]));
  assert.equal(deliveries.length, expectedKeys.length, 'one delivery per status and per lead');
  for (const [key, ids] of idsByKey) assert.deepEqual([...ids], [deliveryByKey.get(key)], `webhook-id of ${key}`);
  const statusIds = new Map(statuses.map((row) => [row.key, row.status_id]));
  for (const notification of receiver.received.filter((n) => n.kind === 'status')) {
    const key = statusKey(notification.body.classifiedId, notification.body.revision, notification.body.status);
    assert.equal(notification.body.statusId, statusIds.get(key), `statusId of ${key}`);
  }

  // Media: downloaded once, or twice when a kill interrupted the first download. A media's outcome
  // is recorded with its classified's outcome status: fetched_at would be overwritten by a second
  // recording, the status's time never is, so the earlier of the two is when it was first recorded.
  const recorded = await query<{ url: string; fetch_status: string; fetched_at: Date; outcome_at: Date }>(
    url,
    `SELECT m.url, m.fetch_status, m.fetched_at, least(m.fetched_at, s.status_date) AS outcome_at
       FROM classified_media m JOIN classified_statuses s ON s.classified_id = m.classified_id AND s.revision = 1 AND s.status = 'CREATED'`,
  );
  const outcomeAt = new Map(recorded.map((row) => [new URL(row.url).pathname, row.outcome_at.getTime()]));
  assert.deepEqual(
    recorded.filter((row) => row.fetch_status !== 'CREATED'),
    [],
    'media not downloaded',
  );
  const fetches = media.fetches();
  assert.deepEqual(
    [...outcomeAt.keys()].filter((mediaPath) => !fetches.has(mediaPath)),
    [],
    'media recorded without a download',
  );
  assert.deepEqual(
    [...fetches.keys()].filter((mediaPath) => !outcomeAt.has(mediaPath)),
    [],
    'downloads of media no classified has',
  );
  let refetched = 0;
  let refetchedAfterAnswer = 0;
  for (const [mediaPath, times] of fetches) {
    if (times.length === 1) continue;
    const [first, second] = times as [number, number];
    const outcome = outcomeAt.get(mediaPath)!;
    const interruptedBy = crashes.find(
      (crash) => first < crash.resumedAt && crash.killedAt - first < 2_000 && outcome > crash.killedAt && second >= crash.resumedAt,
    );
    assert.ok(
      times.length === 2 && interruptedBy !== undefined,
      `${mediaPath} downloaded ${times.length} times (at ${times.join(', ')}; outcome recorded at ${outcome}; crashes ${JSON.stringify(crashes)})`,
    );
    refetched += 1;
    const answeredAt = media.requests.find((request) => request.path === mediaPath)?.answeredAt;
    if (answeredAt !== undefined && answeredAt < interruptedBy!.killedAt) refetchedAfterAnswer += 1;
  }
  const counts = new Map<string, number>();
  for (const notification of receiver.received) counts.set(notification.webhookId, (counts.get(notification.webhookId) ?? 0) + 1);
  return {
    classifieds: classifieds.length,
    leads: leads.length,
    statusWebhooks: statuses.length,
    redelivered: [...counts.values()].filter((count) => count > 1).length,
    refetched,
    refetchedAfterAnswer,
  };
}
