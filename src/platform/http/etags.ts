/*
 * The entity tags of an If-Match or If-None-Match header (RFC 9110 section 13.1): a comma list,
 * `*`, or nothing. Weak tags are compared by their value, so `W/"3"` counts as `"3"`.
 */
export function entityTags(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter((tag) => tag !== '');
}
