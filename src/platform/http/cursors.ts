/** The longest page token or cursor any endpoint takes: every one we make is far shorter. */
export const TOKEN_MAX_LENGTH = 256;

/*
 * Opaque page tokens: base64url of a short text the endpoint understands. A token is read back
 * only if it re-encodes to itself, because Node's decoder silently skips characters outside the
 * alphabet: a garbled token must be refused, not decoded into a near miss.
 */
export function encodeToken(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/** The text of a token `encodeToken` made, or undefined for anything else. */
export function decodeToken(token: string): string | undefined {
  const text = Buffer.from(token, 'base64url').toString('latin1');
  return Buffer.from(text, 'latin1').toString('base64url') === token ? text : undefined;
}

/**
 * Keyset tokens over a bigint sequence: `<kind>1:<seq>`. The kind keeps one endpoint's token out of
 * another, the digit versions the format.
 */
export function encodeSeqToken(kind: string, seq: number): string {
  return encodeToken(`${kind}1:${seq}`);
}

/** The sequence number of a token `encodeSeqToken(kind, …)` made, or undefined. */
export function decodeSeqToken(kind: string, token: string): number | undefined {
  const match = /^([a-z])1:([1-9][0-9]{0,15})$/.exec(decodeToken(token) ?? '');
  const seq = Number(match?.[2]);
  return match && match[1] === kind && Number.isSafeInteger(seq) ? seq : undefined;
}
