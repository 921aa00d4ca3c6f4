/*
 * Keys are relative paths of plain segments (letters, digits, `.`, `_`, `-`; no segment starts
 * with a dot), so no key can climb out of the local directory, hide a file or need URL encoding.
 */
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}){0,7}$/;

export function isSafeKey(key: string): boolean {
  return SAFE_KEY.test(key);
}

export function assertSafeKey(key: string): void {
  if (!isSafeKey(key)) throw new Error(`unsafe blob key: ${JSON.stringify(key)}`);
}
