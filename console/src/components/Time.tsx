/* A date-time in the reader's locale, its ISO form on hover and in the markup. */
const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={value} title={value}>
      {FORMAT.format(date)}
    </time>
  );
}
