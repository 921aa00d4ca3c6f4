/*
 * `immogate demo`: walks the three APIs of a running server in its sandbox with the files of
 * examples/ (the README's walkthroughs use the same), printing each step, its request and its
 * answer, in colour on a terminal unless NO_COLOR is set. Each run gets its own estate ids and
 * media URLs, so it can run again on the same data. A step answered otherwise than expected is
 * shown in red and makes the command exit 1.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import { styleText } from 'node:util';
import { apiById, rootPath, type ApiDescriptor } from './platform/catalogue.js';

const EXAMPLES_DIR = new URL('../../examples/', import.meta.url);
const USER_AGENT = 'ImmogateDemo/1.0.0 node/20 immogate/1';
const BODY_SHOWN = 400;

export interface DemoOptions {
  /** The server's PUBLIC_URL. */
  url: string;
  agency: string;
  /** A sandbox token of `api` for the agency. */
  token(api: ApiDescriptor): Promise<string>;
  write(text: string): void;
  colour: boolean;
}

type Style = Parameters<typeof styleText>[0];

interface Answer {
  status: number;
  text: string;
  body: unknown;
  headers: Headers;
}

function member(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const name of path) current = typeof current === 'object' && current !== null ? Reflect.get(current, name) : undefined;
  return current;
}

/** A file of examples/ as it is: its media name the samples by SAMPLES_ORIGIN, answered on any port. */
function exampleJson(name: string): unknown {
  return JSON.parse(fs.readFileSync(new URL(name, EXAMPLES_DIR), 'utf8'));
}

class Walk {
  failures = 0;
  private readonly run = randomBytes(3).toString('hex');

  constructor(private readonly options: DemoOptions) {}

  private paint(style: Style, text: string): string {
    // Whether to colour is decided once (a terminal, no NO_COLOR), not again per stream.
    return this.options.colour ? styleText(style, text, { validateStream: false }) : text;
  }

  private line(text = ''): void {
    this.options.write(`${text}\n`);
  }

  section(title: string): void {
    this.line();
    this.line(this.paint(['bold', 'magenta'], `== ${title} ==`));
  }

  note(text: string): void {
    this.line(this.paint('dim', `  ${text}`));
  }

  private shown(text: string): string {
    // Each run of whitespace holding a line break becomes one space (/\s*\n\s*/ would rescan long runs).
    const flat = text.replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run));
    return flat.length > BODY_SHOWN ? `${flat.slice(0, BODY_SHOWN)}... (${flat.length} characters)` : flat;
  }

  /** One request: the step, the request, the answer; `expected` is the status (or the statuses) the step may get. */
  async step(
    title: string,
    request: {
      method: string;
      url: string;
      token?: string;
      body?: unknown;
      bytes?: Buffer;
      contentType?: string;
      headers?: Record<string, string>;
    },
    expected: number | readonly number[],
  ): Promise<Answer> {
    this.line();
    this.line(this.paint('bold', `> ${title}`));
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...request.headers };
    if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
    let payload: string | Blob | undefined;
    if (request.bytes !== undefined) payload = new Blob([new Uint8Array(request.bytes)]);
    else if (request.body !== undefined) payload = JSON.stringify(request.body);
    if (payload !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
    const path = request.url.startsWith(this.options.url) ? request.url.slice(this.options.url.length) : request.url;
    this.line(`  ${this.paint('yellow', request.method)} ${path}`);
    if (typeof payload === 'string') this.line(this.paint('dim', `  ${this.shown(payload)}`));
    else if (payload !== undefined) this.line(this.paint('dim', `  (${payload.size} bytes of ${headers['content-type']})`));
    const response = await fetch(request.url, { method: request.method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const ok = typeof expected === 'number' ? response.status === expected : expected.includes(response.status);
    if (!ok) this.failures += 1;
    const status = this.paint(ok ? (response.status < 300 ? 'green' : 'cyan') : ['bold', 'red'], String(response.status));
    this.line(`  ${status}${ok ? '' : this.paint('red', ` (expected ${String(expected)})`)} ${this.shown(text)}`);
    return { status: response.status, text, body: parsed, headers: response.headers };
  }

  /** GETs `url` until `done` holds of the answer (30 s at most), printing the last answer as a step. */
  async poll(title: string, url: string, token: string, done: (answer: unknown) => boolean): Promise<Answer> {
    const until = Date.now() + 30_000;
    for (;;) {
      const response = await fetch(url, { headers: { 'user-agent': USER_AGENT, authorization: `Bearer ${token}` } });
      const body: unknown = response.status === 200 ? await response.json() : await response.text();
      if (done(body) || Date.now() > until) return this.step(title, { method: 'GET', url, token }, 200);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async classifieds(): Promise<void> {
    const api = apiById('caas');
    const base = this.options.url + rootPath(api, 'sandbox');
    this.section(`${api.title} ${api.version}, sandbox (${rootPath(api, 'sandbox')})`);
    const token = await this.options.token(api);
    this.note(`a token of the audience ${base}`);
    const created: { name: string; id: string }[] = [];
    for (const [file, what] of [
      ['classified-created.json', 'a classified with a picture, a floor plan and a video: ends CREATED'],
      ['classified-media-error.json', 'a classified with a lost picture and an error page: ends CREATED_WITH_MEDIA_ERROR'],
      ['classified-refused.json', 'a classified BD refuses (no picture, too small, a short description): ends CREATING_FAILED'],
    ] as const) {
      const body = this.unique(exampleJson(file));
      const answer = await this.step(`POST ${what}`, { method: 'POST', url: `${base}/classifieds`, token, body }, 202);
      const id = member(answer.body, 'classifiedId');
      if (typeof id === 'string') created.push({ name: file, id });
    }
    for (const { id } of created) {
      const outcome = await this.poll(
        'the outcome (the latest status)',
        `${base}/classifieds/${id}/statuses?filter=latest&limit=1`,
        token,
        (body) => ['accepted', 'rejected'].includes(String(member(body, 'items', '0', 'stage'))),
      );
      this.outcome(member(outcome.body, 'items', '0'));
    }
    const first = created[0];
    if (first === undefined) return;
    const body = this.unique(exampleJson('classified-created.json'));
    await this.step(
      'PUT an update, if nobody changed it meanwhile (If-Match)',
      { method: 'PUT', url: `${base}/classifieds/${first.id}`, token, body, headers: { 'if-match': '"1"' } },
      202,
    );
    await this.step('DELETE it', { method: 'DELETE', url: `${base}/classifieds/${first.id}`, token }, 202);
  }

  /** A status in a line or a few: the status, each media's, the rules violated. */
  private outcome(status: unknown): void {
    this.note(`status ${String(member(status, 'status'))}: ${String(member(status, 'message'))}`);
    const media = member(status, 'mediaStatuses');
    if (Array.isArray(media)) {
      for (const item of media) {
        const reason = member(item, 'reason');
        this.note(
          `  ${String(member(item, 'url'))}: ${String(member(item, 'status'))}${reason === undefined ? '' : ` (${String(reason)})`}`,
        );
      }
    }
    const details = member(status, 'subStatusDetails');
    if (typeof details === 'string') this.note(`  ${details}`);
  }

  /** The example with this run's estate id and media URLs, so that runs do not collide. */
  private unique(example: unknown): unknown {
    const source = member(example, 'data', 'metaData', 'source');
    if (typeof source === 'object' && source !== null)
      Reflect.set(source, 'offererEstateId', `${member(source, 'offererEstateId')}-${this.run}`);
    const media = member(example, 'media');
    if (Array.isArray(media)) for (const item of media) Reflect.set(item, 'url', `${member(item, 'url')}?run=${this.run}`);
    return example;
  }

  async listings(): Promise<void> {
    const api = apiById('clim');
    const base = this.options.url + rootPath(api, 'sandbox');
    this.section(`${api.title} ${api.version}, sandbox (${rootPath(api, 'sandbox')})`);
    const token = await this.options.token(api);
    this.note(`a token of the audience ${base}`);
    const mediaId = `img-${this.run}`;
    const upload = await this.step(
      'POST /medias: an upload URL for a picture',
      { method: 'POST', url: `${base}/medias`, token, body: { externalMediaId: mediaId, fileName: 'living-room.jpg' } },
      201,
    );
    const presigned = member(upload.body, 'presignedURL');
    if (typeof presigned !== 'string') return;
    await this.step(
      'PUT the picture to the presigned URL',
      { method: 'PUT', url: presigned, bytes: fs.readFileSync(new URL('living-room.jpg', EXAMPLES_DIR)), contentType: 'image/jpeg' },
      200,
    );
    const listing = exampleJson('berlin-apartment.json');
    const estateId = `B-1001-${this.run}`;
    const source = member(listing, 'metadata', 'source');
    if (typeof source === 'object' && source !== null) Reflect.set(source, 'offererEstateId', estateId);
    const media = member(listing, 'media', '0');
    if (typeof media === 'object' && media !== null) Reflect.set(media, 'externalMediaId', mediaId);
    await this.step(
      'POST the Berlin apartment, which passes every rule',
      { method: 'POST', url: `${base}/listings`, token, body: listing },
      201,
    );
    await this.step('GET it by its externalListingId', { method: 'GET', url: `${base}/listings/${estateId}`, token }, 200);
    await this.step('DELETE it', { method: 'DELETE', url: `${base}/listings/${estateId}`, token }, 202);
  }

  async leads(): Promise<void> {
    const api = apiById('leads');
    const base = this.options.url + rootPath(api, 'sandbox');
    this.section(`${api.title} ${api.version}, sandbox (${rootPath(api, 'sandbox')})`);
    const token = await this.options.token(api);
    this.note(`a token of the audience ${base}`);
    const received: unknown[] = [];
    const receiver = await listen((body) => received.push(body));
    try {
      const address = receiver.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const subscription = await this.step(
        'POST a webhook subscription to a receiver this command runs on loopback',
        {
          method: 'POST',
          url: `${base}/webhook/subscriptions`,
          token,
          body: { url: `http://127.0.0.1:${port}/leads`, apiKey: randomBytes(24).toString('base64url') },
        },
        // 400 from a server not in dev mode: its sandbox may not reach loopback, which is no failure of the demo.
        [201, 400],
      );
      const subscriptionId = member(subscription.body, 'subscriptionId');
      if (typeof subscriptionId !== 'string')
        this.note('no subscription: the sandbox of a server started with --dev may reach a receiver on loopback');
      const lead = exampleJson('lead.json');
      await this.step('POST a lead', { method: 'POST', url: `${base}/leads`, token, body: lead }, 200);
      if (typeof subscriptionId === 'string') {
        for (let i = 0; i < 100 && received.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
        if (received.length > 0) this.note(`the receiver got the lead ${String(member(received[0], 'metadata', 'leadId'))}`);
        else {
          this.failures += 1;
          this.line(this.paint('red', '  the receiver got no notification within 10 s'));
        }
      }
      const now = Math.floor(Date.now() / 1000);
      await this.step(
        'GET the leads of the last day',
        { method: 'GET', url: `${base}/leads?minDate=${now - 86_400}&maxDate=${now + 1}`, token },
        200,
      );
      if (typeof subscriptionId === 'string') {
        await this.step(
          'GET the audit of the subscription',
          { method: 'GET', url: `${base}/webhook/subscriptions/${subscriptionId}/audit`, token },
          200,
        );
        await this.step(
          'DELETE the subscription',
          { method: 'DELETE', url: `${base}/webhook/subscriptions/${subscriptionId}`, token },
          200,
        );
      }
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }
}

/** A webhook receiver on a free loopback port that keeps what it gets and answers 204. */
function listen(onBody: (body: unknown) => void): Promise<Server> {
  const server = createServer((request, response) => {
    let text = '';
    // A sender that goes away mid-body is no failure of the demo's; the event would crash it.
    request.on('error', () => undefined);
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on('end', () => {
      try {
        onBody(JSON.parse(text));
      } catch {
        onBody(text);
      }
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Walks the three APIs; answers how many steps were not answered as expected. */
export async function runDemo(options: DemoOptions): Promise<number> {
  const walk = new Walk(options);
  await walk.classifieds();
  await walk.listings();
  await walk.leads();
  options.write('\n');
  return walk.failures;
}
