/*
 * A classified's, a delivery's or an OpenImmo import's status (or what an import did with an
 * object) as a word with a colour by outcome; the colour only repeats what the word says.
 */

function toneOf(status: string): string {
  if (/FAILED|CANCELLED|INACTIVE/.test(status)) return 'bad';
  if (/MEDIA_ERROR/.test(status)) return 'warn';
  if (/^(CREATED|UPDATED|DELETED|DELIVERED|ACTIVE|DONE|accepted|created|updated)$/.test(status)) return 'good';
  if (status === 'rejected' || status === 'refused') return 'bad';
  return 'neutral';
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${toneOf(status)}`}>{status}</span>;
}
