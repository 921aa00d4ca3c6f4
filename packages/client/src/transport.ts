/*
 * How every call goes out: the User-Agent, the bearer token of the API's audience, and the retry
 * policy. openapi-fetch builds each typed request and hands it here as its fetch; a Request is
 * cloned for each attempt, so a body can be sent again. An error status that is final (after the
 * retries) is thrown here as a ProblemError, so every API method either returns its typed answer
 * or throws the problem.
 *
 * Every POST to an API carries an Idempotency-Key (the caller's, or one generated here), the same
 * on each of its attempts: the server answers a repeated key with the first answer instead of
 * writing again, so a POST whose answer was lost is retried like a PUT.
 *
 * Each API's calls are paced by the quotas its answers announce (pacing.ts): a request of a kind
 * the server said is used up waits until it said it is whole again.
 */
import { randomUUID } from 'node:crypto';
import { ProblemError } from './errors.js';
import { Pacer } from './pacing.js';
import { discard, isIdempotent, type RetryPolicy } from './retry.js';
import type { Fetch, TokenCache, TokenTarget } from './tokens.js';

/** The final answer when it is a success (or 304, which a conditional GET asks for); else its problem, thrown. */
async function checked(request: Request, response: Response): Promise<Response> {
  if (response.ok || response.status === 304) return response;
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page, an S3 XML error): kept as the text it is.
  }
  throw new ProblemError(response, body, { method: request.method, url: request.url });
}

export const IDEMPOTENCY_KEY = 'idempotency-key';

/** What a write method takes besides its body. */
export interface WriteOptions {
  /** The Idempotency-Key to send (1 to 255 printable ASCII characters); one is generated when absent. Reuse it to retry the same write yourself. */
  idempotencyKey?: string;
}

/** The headers that carry `options` (none when there is nothing to send). */
export function writeHeaders(options: WriteOptions): Record<string, string> {
  return options.idempotencyKey === undefined ? {} : { [IDEMPOTENCY_KEY]: options.idempotencyKey };
}

export class Transport {
  constructor(
    private readonly tokens: TokenCache,
    private readonly retry: RetryPolicy,
    private readonly userAgent: string,
    private readonly fetch: Fetch,
  ) {}

  /** The fetch of one API: every request carries a token for `target`, paced by the API's quotas. */
  forApi(target: TokenTarget): Fetch {
    const pacer = new Pacer();
    return async (request) => {
      if (request.method === 'POST' && !request.headers.has(IDEMPOTENCY_KEY)) request.headers.set(IDEMPOTENCY_KEY, randomUUID());
      return checked(request, await this.retry.run(this.describe(request), () => this.sendWithToken(request, target, pacer)));
    };
  }

  /** A request without a token (a presigned upload URL carries its own authorisation). */
  async send(request: Request): Promise<Response> {
    return checked(request, await this.retry.run(this.describe(request), () => this.fetch(this.attempt(request))));
  }

  private describe(request: Request): { method: string; url: string; idempotent: boolean; keyed: boolean } {
    const keyed = request.headers.has(IDEMPOTENCY_KEY);
    return { method: request.method, url: request.url, idempotent: keyed || isIdempotent(request.method), keyed };
  }

  private attempt(request: Request): Request {
    const attempt = request.clone();
    attempt.headers.set('user-agent', this.userAgent);
    return attempt;
  }

  /**
   * One attempt with the cached token. A 401 to a cached token may mean the token was revoked or
   * the server's keys changed: the token is dropped and the request sent once more with a new one.
   */
  private async sendWithToken(request: Request, target: TokenTarget, pacer: Pacer): Promise<Response> {
    for (let renewed = false; ; renewed = true) {
      const token = await this.tokens.token(target);
      const attempt = this.attempt(request);
      attempt.headers.set('authorization', `Bearer ${token}`);
      await pacer.before(request.method);
      const response = await this.fetch(attempt);
      pacer.after(response);
      if (response.status !== 401 || renewed) return response;
      this.tokens.invalidate(target, token);
      await discard(response);
    }
  }
}
