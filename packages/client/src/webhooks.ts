/*
 * Verifies the webhooks immogate sends, signed the Standard Webhooks way: `webhook-signature`
 * holds one or more `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (several while a key
 * changes), keyed by the secret's UTF-8 bytes: the `secret` of the classifieds status webhook
 * subscription, or the `apiKey` of a lead notification subscription (which immogate also sends as
 * X-Api-Key). The body must be the raw bytes received, before any JSON parsing.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ClassifiedStatus } from './classifieds.js';
import { WebhookVerificationError } from './errors.js';
import type { Lead } from './leads.js';

/** A verified webhook: its kind, its webhook-id (the same on every attempt: drop repeats), when it was sent, and its payload. */
export type WebhookEvent =
  | { type: 'classified.status'; webhookId: string; timestamp: Date; data: ClassifiedStatus }
  | { type: 'lead.created'; webhookId: string; timestamp: Date; data: Lead }
  /** Signed with the secret, but of no kind this version of the client knows. */
  | { type: 'unknown'; webhookId: string; timestamp: Date; data: unknown };

/** Fetch's Headers, or node:http's request.headers. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the webhook-timestamp may be from now, either way (default 300 s: a replayed old message is refused). */
  toleranceSeconds?: number;
  /** The time to compare with (default: now). */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) throw new WebhookVerificationError(`${name} is repeated`);
    return value;
  }
  return undefined;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name);
  if (value === undefined || value === '') throw new WebhookVerificationError(`no ${name} header`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Equal without telling by how long it took: both sides are hashed to one length first. */
function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

function eventOf(webhookId: string, timestamp: Date, payload: unknown): WebhookEvent {
  // The payloads are the API's own objects, told apart by the members only each has (typed by the documents they come from).
  if (isRecord(payload) && isRecord(payload.metadata) && typeof payload.metadata.leadId === 'string' && isRecord(payload.contactRequest)) {
    return { type: 'lead.created', webhookId, timestamp, data: payload as Lead };
  }
  if (
    isRecord(payload) &&
    typeof payload.statusId === 'string' &&
    typeof payload.classifiedId === 'string' &&
    typeof payload.status === 'string'
  ) {
    return { type: 'classified.status', webhookId, timestamp, data: payload as ClassifiedStatus };
  }
  return { type: 'unknown', webhookId, timestamp, data: payload };
}

/**
 * Verifies a webhook and returns its typed event; throws WebhookVerificationError when a header is
 * missing, the timestamp is outside the tolerance, or no signature is one made with `secret` (or
 * with one of several, while a key changes).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((key) => key === '')) throw new TypeError('verifyWebhook needs a non-empty secret');
  const webhookId = required(headers, 'webhook-id');
  const timestampText = required(headers, 'webhook-timestamp');
  const signatures = required(headers, 'webhook-signature');

  if (!/^\d{1,12}$/.test(timestampText)) throw new WebhookVerificationError(`webhook-timestamp is not Unix seconds: ${timestampText}`);
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is more than ${tolerance} s from now (${now})`);
  }

  const body =
    typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = secrets.map((key) =>
    createHmac('sha256', Buffer.from(key, 'utf8')).update(`${webhookId}.${timestamp}.`).update(body).digest(),
  );
  const offered = signatures
    .split(/\s+/)
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const signed = offered.some((signature) =>
    expected.some((digest) => signature.length === digest.length && timingSafeEqual(signature, digest)),
  );
  if (!signed) throw new WebhookVerificationError('no webhook-signature matches the secret');

  // A lead notification also names its apiKey: one that is not the secret is not ours to trust.
  const apiKey = header(headers, 'x-api-key');
  if (apiKey !== undefined && !secrets.some((key) => sameSecret(key, apiKey))) {
    throw new WebhookVerificationError('X-Api-Key is not the secret the signature was checked with');
  }

  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  return eventOf(webhookId, new Date(timestamp * 1000), payload);
}
