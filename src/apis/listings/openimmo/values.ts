/*
 * The value formats OpenImmo senders write, read strictly: a value that could mean two things is
 * refused with a reason rather than guessed, because a misread price or area is published as fact.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const no = <T>(reason: string): Parsed<T> => ({ ok: false, reason });

/** XML Schema booleans: true/false and 1/0 (onOffice writes 1/0); letter case ignored. */
export function parseBoolean(raw: string): Parsed<boolean> {
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === '1') return ok(true);
  if (value === 'false' || value === '0') return ok(false);
  return no(`not a boolean: "${raw.trim()}" (write true, false, 1 or 0)`);
}

/**
 * A decimal with at most one separator, a point or a comma (`1234.56`, `1234,56`). Grouped
 * thousands (`1.234,56`, `1,234.56`, `1.234.567`) are refused: `1.234` alone cannot be told
 * from one point two three four, so digits with one separator is the only unambiguous form.
 */
export function parseDecimal(raw: string): Parsed<number> {
  const value = raw.trim();
  if (/^[+-]?\d+(?:[.,]\d+)?$/.test(value)) return ok(Number(value.replace(',', '.')));
  if (/^[+-]?\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d+)?$/.test(value)) {
    return no(`ambiguous number: "${value}" has thousands separators; write digits with one decimal separator, e.g. 1234.56`);
  }
  return no(`not a number: "${value}" (write digits with one decimal separator, e.g. 1234.56 or 1234,56)`);
}

/** A whole number; `2.0` counts as 2, `2.5` does not. */
export function parseInteger(raw: string): Parsed<number> {
  const parsed = parseDecimal(raw);
  if (!parsed.ok) return parsed;
  if (!Number.isInteger(parsed.value)) return no(`not a whole number: "${raw.trim()}"`);
  return parsed;
}

/** A calendar date as YYYY-MM-DD, from `2024-03-01`, `2024-03-01T10:00:00` or `01.03.2024`; undefined otherwise. */
export function parseDate(raw: string): string | undefined {
  const value = raw.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(value);
  const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(value);
  const [year, month, day] = iso
    ? [Number(iso[1]), Number(iso[2]), Number(iso[3])]
    : german
      ? [Number(german[3]), Number(german[2]), Number(german[1])]
      : [];
  if (year === undefined || month === undefined || day === undefined) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

/** An http(s) URL, as a link or a remote attachment needs. */
export function isHttpUrl(raw: string): boolean {
  return /^https?:\/\/\S+$/i.test(raw.trim());
}
