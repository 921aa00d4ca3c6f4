/*
 * Small text helpers where the obvious regular expression is quadratic: `/\/+$/` restarts at every
 * slash of a long run that is not at the end, so a client's 500 KB of slashes would hold the event
 * loop for seconds (test/hostile/redos.test.ts checks every pattern in src/).
 */

/** `text` without the slashes it ends with. */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(0, end);
}
