/*
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
import type pg from 'pg';
import { retryingConflicts } from '../../../platform/db/locks.js';
import { inTransaction } from '../../../platform/db/pool.js';
import type { ErasureResult } from '../model/erasure.js';
import { eraseLeadsOf, scrubNotificationsOf } from '../repository.js';

export async function eraseAuthor(pool: pg.Pool, email: string): Promise<ErasureResult> {
  const address = email.trim();
  // Leads, then their notifications in id order, then the attempts (db/locks.ts).
  return retryingConflicts(() =>
    inTransaction(pool, async (client) => {
      const leadsErased = await eraseLeadsOf(client, address);
      // Every lead of the author, erased now or before: a payload a failed earlier run left behind is scrubbed too.
      const notificationsScrubbed = await scrubNotificationsOf(client, address);
      return { email: address, leadsErased, notificationsScrubbed };
    }),
  );
}
