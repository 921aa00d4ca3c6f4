/* JSON and other bodies shown as text: pretty-printed when they parse, as received otherwise. */

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}

/** A body as text: indented when it is JSON. */
export function prettyBody(text: string): string {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
}

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard
    <section class="code-region" aria-label={label} tabIndex={0}>
      <pre class="code">{typeof value === 'string' ? value : pretty(value)}</pre>
    </section>
  );
}
