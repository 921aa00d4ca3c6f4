/*
 * What a client is made with, and what follows from it: each API's base URL and token audience
 * (by default the API's root under `baseUrl` in the environment; each may be set apart, since the
 * real APIs live on hosts of their own), and the User-Agent every call carries.
 */
import type { RetryOptions } from './retry.js';
import type { Fetch } from './tokens.js';
import { CLIENT_VERSION } from './version.js';

export type Environment = 'production' | 'sandbox';
export type ApiName = 'classifieds' | 'listings' | 'leads';

/** Where one API is, for whom its tokens are, and which scopes they carry. */
export interface ApiEndpoint {
  /** The API's root URL (default: `baseUrl` + the API's root in the environment, e.g. `https://host/sandbox/caas/v4`). */
  baseUrl?: string;
  /** The token audience (default: the API's root URL as above, which is what immogate expects). */
  audience?: string;
  /** Space-separated scopes to ask for (default: none asked, so every scope the client holds for the API). */
  scope?: string;
}

export interface ClientOptions {
  /** Where immogate is, e.g. `http://127.0.0.1:8080` (its PUBLIC_URL). */
  baseUrl: string;
  /** The token endpoint (default: `baseUrl` + `/oauth/token`). */
  tokenUrl?: string;
  clientId: string;
  clientSecret: string;
  /** The agency (intermediary_id) the client acts for. */
  agency: string;
  environment: Environment;
  /**
   * Your software as `name/version` (e.g. `MyCrm/2.1.0`). The classifieds API requires three
   * `name/version` parts: the client adds `immogate-client/<version>` and `node/<version>` to
   * fewer; three are sent as given.
   */
  userAgent: string;
  /** Per-API base URL, audience and scope, over the defaults. */
  apis?: Partial<Record<ApiName, ApiEndpoint>>;
  /** Retries of 429 and of 5xx on idempotent calls (see RetryOptions); false: none. */
  retry?: RetryOptions | false;
  /** How long before expiry a token is replaced (default: a tenth of its lifetime, at most a minute). */
  refreshTokensBeforeExpiryMs?: number;
  /** The fetch to send requests with (default: the global fetch of Node 20+). */
  fetch?: Fetch;
}

const ROOTS: Record<ApiName, string> = {
  classifieds: '/caas/v4',
  listings: '/import-listings/v1',
  leads: '/seeker-leads/v1',
};

export interface ResolvedEndpoint {
  baseUrl: string;
  audience: string;
  scope?: string;
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function absoluteUrl(name: string, value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(`${name} must be an absolute http(s) URL, not ${JSON.stringify(value)}`);
  }
  return withoutTrailingSlash(url.toString());
}

export function resolveEndpoint(options: ClientOptions, api: ApiName): ResolvedEndpoint {
  const given = options.apis?.[api] ?? {};
  const environmentRoot = `${options.environment === 'sandbox' ? '/sandbox' : ''}${ROOTS[api]}`;
  const defaultRoot = `${absoluteUrl('baseUrl', options.baseUrl)}${environmentRoot}`;
  const baseUrl = given.baseUrl === undefined ? defaultRoot : absoluteUrl(`apis.${api}.baseUrl`, given.baseUrl);
  return {
    baseUrl,
    audience: given.audience ?? (given.baseUrl === undefined ? defaultRoot : baseUrl),
    ...(given.scope === undefined ? {} : { scope: given.scope }),
  };
}

export function tokenUrlOf(options: ClientOptions): string {
  return options.tokenUrl === undefined
    ? `${absoluteUrl('baseUrl', options.baseUrl)}/oauth/token`
    : absoluteUrl('tokenUrl', options.tokenUrl);
}

const PART = /^[^/\s]+\/[^/\s]+$/;

/** The User-Agent sent: the caller's one to three `name/version` parts, completed to the three the classifieds API wants. */
export function userAgentOf(given: string): string {
  const parts = given
    .trim()
    .split(/\s+/)
    .filter((part) => part !== '');
  if (parts.length < 1 || parts.length > 3 || !parts.every((part) => PART.test(part))) {
    throw new TypeError(`userAgent must be one to three name/version parts such as "MyCrm/2.1.0", not ${JSON.stringify(given)}`);
  }
  const added = [`immogate-client/${CLIENT_VERSION}`, `node/${process.versions.node}`];
  return [...parts, ...added.slice(0, 3 - parts.length)].join(' ');
}

export function checkOptions(options: ClientOptions): void {
  for (const name of ['clientId', 'clientSecret', 'agency'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '') throw new TypeError(`${name} must be a non-empty string`);
  }
  if (options.environment !== 'production' && options.environment !== 'sandbox') {
    throw new TypeError(`environment must be "production" or "sandbox", not ${JSON.stringify(options.environment)}`);
  }
}
