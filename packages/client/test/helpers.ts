/*
 * What the client's test files share: a client of the file's immogate (useServer of the root test
 * helpers), the token issuance immogate recorded for it, read through the report behind
 * `immogate clients report`, and a classified to send.
 */
import { issuanceReport } from '../../../src/platform/auth/clients.js';
import type { ServerFixture } from '../../../test/helpers.js';
import { type Classified, type ClientOptions, ImmogateClient } from '../src/index.js';

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

/** A rental that SL accepts (BD, when asked, refuses it: no picture, no description), with its own offererEstateId. */
export function rental(offererEstateId: string, portals: Classified['portals'] = ['SL']): Classified {
  return {
    portals,
    data: {
      estateType: 'APARTMENT',
      estateSubType: { apartment: 'LOFT' },
      distributionType: 'RENT',
      location: { postalcode: '75011', city: 'Paris', street: 'Rue Oberkampf', houseNumber: '12', country: 'FR' },
      prices: { currency: 'EUR', rent: { baseRent: { amount: 1900 } } },
      metaData: { source: { sourceSystem: 'MyCrm', sourceSystemVersion: '1.0.0', offererMarketingKey: 'k-1', offererEstateId } },
    },
  };
}
