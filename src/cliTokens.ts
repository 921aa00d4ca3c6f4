/*
 * Tokens for the command line (`immogate token`, `immogate demo`): asked of the running server's
 * token endpoint with a client's secret, as any client asks; or, without a secret, minted through
 * the database for one of its clients, with the endpoint's own checks and its issuance recorded.
 * The second is the operator's way, for whoever can open the database and its sealed signing key
 * (DATA_DIR or DATABASE_URL, and the secrets key): client secrets are stored hashed, so the demo
 * client's cannot be read back. It reuses its tokens, as the review asks of every client.
 */
import type { Config } from './config.js';
import { messageOf } from './platform/caught.js';
import { apiById, audiences, type ApiDescriptor, type Environment } from './platform/catalogue.js';
import { findActiveClient, listClients, type Client } from './platform/auth/clients.js';
import { KeyStore } from './platform/auth/keys.js';
import { OAuthError, grantToken, type TokenAnswer } from './platform/auth/tokenEndpoint.js';
import type { Pool } from './platform/db/pool.js';
import { sealerFor } from './platform/secrets/sealer.js';

/** The APIs by the names the command line uses. */
export const API_NAMES: Readonly<Record<string, ApiDescriptor['id']>> = { caas: 'caas', listings: 'clim', leads: 'leads' };

export class TokenError extends Error {}

export interface WantedToken {
  api: ApiDescriptor;
  environment: Environment;
  agency: string;
  /** Space-separated scopes; absent, every scope the client holds for the API. */
  scope?: string;
  /** The server's PUBLIC_URL: where to ask, and the issuer and audiences of its tokens. */
  url: string;
}

function audienceOf(wanted: WantedToken) {
  const audience = audiences(wanted.url).find((a) => a.api.id === wanted.api.id && a.environment === wanted.environment);
  if (!audience) throw new Error(`no audience for ${wanted.api.id} in ${wanted.environment}`);
  return audience;
}

/** POST /oauth/token of the server at `wanted.url`, as any client does. */
export async function requestToken(wanted: WantedToken, credentials: { clientId: string; secret: string }): Promise<TokenAnswer> {
  let response: Response;
  try {
    response = await fetch(`${wanted.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.secret,
        audience: audienceOf(wanted).url,
        intermediary_id: wanted.agency,
        ...(wanted.scope === undefined ? {} : { scope: wanted.scope }),
      }),
      signal: AbortSignal.timeout(30_000),
      // A redirect would carry the secret on to wherever it points.
      redirect: 'error',
    });
  } catch (error) {
    throw new TokenError(`no immogate answers at ${wanted.url}: ${messageOf(error instanceof Error && error.cause ? error.cause : error)}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const member = (name: string) => (typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined);
  if (response.status !== 200 || typeof member('access_token') !== 'string') {
    const reason =
      member('error') === undefined ? text.slice(0, 200) : `${String(member('error'))}: ${String(member('error_description'))}`;
    throw new TokenError(`the token endpoint of ${wanted.url} answered ${response.status} ${reason}`);
  }
  // The endpoint's own answer, checked above for the member the caller reads.
  return body as TokenAnswer;
}

/** The client to mint for: the one named, or the only active one that may get this token. */
function chooseClient(clients: readonly Client[], wanted: WantedToken, clientId: string | undefined): Client {
  const active = clients.filter((client) => client.disabledAt === null);
  if (clientId !== undefined) {
    const named = active.find((client) => client.clientId === clientId);
    if (!named) throw new TokenError(`no active client ${clientId}`);
    return named;
  }
  const prefix = `${wanted.api.scopePrefix}:`;
  const fitting = active.filter(
    (client) =>
      client.environments.includes(wanted.environment) &&
      client.intermediaries.includes(wanted.agency) &&
      client.scopes.some((scope) => scope.startsWith(prefix)),
  );
  const only = fitting[0];
  if (fitting.length === 1 && only) return only;
  const what = `${wanted.api.id} tokens for ${wanted.agency} in ${wanted.environment}`;
  if (fitting.length === 0) throw new TokenError(`no active client may get ${what}; create one with immogate clients create`);
  throw new TokenError(
    `${fitting.length} clients may get ${what} (${fitting.map((client) => client.clientId).join(', ')}): choose one with --client`,
  );
}

/**
 * A token handed out again rather than a new one only while it has this long to live: enough for
 * a walkthrough or a script started with it, which would otherwise fail halfway on an expired token.
 */
export const REUSE_MIN_SECONDS = 3600;

/**
 * A token minted through the database for `clientId`, or for the only client that may get it; or
 * the one minted before for the same client, API, environment, agency and scopes, signed again,
 * while it is valid for REUSE_MIN_SECONDS more and not revoked (grantToken).
 */
export async function mintToken(
  pool: Pool,
  config: Config,
  wanted: WantedToken,
  clientId?: string,
): Promise<{ answer: TokenAnswer; clientId: string }> {
  const chosen = chooseClient(await listClients(pool), wanted, clientId);
  // Read again with what a token needs of it (its token generation), as the token endpoint reads it.
  const client = await findActiveClient(pool, chosen.clientId);
  if (!client) throw new TokenError(`no active client ${chosen.clientId}`);
  const keys = await KeyStore.open(pool, sealerFor(config));
  const params: Record<string, string> = { intermediary_id: wanted.agency, ...(wanted.scope === undefined ? {} : { scope: wanted.scope }) };
  try {
    const answer = await grantToken(pool, keys, wanted.url, client, audienceOf(wanted), params, { reuseForSeconds: REUSE_MIN_SECONDS });
    return { answer, clientId: client.clientId };
  } catch (error) {
    if (error instanceof OAuthError) throw new TokenError(`${client.clientId}: ${error.description}`);
    throw error;
  }
}

/** The API of a command-line name (caas, listings, leads). */
export function apiNamed(name: string): ApiDescriptor {
  const id = API_NAMES[name];
  if (id === undefined) throw new TokenError(`unknown API "${name}"; use one of ${Object.keys(API_NAMES).join(', ')}`);
  return apiById(id);
}

export const API_CHOICES = Object.keys(API_NAMES);
