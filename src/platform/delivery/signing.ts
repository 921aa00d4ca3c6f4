/*
 * Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-signature` is
 * `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`. The key is the secret's own bytes
 * (UTF-8), which receivers use as-is, e.g. `new Webhook(secret, { format: 'raw' })` of the
 * standardwebhooks package (that package maps characters to single bytes, so it agrees for
 * ASCII secrets: APIs should keep secrets ASCII). The timestamp is the attempt's, so receivers
 * that refuse stale messages accept a retry; the id stays the delivery's for deduplication.
 */
import { createHmac } from 'node:crypto';

export function signatureHeaders(secret: string, id: string, body: string, timestampSeconds: number): Record<string, string> {
  const signature = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
