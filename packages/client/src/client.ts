/*
 * The client: one per agency and environment. It holds the token cache and the transport that
 * all three APIs share, and a typed openapi-fetch client per API at its base URL.
 */
import createClient from 'openapi-fetch';
import { Classifieds } from './classifieds.js';
import type { paths as CaasPaths } from './generated/caas.js';
import type { paths as LeadPaths } from './generated/leads.js';
import type { paths as ListingPaths } from './generated/listings.js';
import { Leads } from './leads.js';
import { Listings, Medias } from './listings.js';
import { type ClientOptions, checkOptions, resolveEndpoint, tokenUrlOf, userAgentOf } from './options.js';
import { RetryPolicy } from './retry.js';
import { TokenCache } from './tokens.js';
import { Transport } from './transport.js';

export class ImmogateClient {
  /** The classifieds ingestion API v4 (with its status webhook subscription as `classifieds.webhooks`). */
  readonly classifieds: Classifieds;
  /** The listing import API v1's listings. */
  readonly listings: Listings;
  /** The listing import API v1's media uploads. */
  readonly medias: Medias;
  /** The lead API v1 (with its notification subscriptions as `leads.subscriptions`). */
  readonly leads: Leads;
  /** The User-Agent every call carries. */
  readonly userAgent: string;

  constructor(options: ClientOptions) {
    checkOptions(options);
    this.userAgent = userAgentOf(options.userAgent);
    const retry = new RetryPolicy(options.retry);
    const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const tokens = new TokenCache({
      tokenUrl: tokenUrlOf(options),
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      agency: options.agency,
      userAgent: this.userAgent,
      refreshBeforeExpiryMs: options.refreshTokensBeforeExpiryMs,
      fetch,
      retry,
    });
    const transport = new Transport(tokens, retry, this.userAgent, fetch);
    const caas = resolveEndpoint(options, 'classifieds');
    const clim = resolveEndpoint(options, 'listings');
    const leads = resolveEndpoint(options, 'leads');
    this.classifieds = new Classifieds(createClient<CaasPaths>({ baseUrl: caas.baseUrl, fetch: transport.forApi(caas) }), this.userAgent);
    const listings = createClient<ListingPaths>({ baseUrl: clim.baseUrl, fetch: transport.forApi(clim) });
    this.listings = new Listings(listings);
    this.medias = new Medias(listings, transport);
    this.leads = new Leads(createClient<LeadPaths>({ baseUrl: leads.baseUrl, fetch: transport.forApi(leads) }));
  }
}
