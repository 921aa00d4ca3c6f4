/*
 * A table that scrolls sideways inside its own region on a narrow screen instead of widening the
 * page; the region is labelled and focusable so it can be scrolled by keyboard.
 */
import type { ComponentChildren } from 'preact';

export function TableRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard
    <section class="table-region" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** Name and value pairs (HTTP headers) as a two-column table. */
export function PairsTable({ pairs, label }: { pairs: Record<string, string>; label: string }) {
  const entries = Object.entries(pairs);
  if (entries.length === 0) return <p class="muted">None.</p>;
  return (
    <TableRegion label={label}>
      <table class="pairs">
        <caption class="visually-hidden">{label}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([name, value]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td class="wrap">
                <code>{value}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
