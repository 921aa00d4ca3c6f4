/*
 * OAuth2 client credentials tokens, one per audience (an API root in one environment) and scope,
 * reused until shortly before they expire. Calls that need a token while none is cached share
 * one token request, so a burst of calls at start-up costs one token, as the sandbox review
 * expects of a client.
 */
import { TokenError } from './errors.js';
import type { RetryPolicy } from './retry.js';

export type Fetch = (request: Request) => Promise<Response>;

/** Whom a token is for: the audience, and the scopes asked for (all the client holds when absent). */
export interface TokenTarget {
  audience: string;
  scope?: string;
}

export interface TokenSettings {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The intermediary_id of every token: the agency the client acts for. */
  agency: string;
  userAgent: string;
  /** How long before its expiry a token is replaced (default: a tenth of its lifetime, at most a minute). */
  refreshBeforeExpiryMs?: number;
  fetch: Fetch;
  retry: RetryPolicy;
}

interface CachedToken {
  value: string;
  /** When to ask for a new one (ms since the epoch). */
  renewAt: number;
}

function keyOf(target: TokenTarget): string {
  return `${target.audience} ${target.scope ?? ''}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly settings: TokenSettings) {}

  /** A token for `target`: the cached one while it is fresh, else the one a single shared request brings. */
  async token(target: TokenTarget): Promise<string> {
    const key = keyOf(target);
    const cached = this.tokens.get(key);
    if (cached !== undefined && Date.now() < cached.renewAt) return cached.value;
    let pending = this.pending.get(key);
    if (pending === undefined) {
      pending = this.request(target).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return (await pending).value;
  }

  /** Forgets `token` when it is still the cached one: the API refused it, so the next call asks for another. */
  invalidate(target: TokenTarget, token: string): void {
    const key = keyOf(target);
    if (this.tokens.get(key)?.value === token) this.tokens.delete(key);
  }

  private async request(target: TokenTarget): Promise<CachedToken> {
    const { tokenUrl, clientId, clientSecret, agency, userAgent } = this.settings;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      audience: target.audience,
      intermediary_id: agency,
    });
    if (target.scope !== undefined) form.set('scope', target.scope);
    // The lifetime counts from before the request, so the token is renewed early rather than late.
    const sentAt = Date.now();
    // A token request changes nothing but the issuance count: a 5xx or a lost connection is retried like an idempotent call.
    const response = await this.settings.retry
      .run({ method: 'POST', url: tokenUrl, idempotent: true }, () =>
        this.settings.fetch(
          new Request(tokenUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': userAgent },
            body: form.toString(),
          }),
        ),
      )
      .catch((error: unknown) => {
        // Unreachable after its own retries: a TokenError, so the API call that wanted the token does not retry it all again.
        throw new TokenError(0, { error: 'unreachable', error_description: `${tokenUrl}: ${String(error)}` }, target.audience, error);
      });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    if (!response.ok) throw new TokenError(response.status, body, target.audience);
    const accessToken = isRecord(body) ? body.access_token : undefined;
    const expiresIn = isRecord(body) ? body.expires_in : undefined;
    if (typeof accessToken !== 'string' || typeof expiresIn !== 'number' || !(expiresIn > 0)) {
      throw new TokenError(
        response.status,
        { error: 'invalid_response', error_description: 'no access_token and expires_in' },
        target.audience,
      );
    }
    const lifetimeMs = expiresIn * 1000;
    const margin = this.settings.refreshBeforeExpiryMs ?? Math.min(60_000, lifetimeMs / 10);
    const token = { value: accessToken, renewAt: sentAt + lifetimeMs - margin };
    this.tokens.set(keyOf(target), token);
    return token;
  }
}
