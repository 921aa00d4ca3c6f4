/*
 * What the client throws: a refused API call as the problem the API answered (RFC 7807), a refused
 * token request in RFC 6749's terms, a webhook that does not verify, a wait that ran out of time.
 * Each is an ImmogateError, so one `instanceof` catches any of them.
 */

/** One failure a validation problem names: a JSON pointer, parameter or header, and why. */
export interface ProblemFieldError {
  name: string;
  reason: string;
}

/** An API's error answer (RFC 7807), with the members immogate and the real APIs add. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  /** The request's traceparent: quote it to whoever runs the API. */
  instance?: string;
  errors?: ProblemFieldError[];
  errorSource?: string;
  [member: string]: unknown;
}

export class ImmogateError extends Error {
  override name = 'ImmogateError';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMember(value: Record<string, unknown>, name: string): string | undefined {
  const member = value[name];
  return typeof member === 'string' ? member : undefined;
}

function fieldErrors(value: unknown): ProblemFieldError[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((entry) => ({ name: String(entry.name ?? ''), reason: String(entry.reason ?? '') }));
}

/** The seconds or HTTP date of a Retry-After header, as milliseconds from `now` (undefined when absent or unreadable). */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** An API answered an error status: its problem, whatever its content type (the real classifieds API writes application/json+problem). */
export class ProblemError extends ImmogateError {
  override name = 'ProblemError';
  readonly status: number;
  readonly type: string | undefined;
  readonly title: string;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  /** Every failure a validation problem lists (empty for other problems). */
  readonly errors: ProblemFieldError[];
  readonly errorSource: string | undefined;
  /** The body as answered: the problem object, or the text of an answer that was not JSON. */
  readonly body: unknown;
  /** Retry-After of a 429 or 503, in milliseconds, when the answer had one. */
  readonly retryAfterMs: number | undefined;
  readonly method: string;
  readonly url: string;

  constructor(response: Response, body: unknown, request: { method: string; url: string }) {
    const problem = isRecord(body) ? body : {};
    const title = stringMember(problem, 'title') ?? (response.statusText || `HTTP ${response.status}`);
    const detail = stringMember(problem, 'detail');
    super(`${request.method} ${request.url}: ${response.status} ${title}${detail === undefined ? '' : `: ${detail}`}`);
    this.status = response.status;
    this.type = stringMember(problem, 'type');
    this.title = title;
    this.detail = detail;
    this.instance = stringMember(problem, 'instance') ?? response.headers.get('traceparent') ?? undefined;
    this.errors = fieldErrors(problem.errors);
    this.errorSource = stringMember(problem, 'errorSource');
    this.body = body;
    this.retryAfterMs = retryAfterMs(response.headers.get('retry-after'));
    this.method = request.method;
    this.url = request.url;
  }

  /** The problem as the API sent it (empty members left out). */
  get problem(): Problem {
    return isRecord(this.body) ? { ...this.body } : { status: this.status, title: this.title };
  }
}

/** The token service refused (RFC 6749 section 5.2): `error` is its code, such as invalid_client or invalid_target. */
export class TokenError extends ImmogateError {
  override name = 'TokenError';
  readonly status: number;
  readonly error: string;
  readonly errorDescription: string | undefined;
  readonly audience: string;

  /** `status` 0 and `error` "unreachable": no answer came from the token endpoint (`cause` says why). */
  constructor(status: number, body: unknown, audience: string, cause?: unknown) {
    const answer = isRecord(body) ? body : {};
    const error = stringMember(answer, 'error') ?? `http_${status}`;
    const description = stringMember(answer, 'error_description');
    const what = status === 0 ? 'failed' : `refused: ${status}`;
    super(`token request for ${audience} ${what} ${error}${description === undefined ? '' : `: ${description}`}`, { cause });
    this.status = status;
    this.error = error;
    this.errorDescription = description;
    this.audience = audience;
  }
}

/** A webhook whose headers, timestamp or signature do not hold up: answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends ImmogateError {
  override name = 'WebhookVerificationError';
}

/** A wait (classifieds.waitForTerminal) that ran out of time; `last` is what it saw last. */
export class WaitTimeoutError<T> extends ImmogateError {
  override name = 'WaitTimeoutError';
  constructor(
    message: string,
    readonly last: T,
  ) {
    super(message);
  }
}
