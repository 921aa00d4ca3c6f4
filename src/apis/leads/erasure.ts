import type pg from 'pg';
import { inTransaction } from '../../platform/db/pool.js';
import { SOURCE } from './subscriptions.js';

/**
 * GDPR erasure of a lead author's personal data, across every agency and environment (an operator
 * action: it runs as the owner role, outside withTenant).
 *
 * The spec's erased shape is applied as it stands: firstName, lastName, name, gender, language and
 * message null, phoneNumbers empty. The email stays: the spec leaves it out of that list and types it
 * as a string, agencies keep a trace that a contact request came in (the lead stays listable and
 * readable), and it is what finds the author's leads again when the request is repeated.
 *
 * Stored webhook payloads (the Lead JSON of each notification, kept for retries and redeliveries)
 * get the same fields emptied, so no later attempt sends the erased data again.
 */

export interface ErasureResult {
  /** The address as given (trimmed). */
  email: string;
  /** Leads whose personal data this call erased; leads erased before are not counted again. */
  leadsErased: number;
  /** Stored notifications whose payload this call scrubbed. */
  notificationsScrubbed: number;
}

const ERASED_CONTACT = { firstName: null, lastName: null, name: null, gender: null, language: null, message: null, phoneNumbers: [] };

export async function eraseAuthor(pool: pg.Pool, email: string): Promise<ErasureResult> {
  const address = email.trim();
  return inTransaction(pool, async (client) => {
    const erased = await client.query(
      `UPDATE leads SET first_name = NULL, last_name = NULL, gender = NULL, language = NULL, message = NULL,
                        phone_numbers = '[]', erased_at = now()
        WHERE lower(email) = lower($1) AND erased_at IS NULL`,
      [address],
    );
    // Every lead of the author, erased now or before: a payload a failed earlier run left behind is scrubbed too.
    const scrubbed = await client.query(
      `WITH scrubbed AS (
         SELECT d.id, jsonb_set(d.payload, '{contactRequest}', (d.payload -> 'contactRequest') || $2::jsonb) AS payload
           FROM webhook_deliveries d
          WHERE d.source = $3 AND jsonb_typeof(d.payload -> 'contactRequest') = 'object'
            AND d.payload -> 'metadata' ->> 'leadId' IN (SELECT id::text FROM leads WHERE lower(email) = lower($1)))
       UPDATE webhook_deliveries d SET payload = s.payload
         FROM scrubbed s WHERE d.id = s.id AND d.payload IS DISTINCT FROM s.payload`,
      [address, JSON.stringify(ERASED_CONTACT), SOURCE],
    );
    return { email: address, leadsErased: erased.rowCount ?? 0, notificationsScrubbed: scrubbed.rowCount ?? 0 };
  });
}
