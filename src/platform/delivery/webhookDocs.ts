/*
 * What the API documents say of a webhook delivery (its headers, how to verify it, how its answer
 * is read), beside the delivery that behaves so; the APIs' docs put it into their callbacks.
 */
import { WEBHOOK_USER_AGENT } from './deliveryStream.js';

/**
 * The Standard Webhooks headers every webhook carries (signing.ts), as the
 * parameters of a callback operation.
 */
export function signatureHeaderParameters(): Record<string, unknown>[] {
  return [
    {
      name: 'webhook-id',
      in: 'header',
      required: true,
      schema: { type: 'string' },
      description: 'The delivery: the same on every retry of it. Deliveries come at least once: skip an id you have processed.',
    },
    {
      name: 'webhook-timestamp',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$' },
      description: 'Unix seconds when this attempt was sent.',
    },
    {
      name: 'webhook-signature',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+$' },
      description: '`v1,` followed by the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`.',
    },
  ];
}

/** How a receiver checks a webhook, `key` naming what keys the signature. */
export function verifyingSignatures(key: string): string {
  return (
    '**Verifying a signature** (Standard Webhooks): compute the HMAC-SHA256, keyed with the UTF-8 bytes of ' +
    `${key}, of \`{webhook-id}.{webhook-timestamp}.{body}\` (the body exactly as received, before any JSON parsing), ` +
    'encode it in base64, and compare it in constant time with the part after `v1,` of `webhook-signature`. Refuse a ' +
    '`webhook-timestamp` more than a few minutes from your clock. A Standard Webhooks library does all of it, e.g. in ' +
    "Node `new Webhook(key, { format: 'raw' }).verify(body, headers)` of the `standardwebhooks` package. The request " +
    `comes with \`Content-Type: application/json\` and \`User-Agent: ${WEBHOOK_USER_AGENT}\`.`
  );
}

/** How a delivery reads the receiver's answer (deliveryStream.ts); `gone` says what a 410 ends. */
export function deliveryAnswers(gone: string): { success: string; gone: string; other: string } {
  return {
    success: 'Delivered: any 2xx answer within 30 seconds counts; nothing more is sent for this webhook-id.',
    gone: `Gone: ${gone}; this delivery is not retried.`,
    other:
      'Any other answer (redirects are not followed), or none within 30 seconds: retried on the schedule of ' +
      'WEBHOOK_RETRY_SCHEDULE (by default after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h), or after the Retry-After the answer asks for.',
  };
}
