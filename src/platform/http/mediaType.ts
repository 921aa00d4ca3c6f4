/*
 * The media type of a Content-Type header: its essence, without parameters, in lower case.
 */

/** `text/XML; charset=utf-8` is `text/xml`; an absent or empty header is undefined. */
export function mediaType(header: string | readonly string[] | undefined): string | undefined {
  const first = typeof header === 'string' ? header : header?.[0];
  const type = first?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}
