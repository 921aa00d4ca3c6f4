/*
 * What a caught value says. `catch` gives `unknown`: anything may be thrown, so its message and
 * its Node error code are read through these instead of casting it to Error.
 */

/** The message of a thrown Error, or the thrown value as text. */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** The `code` of a Node or undici error (ENOENT, EADDRINUSE, UND_ERR_CONNECT_TIMEOUT), looked for along its causes. */
export function codeOf(thrown: unknown): string | undefined {
  for (let current: unknown = thrown; typeof current === 'object' && current !== null; current = Reflect.get(current, 'cause')) {
    const code: unknown = Reflect.get(current, 'code');
    if (typeof code === 'string') return code;
  }
  return undefined;
}
