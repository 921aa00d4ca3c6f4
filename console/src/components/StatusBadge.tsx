/*
 * A classified's or a delivery's status as a word with a colour by outcome; the colour only
 * repeats what the word says.
 */

function toneOf(status: string): string {
  if (/FAILED|CANCELLED|INACTIVE/.test(status)) return 'bad';
  if (/MEDIA_ERROR/.test(status)) return 'warn';
  if (/^(CREATED|UPDATED|DELETED|DELIVERED|ACTIVE|accepted)$/.test(status)) return 'good';
  if (status === 'rejected') return 'bad';
  return 'neutral';
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${toneOf(status)}`}>{status}</span>;
}
