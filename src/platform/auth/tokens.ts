/*
 * Access tokens: ES256 JWTs issued for one audience (an API root) and one intermediary, and their
 * verification with every claim checked.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify, errors } from 'jose';
import { ALGORITHM, type KeyStore } from './keys.js';
import { getOrMake } from '../memo.js';
import { messageOf } from '../caught.js';

export const TOKEN_LIFETIME_SECONDS = 86_400;
/** How far ahead of our clock a token's `iat` may be (clocks of several servers drift a little). */
const MAX_CLOCK_SKEW_SECONDS = 60;
const TOKEN_TYPE = 'at+jwt';

export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  jti: string;
  scope: string;
  intermediary_id: string;
  /** The client's token generation at issue (clients.ts, rotateSecret); 0 for tokens issued before generations existed. */
  token_generation: number;
}

export interface IssueRequest {
  issuer: string;
  clientId: string;
  audience: string;
  intermediaryId: string;
  scope: string;
  tokenGeneration: number;
}

/** A token's identity and lifetime: new ones for a new token, an issued token's to sign it again. */
export interface TokenTimes {
  jti: string;
  /** Seconds since the epoch, as the JWT carries them. */
  iat: number;
  exp: number;
}

/** Signs a new token, or with `same` the claims of one issued before again (same jti, iat and exp). */
export async function issueToken(keys: KeyStore, request: IssueRequest, same?: TokenTimes): Promise<{ token: string } & TokenTimes> {
  const { kid, key } = keys.signingKey();
  const iat = same?.iat ?? Math.floor(Date.now() / 1000);
  const { jti, exp } = same ?? { jti: randomUUID(), exp: iat + TOKEN_LIFETIME_SECONDS };
  const token = await new SignJWT({
    scope: request.scope,
    intermediary_id: request.intermediaryId,
    token_generation: request.tokenGeneration,
  })
    .setProtectedHeader({ alg: ALGORITHM, kid, typ: TOKEN_TYPE })
    .setIssuer(request.issuer)
    .setSubject(request.clientId)
    .setAudience(request.audience)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(key);
  return { token, jti, iat, exp };
}

export class TokenRejected extends Error {}

/** Per key store, the tokens whose signature was verified, with their claims: bounded, oldest out first. */
const VERIFIED_MAX = 10_000;
const verifiedBy = new WeakMap<KeyStore, Map<string, TokenClaims>>();

/**
 * verifyToken with a memory of tokens verified before: a CRM sends the same token with every
 * request for a day, and checking its ECDSA signature again each time was about 8% of a classified
 * POST's CPU. A remembered token is the same string for the same issuer and audience, so only its
 * expiry can have changed; that is checked on every use. Signing keys are never withdrawn (see
 * keys.ts), so a signature once valid stays valid.
 */
export async function verifyTokenCached(keys: KeyStore, token: string, issuer: string, audience: string): Promise<TokenClaims> {
  const verified = getOrMake(verifiedBy, keys, () => new Map<string, TokenClaims>());
  const key = `${issuer}\n${audience}\n${token}`;
  const claims = verified.get(key);
  if (claims) {
    if (claims.exp > Date.now() / 1000) return claims;
    verified.delete(key);
    throw new TokenRejected('the token has expired');
  }
  const fresh = await verifyToken(keys, token, issuer, audience);
  if (verified.size >= VERIFIED_MAX) {
    const oldest = verified.keys().next();
    if (!oldest.done) verified.delete(oldest.value);
  }
  verified.set(key, fresh);
  return fresh;
}

/**
 * Verifies signature (algorithm pinned: a token claiming `none` or HS256 is refused before any
 * key is used), issuer, audience, expiry, an issue time not in the future and a lifetime no
 * longer than ours, and that the claims we rely on are present.
 */
export async function verifyToken(keys: KeyStore, token: string, issuer: string, audience: string): Promise<TokenClaims> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== ALGORITHM) throw new TokenRejected(`the token algorithm must be ${ALGORITHM}`);
    kid = header.kid;
  } catch (error) {
    if (error instanceof TokenRejected) throw error;
    throw new TokenRejected('the token is not a well-formed JWT');
  }
  const key = kid === undefined ? undefined : await keys.verificationKey(kid);
  if (!key) throw new TokenRejected('the token was not signed by this server');
  try {
    // typ pinned as RFC 9068 asks of resource servers; exp required so no token lives forever.
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      issuer,
      audience,
      typ: TOKEN_TYPE,
      requiredClaims: ['exp', 'iat'],
    });
    const { sub, scope, intermediary_id: intermediaryId, jti, iat, exp, token_generation: generation = 0 } = payload;
    if (typeof sub !== 'string' || typeof scope !== 'string' || typeof intermediaryId !== 'string') {
      throw new TokenRejected('the token lacks sub, scope or intermediary_id');
    }
    // Absent from the tokens issued before generations existed: those are of generation 0.
    if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 0) {
      throw new TokenRejected('the token_generation of the token is not a whole number');
    }
    // Present and numeric: jwtVerify required them (requiredClaims) and checked their types.
    if (typeof iat !== 'number' || typeof exp !== 'number') throw new TokenRejected('the token lacks iat or exp');
    // A token this server issued has neither: one that does was signed with its key by someone else.
    if (iat > Date.now() / 1000 + MAX_CLOCK_SKEW_SECONDS) throw new TokenRejected('the token was issued in the future');
    if (exp - iat > TOKEN_LIFETIME_SECONDS) {
      throw new TokenRejected(`the token lives longer than the ${TOKEN_LIFETIME_SECONDS} seconds this server issues tokens for`);
    }
    // Issuer and audience are the ones jwtVerify matched.
    return {
      iss: issuer,
      sub,
      aud: audience,
      exp,
      iat,
      jti: typeof jti === 'string' ? jti : '',
      scope,
      intermediary_id: intermediaryId,
      token_generation: generation,
    };
  } catch (error) {
    if (error instanceof TokenRejected) throw error;
    if (error instanceof errors.JWTExpired) throw new TokenRejected('the token has expired');
    // The signature was verified before the claims: what the token carries is this server's own
    // writing, safe to show, and naming both ends the guessing between two servers' PUBLIC_URLs.
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss') {
      throw new TokenRejected(claimMismatch('issuer', 'iss', error.payload.iss, issuer));
    }
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
      throw new TokenRejected(claimMismatch('audience', 'aud', error.payload.aud, audience));
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) throw new TokenRejected('the token signature is invalid');
    throw new TokenRejected(`the token is invalid (${messageOf(error)})`);
  }
}

/** The reason a token of another issuer or audience is refused: the value it carries and the one expected. */
function claimMismatch(noun: string, claim: string, carried: unknown, expected: string): string {
  if (carried === undefined) return `the token has no ${noun} (${claim} claim), expected ${expected}`;
  const shown = Array.isArray(carried) ? carried.map(String).join(', ') : typeof carried === 'string' ? carried : JSON.stringify(carried);
  return `the token's ${noun} is ${shown}, expected ${expected}`;
}
