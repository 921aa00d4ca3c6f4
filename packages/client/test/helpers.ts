/*
 * What the client's test files share: a client of the file's immogate (useServer of the root test
 * helpers), and the token issuance immogate recorded for it, read through the report behind
 * `immogate clients report`.
 */
import { issuanceReport } from '../../../src/platform/auth/clients.js';
import type { ServerFixture } from '../../../test/helpers.js';
import { type ClientOptions, ImmogateClient } from '../src/index.js';

export const USER_AGENT = 'ClientTests/1.0.0';

/** A client of the fixture's client, acting for `agency` in production unless `options` say otherwise. */
export function clientOf(fixture: ServerFixture, agency: string, options: Partial<ClientOptions> = {}): ImmogateClient {
  return new ImmogateClient({
    baseUrl: fixture.server.base,
    clientId: fixture.client.clientId,
    clientSecret: fixture.client.secret,
    agency,
    environment: 'production',
    userAgent: USER_AGENT,
    ...options,
  });
}

/** Today's row of the issuance report of `clientId`: tokens issued, distinct audience and agency pairs, most for one pair. */
export async function tokensIssued(
  fixture: ServerFixture,
  clientId: string,
): Promise<{ tokens: number; targets: number; maxPerTarget: number }> {
  const rows = await issuanceReport(fixture.server.pool, 1, 5);
  const row = rows.find((candidate) => candidate.clientId === clientId);
  return row === undefined
    ? { tokens: 0, targets: 0, maxPerTarget: 0 }
    : { tokens: row.tokens, targets: row.targets, maxPerTarget: row.maxPerTarget };
}
