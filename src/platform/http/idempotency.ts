/*
 * Idempotency-Key on every POST of the API roots (README "Idempotent writes: Idempotency-Key"),
 * one hook for all of them rather than code in each route. A request with the header claims the
 * key (client, environment, agency, key) before its handler runs; the answer it sends is stored
 * with the key for KEY_TTL_HOURS; a retry with the same key and the same body gets that answer
 * again, marked Idempotent-Replayed, and its handler never runs.
 *
 * Stored: every answer below 500 except 429 (the request was not processed and the caller is told
 * to wait: the same key must be able to run later). A 5xx releases the key, so a retry with the
 * same key runs the request again. A 4xx is stored, as Stripe does: the retry of a refused request
 * is refused alike, without running it again.
 *
 * An answer is kept up to IDEMPOTENT_ANSWER_MAX_BYTES (64 KB): a larger one is kept as its status,
 * its kept headers and, of a problem, its type and title, and its replay is a problem that says
 * so. Refusals repeat what was sent (member names, paths), and a key is kept a day: without the
 * bound, a megabyte refused would be a megabyte stored.
 *
 * The body is compared by the sha256 of its bytes as received (not of the parsed JSON): a retry
 * sends the same bytes, and the same JSON written otherwise is another request.
 *
 * The answer is stored after the write committed, not in its transaction: a process that dies
 * between the two leaves the key running. Such a key is taken over by a retry once its lease
 * (twice the request deadline, a minute at least) has passed, and that retry runs the request
 * again: the one window in which a write can happen twice. Storing in the write's transaction
 * would close it, at the price of every service taking part; the lease keeps the window to a
 * crash at that very moment.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Tenant } from '../db/tenant.js';
import type { Sealer } from '../secrets/sealer.js';
import type { ScheduledTask } from '../work/schedule.js';
import { sweep } from '../work/sweep.js';
import { withCanonicalUuids } from './formats.js';
import { PROBLEM_CONTENT_TYPE, Problem, TYPE_BASE, badRequest } from './problems.js';

export const IDEMPOTENCY_KEY = 'idempotency-key';
export const REPLAYED = 'idempotent-replayed';
export const KEY_TTL_HOURS = 24;
/** The purpose stored answers are sealed for. */
export const IDEMPOTENT_ANSWER = 'idempotent-answer';
/** Seconds a caller is asked to wait while the first request with its key still runs. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

// Printable ASCII (space to tilde), as the IETF draft's sf-string allows.
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
// The answer's headers that say something about what was done; the others (traceparent, dates)
// belong to the request that carries the replay.
const KEPT_HEADERS = ['content-type', 'etag', 'location', 'content-location', 'link'];

interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Set when the answer was larger than kept: its size, and of a problem its type and title. */
  cut?: { bytes: number; type?: string; title?: string };
}

interface Claimed {
  claim: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The idempotency key this request holds, set when it claimed one. */
    idempotencyClaim: Claimed | null;
  }
}

export interface IdempotencyOptions {
  pool: pg.Pool;
  sealer: Sealer;
  /** Seconds after which a key still running is taken to belong to a process that died. */
  leaseSeconds: number;
  /** The most bytes of an answer's body kept whole. */
  maxAnswerBytes: number;
}

/** Twice the deadline of a request (a minute at least): no request still running holds a key that long. */
export function leaseFor(requestTimeoutSeconds: number): number {
  return Math.max(60, 2 * requestTimeoutSeconds);
}

function idempotencyProblem(status: 409 | 422, detail: string, headers: Record<string, string> = {}): Problem {
  const title = status === 409 ? 'Conflict' : 'Unprocessable entity';
  const type = status === 409 ? 'idempotency-key-in-use' : 'idempotency-key-reused';
  return new Problem(
    status,
    title,
    detail,
    { errors: [{ name: 'Idempotency-Key', reason: detail }], errorSource: 'header' },
    type,
    headers,
  );
}

function keyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[IDEMPOTENCY_KEY];
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (!VALID_KEY.test(key)) {
    const reason =
      key === '' ? 'must not be empty' : key.length > 255 ? 'must be at most 255 characters' : 'must be printable ASCII characters only';
    throw badRequest([{ name: 'Idempotency-Key', reason }], 'header');
  }
  return key;
}

/** Installs the hooks on one API root (call after its guard, which sets the tenant). */
export function installIdempotency(app: FastifyInstance, options: IdempotencyOptions): void {
  const { pool, sealer, leaseSeconds, maxAnswerBytes } = options;
  app.decorateRequest('idempotencyClaim', null);
  const claimKey = async (request: FastifyRequest, reply: FastifyReply, tenant: Tenant): Promise<unknown> => {
    const key = keyOf(request);
    if (key === undefined) return;
    const { clientId, environment, agencyId } = tenant;
    const hash = createHash('sha256')
      .update(request.rawJson ?? '')
      .digest();
    const claim = randomUUID();
    // One request however its ids are spelled: validation, which lower-cases them, runs after this hook.
    const path = withCanonicalUuids(request.url);
    // A row past its expiry counts as absent; a running row past its lease, of the same request, is taken over.
    const { rows: won } = await pool.query(
      `INSERT INTO idempotency_keys (client_id, environment, agency_id, key, request_hash, path, claim, state, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', now() + make_interval(hours => $8))
       ON CONFLICT (client_id, environment, agency_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, path = EXCLUDED.path, claim = EXCLUDED.claim, state = 'running',
             started_at = now(), expires_at = EXCLUDED.expires_at, answer = NULL
         WHERE idempotency_keys.expires_at <= now()
            OR (idempotency_keys.state = 'running' AND idempotency_keys.started_at < now() - make_interval(secs => $9)
                AND idempotency_keys.request_hash = EXCLUDED.request_hash AND idempotency_keys.path = EXCLUDED.path)
       RETURNING claim`,
      [clientId, environment, agencyId, key, hash, path, claim, KEY_TTL_HOURS, leaseSeconds],
    );
    if (won.length > 0) {
      request.idempotencyClaim = { claim };
      return;
    }
    const { rows } = await pool.query<{ request_hash: Buffer; path: string; state: string; answer: string | null }>(
      `SELECT request_hash, path, state, answer FROM idempotency_keys
        WHERE client_id = $1 AND environment = $2 AND agency_id = $3 AND key = $4`,
      [clientId, environment, agencyId, key],
    );
    const existing = rows[0];
    // Swept between the two statements: the caller retries as after any conflict.
    if (existing === undefined)
      throw idempotencyProblem(409, 'The request with this Idempotency-Key is still being processed', retryLater());
    if (existing.path !== path) throw idempotencyProblem(422, `This Idempotency-Key was used for a request to ${existing.path}`);
    if (!existing.request_hash.equals(hash)) throw idempotencyProblem(422, 'This Idempotency-Key was used for a request with another body');
    if (existing.state !== 'done' || existing.answer === null) {
      throw idempotencyProblem(409, 'The request with this Idempotency-Key is still being processed', retryLater());
    }
    const answer = JSON.parse(sealer.unseal(existing.answer, IDEMPOTENT_ANSWER)) as StoredAnswer;
    return replay(reply, answer);
  };
  // Callback hooks: most requests carry no key, and pay no promise for finding that out.
  // preValidation: after the body is parsed (its bytes are hashed), before the schema's checks,
  // so a request refused by them is stored too and the key's own 400 comes first.
  app.addHook('preValidation', (request, reply, done) => {
    const tenant = request.tenant;
    if (request.method !== 'POST' || tenant === null || request.headers[IDEMPOTENCY_KEY] === undefined) return done();
    claimKey(request, reply, tenant).then(
      () => (reply.sent ? undefined : done()),
      (error: unknown) => done(error as Error),
    );
  });

  const keepAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown, held: { claim: string }): Promise<unknown> => {
    const status = reply.statusCode;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
    if (status >= 500 || status === 429 || body === undefined) {
      // Not an answer to keep (or a stream, which no POST of ours sends): the key is free again.
      await pool.query('DELETE FROM idempotency_keys WHERE claim = $1', [held.claim]).catch((error: unknown) => {
        request.log.warn({ err: error }, 'could not release an idempotency key');
      });
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    const answer = sealer.seal(JSON.stringify(kept(status, headers, body, maxAnswerBytes)), IDEMPOTENT_ANSWER);
    // The answer goes out whatever happens here; a key left running is taken over after its lease.
    await pool
      .query("UPDATE idempotency_keys SET state = 'done', answer = $2 WHERE claim = $1", [held.claim, answer])
      .catch((error: unknown) => request.log.warn({ err: error }, 'could not store an idempotent answer'));
    return payload;
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    const held = request.idempotencyClaim;
    if (held === null) return done(null, payload);
    request.idempotencyClaim = null;
    keepAnswer(request, reply, payload, held).then(
      (kept) => done(null, kept),
      (error: unknown) => done(error as Error),
    );
  });
}

function retryLater(): Record<string, string> {
  return { 'retry-after': String(IN_FLIGHT_RETRY_AFTER_SECONDS) };
}

/** The answer as stored: whole up to `maxBytes`, else its status, headers and problem type. */
function kept(status: number, headers: Record<string, string>, body: string, maxBytes: number): StoredAnswer {
  const bytes = Buffer.byteLength(body);
  if (bytes <= maxBytes) return { status, headers, body };
  const { type, title } = problemNames(headers['content-type'], body);
  const { 'content-type': _type, ...rest } = headers;
  return { status, headers: rest, body: '', cut: { bytes, type, title } };
}

function problemNames(contentType: string | undefined, body: string): { type?: string; title?: string } {
  if (!contentType?.startsWith(PROBLEM_CONTENT_TYPE)) return {};
  try {
    const parsed = JSON.parse(body) as { type?: unknown; title?: unknown };
    return {
      type: typeof parsed.type === 'string' ? parsed.type : undefined,
      title: typeof parsed.title === 'string' ? parsed.title : undefined,
    };
  } catch {
    return {};
  }
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  reply.header(REPLAYED, 'true');
  if (answer.cut === undefined) return reply.send(answer.body);
  const { bytes, type, title } = answer.cut;
  const detail =
    `The first answer to this Idempotency-Key had ${bytes} bytes, more than are kept: its status` +
    `${type === undefined ? '' : ' and problem type'} are replayed, not its body. Send the request with a new key to see it whole`;
  return reply.type(PROBLEM_CONTENT_TYPE).send(
    JSON.stringify({
      type: type ?? `${TYPE_BASE}answer-not-kept`,
      title: title ?? 'Answer not kept',
      status: answer.status,
      detail,
      instance: reply.request.id,
    }),
  );
}

export const pruneIdempotencyKeys: ScheduledTask = {
  name: 'platform:prune_idempotency_keys',
  everySeconds: 3600,
  async run({ pool, logger, signal }) {
    const deleted = await sweep(
      pool,
      `WITH batch AS MATERIALIZED (
         SELECT claim FROM idempotency_keys WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)
       DELETE FROM idempotency_keys k USING batch WHERE k.claim = batch.claim`,
      [],
      signal,
    );
    if (deleted > 0) logger.info({ deleted }, 'removed expired idempotency keys');
  },
};

const PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  description:
    `Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for ${KEY_TTL_HOURS} h, ` +
    'per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, ' +
    'and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. ' +
    '5xx and 429 answers are not kept: the same key may be sent again.',
  'x-immogate-extension': true,
};

const ANSWERS: Record<string, string> = {
  '409': 'A request with this Idempotency-Key is still being processed: retry after Retry-After',
  '422': 'This Idempotency-Key was used for another request (another body or path)',
};

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Adds `key` to the keys a node of a real document lists as ours (nothing when the whole node is ours). */
function markAdded(node: Node, key: string): void {
  const mark = node['x-immogate-extension'];
  if (mark === true) return;
  const listed = Array.isArray(mark) ? mark : [];
  if (!listed.includes(key)) listed.push(key);
  node['x-immogate-extension'] = listed;
}

/**
 * Documents the header on every POST of an OpenAPI document, and its 409 and 422 where the
 * operation lists no such answer; each addition marked x-immogate-extension.
 */
export function documentIdempotency(document: Node, problem: (description: string) => Node): void {
  const paths = isNode(document.paths) ? document.paths : {};
  for (const methods of Object.values(paths)) {
    const operation = isNode(methods) ? methods.post : undefined;
    if (!isNode(operation)) continue;
    if (Array.isArray(operation.parameters)) operation.parameters.push({ ...PARAMETER });
    else {
      operation.parameters = [{ ...PARAMETER }];
      markAdded(operation, 'parameters');
    }
    if (!isNode(operation.responses)) continue;
    const responses = operation.responses;
    for (const [status, description] of Object.entries(ANSWERS)) {
      if (responses[status] === undefined) responses[status] = { ...problem(description), 'x-immogate-extension': true };
    }
  }
}
