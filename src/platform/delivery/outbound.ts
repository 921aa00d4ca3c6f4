/*
 * The one HTTP client for calls to addresses that users give us (webhook receivers, media URLs).
 * It refuses non-public addresses, bounds time and size, and follows redirects itself so that
 * every hop passes the same checks.
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { Readable } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';
import type { Config } from '../../config.js';
import type { Environment } from '../catalogue.js';
import { forbiddenReason, parseIp } from './addresses.js';
import { deadline } from '../deadline.js';
import { getOrMake } from '../memo.js';
import { messageOf, codeOf } from '../caught.js';

export type OutboundErrorKind =
  | 'invalid_url'
  | 'forbidden_address'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network'
  | 'aborted';

/** A failed outbound call. The message names the host, never the path or query (they may carry secrets), and suits an audit record. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

export interface OutboundPolicy {
  /** ALLOW_PRIVATE_TARGETS: lets calls reach loopback, private and other non-public addresses. */
  allowPrivateTargets: boolean;
  /**
   * Single IP addresses exempt from the address policy, for a known internal receiver when
   * opening every private range would be too much (tests use it to reach one loopback address).
   */
  allowAddresses?: readonly string[];
  /** TCP (and TLS) connection set-up. Default 5 s. */
  connectTimeoutMs?: number;
  /** From sending the request to the end of the response headers. Default 10 s. */
  headersTimeoutMs?: number;
  /** Longest silence between two chunks of the response body. Default 10 s. */
  bodyTimeoutMs?: number;
  /** The whole exchange, redirects included: a receiver trickling bytes cannot hold a call longer. Default 30 s. */
  totalTimeoutMs?: number;
  /** Default largest response body. Default 10 MiB. */
  maxBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  userAgent?: string;
}

export interface OutboundRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest response body accepted; beyond it the call is aborted (or, with `oversize: 'truncate'`, the body cut). */
  maxBytes?: number;
  oversize?: 'error' | 'truncate';
  /**
   * false: the body is read (and its size checked against maxBytes) but not kept; the response's
   * body is empty and `size` tells how large it was. A caller that only wants to know what it got
   * then holds no body in memory. Default true.
   */
  keepBody?: boolean;
  /** false: a 3xx is returned as it is (webhooks do not re-send signed payloads elsewhere). Default true. */
  followRedirects?: boolean;
  /** Aborts the call, e.g. a worker shutting down. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names, as received. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Bytes of the body as received (up to maxBytes). */
  size: number;
  /** The URL that answered, after redirects. */
  url: string;
  /** The body was cut at maxBytes (only with `oversize: 'truncate'`). */
  truncated: boolean;
}

export interface Outbound {
  request(request: OutboundRequest): Promise<OutboundResponse>;
  /** Closes kept-alive connections once in-flight calls end. */
  close(): Promise<void>;
}

/**
 * The address policy of the calls made for one environment: ALLOW_PRIVATE_TARGETS opens both;
 * dev mode (`immogate start --dev`) opens the sandbox only, so a receiver on the developer's own
 * machine gets the sandbox's webhooks and media while production's keep the SSRF policy.
 */
export function addressPolicy(
  config: Pick<Config, 'allowPrivateTargets' | 'dev'>,
  environment: Environment,
): { allowPrivateTargets: boolean } {
  return { allowPrivateTargets: config.allowPrivateTargets || (config.dev && environment === 'sandbox') };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// What may follow a redirect to another origin: credentials such as Authorization or an API key must not.
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-language', 'user-agent', 'content-type']);

function refused(host: string, address: string, reason: string): OutboundError {
  const shown = host === address ? address : `${host} (${address})`;
  return new OutboundError(
    'forbidden_address',
    `refused to connect to ${shown}: ${reason} address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true`,
  );
}

/**
 * Parses a target URL and applies the checks that need no DNS: http(s) only, no credentials,
 * and for an IP literal the address policy (a literal never reaches the DNS lookup that checks
 * names). API modules call it to refuse a bad subscription URL up front.
 */
export function checkTargetUrl(raw: string, policy: Pick<OutboundPolicy, 'allowPrivateTargets' | 'allowAddresses'>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'invalid URL: not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', `invalid URL: scheme ${url.protocol.slice(0, -1)} is not allowed, only http and https`);
  }
  if (url.username !== '' || url.password !== '')
    throw new OutboundError('invalid_url', 'invalid URL: credentials in URLs are not supported');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivateTargets && parseIp(host) !== undefined) {
    const reason = reasonToRefuse(host, policy.allowAddresses);
    if (reason !== undefined) throw refused(host, host, reason);
  }
  return url;
}

/**
 * Resolves like dns.lookup, then refuses the connection if any address is not public. The socket
 * connects to exactly the addresses checked here, so a name that resolves differently a moment
 * later (DNS rebinding) cannot slip through. All addresses must pass, not just one: a mixed
 * answer is a sign of trickery and costs legitimate receivers nothing.
 */
function guardedLookup(allowAddresses: readonly string[] | undefined) {
  return (
    hostname: string,
    options: dns.LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dns.lookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const entry of addresses) {
        const reason = reasonToRefuse(entry.address, allowAddresses);
        if (reason !== undefined) return callback(refused(hostname, entry.address, reason), []);
      }
      const first = addresses[0];
      if (options.all || !first) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}

function reasonToRefuse(address: string, allowAddresses: readonly string[] | undefined): string | undefined {
  return allowAddresses?.includes(address) ? undefined : forbiddenReason(address);
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** Turns undici's and node's errors into the message an operator reads in the audit. */
function describe(
  error: unknown,
  url: URL,
  limits: Required<Pick<OutboundPolicy, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>>,
): OutboundError {
  if (error instanceof OutboundError) return error;
  const host = url.host;
  const code = codeOf(error);
  const message = messageOf(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new OutboundError('timeout', `no connection to ${host} within ${seconds(limits.connectTimeoutMs)}`, { cause: error });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new OutboundError('timeout', `no response from ${host} within ${seconds(limits.headersTimeoutMs)}`, { cause: error });
    case 'UND_ERR_BODY_TIMEOUT':
      return new OutboundError('timeout', `response body from ${host} stalled for ${seconds(limits.bodyTimeoutMs)}`, { cause: error });
    case 'ECONNREFUSED':
      return new OutboundError('network', `connection refused by ${host}`, { cause: error });
    case 'ENOTFOUND':
      return new OutboundError('network', `host ${url.hostname} not found`, { cause: error });
    case 'EAI_AGAIN':
      return new OutboundError('network', `DNS lookup of ${url.hostname} failed temporarily`, { cause: error });
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return new OutboundError('network', `connection to ${host} closed before a complete response`, { cause: error });
    default:
      if (code !== undefined && /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code)) {
        return new OutboundError('network', `TLS with ${host} failed: ${message}`, { cause: error });
      }
      return new OutboundError('network', `request to ${host} failed: ${message}`, { cause: error });
  }
}

export function createOutbound(policy: OutboundPolicy): Outbound {
  const limits = {
    connectTimeoutMs: policy.connectTimeoutMs ?? 5_000,
    headersTimeoutMs: policy.headersTimeoutMs ?? 10_000,
    bodyTimeoutMs: policy.bodyTimeoutMs ?? 10_000,
  };
  const totalTimeoutMs = policy.totalTimeoutMs ?? 30_000;
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs, ...(policy.allowPrivateTargets ? {} : { lookup: guardedLookup(policy.allowAddresses) }) },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
  });

  async function readBody(body: Readable, declared: number, max: number, truncate: boolean, keep: boolean, url: URL) {
    const tooLarge = () => new OutboundError('too_large', `response from ${url.host} is larger than ${max} bytes`);
    if (Number.isFinite(declared) && declared > max && !truncate) {
      discard(body);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    // undici's body has no encoding set: it yields Buffers (Readable is typed any).
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size + chunk.length > max) {
        discard(body);
        if (!truncate) throw tooLarge();
        if (keep) chunks.push(chunk.subarray(0, max - size));
        return { body: Buffer.concat(chunks), size: max, truncated: true };
      }
      if (keep) chunks.push(chunk);
      size += chunk.length;
    }
    return { body: Buffer.concat(chunks), size, truncated: false };
  }

  async function request(req: OutboundRequest): Promise<OutboundResponse> {
    let url = checkTargetUrl(req.url, policy);
    // Started only after the checks that throw (see deadline()).
    const limit = deadline(totalTimeoutMs, req.signal);
    const signal = limit.signal;
    let method = (req.method ?? 'GET').toUpperCase();
    let body = req.body;
    let headers: Record<string, string> = { 'user-agent': policy.userAgent ?? 'immogate', ...lowerCase(req.headers ?? {}) };
    const maxRedirects = policy.maxRedirects ?? 5;
    try {
      for (let hop = 0; ; hop++) {
        const response = await undiciRequest(url, { dispatcher: agent, method, headers, body, signal });
        const location = response.headers.location;
        if (req.followRedirects !== false && REDIRECTS.has(response.statusCode) && typeof location === 'string') {
          await response.body.dump();
          if (hop >= maxRedirects)
            throw new OutboundError('too_many_redirects', `more than ${maxRedirects} redirects, the last from ${url.host}`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new OutboundError('invalid_url', `invalid redirect location from ${url.host}`);
          }
          next = checkTargetUrl(next.toString(), policy);
          // As browsers do: 303 always, and 301/302 after a POST, continue as a GET without the body.
          if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            delete headers['content-type'];
          }
          if (next.origin !== url.origin)
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name)));
          url = next;
          continue;
        }
        const declared = Number(response.headers['content-length'] ?? NaN);
        const read = await readBody(
          response.body,
          declared,
          req.maxBytes ?? policy.maxBytes ?? 10 * 1024 * 1024,
          req.oversize === 'truncate',
          req.keepBody !== false,
          url,
        );
        return { status: response.statusCode, headers: response.headers, url: url.toString(), ...read };
      }
    } catch (error) {
      if (req.signal?.aborted) throw new OutboundError('aborted', `call to ${url.host} aborted`, { cause: error });
      if (signal.aborted)
        throw new OutboundError('timeout', `no complete response from ${url.host} within ${seconds(totalTimeoutMs)}`, { cause: error });
      throw describe(error, url, limits);
    } finally {
      limit.end();
    }
  }

  return { request, close: () => agent.close() };
}

/** Drops the rest of a body: undici reports the abort as a stream error, which must not go unhandled. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const shared = new WeakMap<object, Map<string, Outbound>>();

/**
 * One client per owner (a worker's configuration) and policy, kept for the life of the owner:
 * a worker sending hundreds of requests a second to the same hosts (a CDN, a CRM's webhook
 * receiver) reuses kept-alive connections instead of opening one per job, which was a good part
 * of the worker's CPU at that rate. The address policy is checked when a connection is made, so a
 * kept connection is one that passed it; idle connections close after a few seconds and never
 * hold the process open. Another owner (tests run workers with other policies in one process)
 * never gets these connections.
 */
export function sharedOutbound(owner: object, policy: OutboundPolicy): Outbound {
  const byPolicy = getOrMake(shared, owner, () => new Map<string, Outbound>());
  return getOrMake(byPolicy, JSON.stringify(policy), () => createOutbound(policy));
}
