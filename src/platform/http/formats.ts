/*
 * The string formats our schemas use, checked by our own functions instead of ajv-formats'. Each
 * refuses a value longer than its bound before looking at it: with allErrors Ajv runs `format`
 * even when `maxLength` has already failed, and ajv-formats' date-time splits the whole value on
 * /t|\s/i, so a megabyte of "T" held the event loop for hundreds of milliseconds. Within its
 * bound each check is linear (test/hostile/redos.test.ts proves its regular expressions so).
 *
 * The generated validators (scripts/precompile.ts) refer to these by `require` of this module
 * (FORMATS_CODE), so a precompiled and a compiled validator run the same function.
 */
import ajvFormats from 'ajv-formats/dist/formats.js';

/** The longest value each format accepts. */
export const FORMAT_BOUNDS = {
  date: 10,
  'date-time': 64,
  'iso-date-time': 64,
  uuid: 36,
  uri: 2048,
  email: 254,
} as const;
export type FormatName = keyof typeof FORMAT_BOUNDS;

/** Formats whose checker bounds the length of the value: a schema string with one needs no maxLength. */
export const BOUNDED_FORMATS: ReadonlySet<string> = new Set(Object.keys(FORMAT_BOUNDS));

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

function isDate(text: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month] as number));
}

/**
 * RFC 3339's partial-time with its offset (required when `zoned`), as ajv-formats reads it: a
 * leap second only at 23:59:60 UTC, an offset of ±hh, ±hhmm or ±hh:mm.
 */
function isTime(text: string, zoned: boolean): boolean {
  const match = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|([+-])([0-9]{2})(:?([0-9]{2}))?)?$/.exec(text);
  if (match === null) return false;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3]);
  const zone = match[5];
  const sign = match[6] === '-' ? -1 : 1;
  const zoneHours = Number(match[7] ?? 0);
  const zoneMinutes = Number(match[9] ?? 0);
  if (zoneHours > 23 || zoneMinutes > 59 || (zoned && zone === undefined)) return false;
  if (hour <= 23 && minute <= 59 && second <= 59) return true;
  if (second !== 60) return false;
  const utcMinute = minute - zoneMinutes * sign;
  const utcHour = hour - zoneHours * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1);
}

/** A date, a separator (T, t or a space) and a time; `zoned`: the time has an offset. */
function dateTime(zoned: boolean, bound: number): (text: string) => boolean {
  return (text) => {
    if (text.length > bound) return false;
    const separator = text.charAt(10);
    return (separator === 'T' || separator === 't' || separator === ' ') && isDate(text.slice(0, 10)) && isTime(text.slice(11), zoned);
  };
}

const { email: ajvEmail } = ajvFormats.fullFormats;

/**
 * RFC 3986's characters after a scheme (ajv-formats' URI expression, which also checks the host's
 * form, is polynomial by recheck's fuzzing), and a URL the WHATWG parser reads: what later code
 * does with the value (new URL) cannot throw.
 */
function isUri(text: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/.test(text) && URL.canParse(text);
}

/**
 * iso-date-time's shape as a pattern, for the documents: other readers know no such format. The
 * calendar (no 30 February) and the leap second are the format's.
 */
export const LOCAL_DATE_TIME_PATTERN =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?$';

/** Each format's checker; Ajv calls it with the string (formats apply to strings only). */
export const FORMATS: Record<FormatName, (text: string) => boolean> = {
  date: (text) => text.length === FORMAT_BOUNDS.date && isDate(text),
  'date-time': dateTime(true, FORMAT_BOUNDS['date-time']),
  'iso-date-time': dateTime(false, FORMAT_BOUNDS['iso-date-time']),
  // Exactly 8-4-4-4-12 hexadecimal digits: no urn:uuid:, no braces, which PostgreSQL's uuid does not read alike.
  uuid: (text) =>
    text.length === FORMAT_BOUNDS.uuid && /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(text),
  uri: (text) => text.length <= FORMAT_BOUNDS.uri && isUri(text),
  // ajv-formats' expression (proven linear by the ReDoS test), on a bounded value.
  email: (text) => text.length <= FORMAT_BOUNDS.email && (ajvEmail as RegExp).test(text),
};

/**
 * `text` (a request's path and query) with every UUID in it lower-cased: what a key made of a path
 * is made of before validation has lower-cased the parameters (idempotency claims its key then).
 */
export function withCanonicalUuids(text: string): string {
  return text.replace(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/g, (id) => id.toLowerCase());
}
