/*
 * Scopes are case sensitive and colon separated. A held scope ending in `:*` grants every scope
 * that starts with what comes before the star: `caas:*` grants `caas:classifieds:read`, and
 * `caas:classifieds:*` grants it too, but not `caas:webhooks`.
 */
export function grants(held: string, wanted: string): boolean {
  if (held === wanted) return true;
  if (!held.endsWith(':*')) return false;
  return wanted.startsWith(held.slice(0, -1));
}

export function grantsAny(held: readonly string[], wanted: string): boolean {
  return held.some((scope) => grants(scope, wanted));
}

export function parseScopes(value: string): string[] {
  return value.split(' ').filter((scope) => scope !== '');
}
