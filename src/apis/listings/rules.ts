/*
 * The 21 business rules of the listing import, applied synchronously on create and update after
 * the body passed the schema, plus the refusal of project classifieds and the non-blocking warnings.
 *
 * Each rule is a named entry of RULES with its own reason; a violation names the offending member
 * by a JSON pointer into the body and starts its reason with the rule's number. The rules that
 * apply to kinds of fields (text length, emails, phones, dates, URLs, ranges) find those fields by
 * walking the request schema (`x-kind`), so a field added to the schema with a kind is checked
 * without touching this file; the matrices are data in model/matrices.ts.
 *
 * Projects: the spec says project classifieds are not supported at present. A request that is one
 * (isProjectListing) gets the refusal as its first error, and rules 8, 9 and the project part of
 * rule 10 still run and add their findings, so that the answer also says what such a listing will
 * need once projects are supported. Any project request is therefore refused, whatever the rules say.
 */
import { ListingRequest } from './model/listing.js';
import { FIELD_KINDS, type FieldKind } from './model/request.js';
import {
  DISTRIBUTION_SUB_TYPES,
  ESTATE_SUB_TYPES,
  NEW_BUILD_SUB_TYPES,
  PROJECT_DISTRIBUTION_SUB_TYPES,
  PROJECT_ESTATE_SUB_TYPES,
  RENT_AMOUNT_RULES,
} from './model/matrices.js';

export interface RuleError {
  /** JSON pointer of the offending member of the body. */
  name: string;
  reason: string;
}

export interface ListingWarning {
  type: 'IMPRECISE_LOCATION';
  message: string;
}

export interface CheckOptions {
  /** On update: the estateType the listing has, which the update may not change (rule 11). */
  existingEstateType?: string;
}

export interface CheckResult {
  errors: RuleError[];
  warnings: ListingWarning[];
}

/** A member of the request that a kind of rule applies to. */
interface KindField {
  pointer: string;
  kind: FieldKind;
  value: unknown;
}

interface Context {
  request: ListingRequest;
  options: CheckOptions;
  fields: KindField[];
}

export interface Rule {
  /** '1' to '21' as numbered by the spec, or 'projects' for the refusal of project classifieds. */
  id: string;
  title: string;
  check(context: Context): RuleError[];
}

// --- Finding the fields by kind -----------------------------------------------------------------------

type Node = Record<string, unknown>;

function isObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointerStep(member: string): string {
  return member.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isFieldKind(value: unknown): value is FieldKind {
  return FIELD_KINDS.some((kind) => kind === value);
}

function asNode(value: unknown): Node {
  if (!isObject(value)) throw new Error('listing schema: not an object');
  return value;
}

const root = asNode(ListingRequest);

function resolve(schema: Node): Node {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), root);
  if (!isObject(target)) throw new Error(`listing schema: cannot resolve ${ref}`);
  return target;
}

function collect(schemaNode: Node, value: unknown, pointer: string, out: KindField[]): void {
  const schema = resolve(schemaNode);
  const kind = schema['x-kind'];
  if (isFieldKind(kind)) {
    out.push({ pointer, kind, value });
    return;
  }
  const properties = schema.properties;
  if (isObject(properties) && isObject(value)) {
    for (const [member, child] of Object.entries(properties)) {
      if (value[member] !== undefined && isObject(child)) collect(child, value[member], `${pointer}/${pointerStep(member)}`, out);
    }
  }
  const items = schema.items;
  if (isObject(items) && Array.isArray(value)) {
    for (const [index, item] of value.entries()) collect(items, item, `${pointer}/${index}`, out);
  }
}

function fieldsOf(kinds: readonly FieldKind[], context: Context): KindField[] {
  return context.fields.filter((field) => kinds.includes(field.kind));
}

interface TextEntry {
  pointer: string;
  kind: FieldKind;
  text: string;
}

/** The language entries of multilingual texts and the plain free-text fields, each with its pointer. */
function textEntries(context: Context, kinds: readonly FieldKind[]): TextEntry[] {
  return fieldsOf(kinds, context).flatMap(({ pointer, kind, value }) => {
    if (typeof value === 'string') return [{ pointer, kind, text: value }];
    if (!isObject(value)) return [];
    return Object.entries(value)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([language, text]) => ({ pointer: `${pointer}/${pointerStep(language)}`, kind, text }));
  });
}

// --- Value checks -------------------------------------------------------------------------------------

const MAX_TEXT = 3999;

/** Characters as rule 1 counts them (code points, as `[...text].length`), without making an array of them. */
function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

/** Rule 1's finding: a multi-lingual text over MAX_TEXT characters (a UTF-16 length within it needs no count). */
function tooLong({ kind, text }: TextEntry): number | undefined {
  if (kind !== 'multiLingualText' || text.length <= MAX_TEXT) return undefined;
  const length = characterCount(text);
  return length > MAX_TEXT ? length : undefined;
}
// The "fast" email syntax of ajv-formats: what a mail system accepts in practice.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
// Rule 3 verbatim: optional +, 1-3 digits, optional hyphen or space, 1-4 digits, optional hyphen or space, 4-10 digits.
const PHONE = /^\+?\d{1,3}[- ]?\d{1,4}[- ]?\d{4,10}$/;
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isFullDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = FULL_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || /\s/.test(value)) return false;
  try {
    const parsed = new URL(value);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

function inRange(value: unknown, below: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < below;
}

function positive(value: unknown): boolean {
  return typeof value === 'number' && value > 0;
}

function blank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

// --- Rule 21: contact details and markup inside free text --------------------------------------------
//
// Rule 21 reads every text of a body (a 1 MiB body holds hundreds of them), so it must cost time in
// proportion to the text, whatever the text. A backtracking engine searching an unanchored `X+Y`
// restarts at every position inside a run of X and rescans the rest of the run each time: on 64,000
// letters, or 32,000 "a." or "a-", the former email and bare-domain patterns took seconds. Those two
// are scanners now: each run is read once, and when the first start of a run fails every later
// start inside it fails too (it sees a suffix of the same labels), so the scan moves past the run.
// They report exactly what the former patterns matched (test/listings/rules.test.ts compares them on
// random texts). The HTML, URL and phone patterns remain regular expressions, each proven linear by
// recheck's automaton checker (test/hostile/redos.test.ts), which is why they have no lookbehind.

/**
 * Written so that ordinary German listing text is not caught: dates (01.03.2027), prices (1.250 €),
 * postal codes, house numbers, floors ("2. OG") and abbreviations ("z. B.", "inkl.") contain none of
 * these shapes. Bare domains count only with a lower-case common top-level domain, so "Balkon.Info"
 * (a missing space) is not a URL.
 */
const HTML = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>|<!--|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);/;
const SCHEME_OR_WWW_URL = /\b(?:https?|ftp):\/\/\S+|\bwww\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\S*/i;
const TOP_LEVEL_DOMAINS: ReadonlySet<string> = new Set([
  'de',
  'com',
  'net',
  'org',
  'eu',
  'info',
  'biz',
  'io',
  'at',
  'ch',
  'immo',
  'berlin',
  'online',
  'shop',
  'app',
]);
const LONGEST_TOP_LEVEL_DOMAIN = Math.max(...[...TOP_LEVEL_DOMAINS].map((tld) => tld.length));
/** The path after a bare domain: a slash and what follows up to whitespace. */
const PATH = /\/\S*/y;
const WHITESPACE = /\s/y;

function isAlphanumeric(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** A character of a domain label: [A-Za-z0-9-]. */
function isLabelChar(c: number): boolean {
  return isAlphanumeric(c) || c === 0x2d;
}

/** A character of an email's local part: [A-Za-z0-9._%+-]. */
function isLocalChar(c: number): boolean {
  return isLabelChar(c) || c === 0x2e || c === 0x5f || c === 0x25 || c === 0x2b;
}

/** What \b counts as a word character: [A-Za-z0-9_]. */
function isWordChar(c: number): boolean {
  return isAlphanumeric(c) || c === 0x5f;
}

function isWhitespaceAt(text: string, at: number): boolean {
  WHITESPACE.lastIndex = at;
  return WHITESPACE.test(text);
}

/** The index after the label of [A-Za-z0-9-] starting at `at` (`at` itself when there is none). */
function labelEnd(text: string, at: number): number {
  let end = at;
  while (isLabelChar(text.charCodeAt(end))) end += 1;
  return end;
}

/** After "@", " (at) " or "(@)" (one whitespace either side at most) ending at `at`: where the domain starts. */
function domainStartAfter(text: string, at: number): number | undefined {
  if (text.charCodeAt(at) === 0x40) return at + 1;
  let next = isWhitespaceAt(text, at) ? at + 1 : at;
  if (text.charCodeAt(next) !== 0x28) return undefined;
  next += 1;
  if (text.startsWith('at', next)) next += 2;
  else if (text.charCodeAt(next) === 0x40) next += 1;
  else return undefined;
  if (text.charCodeAt(next) !== 0x29) return undefined;
  next += 1;
  // A whitespace there is taken; without it the domain would have to start with one, and cannot.
  return isWhitespaceAt(text, next) ? next + 1 : next;
}

/**
 * Where an email's domain starting at `at` ends: labels joined by dots, of which the last one that
 * starts with two letters or more ends the address after its letters; undefined without one.
 */
function emailDomainEnd(text: string, at: number): number | undefined {
  let end: number | undefined;
  let next = labelEnd(text, at);
  if (next === at) return undefined;
  while (text.charCodeAt(next) === 0x2e && isLabelChar(text.charCodeAt(next + 1))) {
    const label = next + 1;
    let letters = label;
    while (isLetter(text.charCodeAt(letters))) letters += 1;
    if (letters - label >= 2) end = letters;
    next = labelEnd(text, label);
  }
  return end;
}

/**
 * An email address, also written with (at): a run of [A-Za-z0-9._%+-], the at, and a domain whose
 * last label starts with two letters.
 */
function emailIn(text: string): string | undefined {
  let start = 0;
  while (start < text.length) {
    if (!isLocalChar(text.charCodeAt(start))) {
      start += 1;
      continue;
    }
    let runEnd = start + 1;
    while (isLocalChar(text.charCodeAt(runEnd))) runEnd += 1;
    // The at can only follow the whole run: none of its forms starts with a character of the run.
    const domain = domainStartAfter(text, runEnd);
    const end = domain === undefined ? undefined : emailDomainEnd(text, domain);
    if (end !== undefined) return text.slice(start, end);
    start = runEnd;
  }
  return undefined;
}

/**
 * A bare domain with one of TOP_LEVEL_DOMAINS (lower case) as a whole label: from a word start,
 * labels joined by dots up to the last such label, then a path if a slash follows.
 */
function bareDomainIn(text: string): string | undefined {
  let start = 0;
  while (start < text.length) {
    if (!isAlphanumeric(text.charCodeAt(start)) || (start > 0 && isWordChar(text.charCodeAt(start - 1)))) {
      start += 1;
      continue;
    }
    let end: number | undefined;
    let next = labelEnd(text, start + 1);
    while (text.charCodeAt(next) === 0x2e && isLabelChar(text.charCodeAt(next + 1))) {
      const label = next + 1;
      next = labelEnd(text, label);
      if (next - label <= LONGEST_TOP_LEVEL_DOMAIN && TOP_LEVEL_DOMAINS.has(text.slice(label, next))) end = next;
    }
    if (end !== undefined) {
      PATH.lastIndex = end;
      return text.slice(start, end) + (PATH.exec(text)?.[0] ?? '');
    }
    // Every later start before `next` reads a suffix of these labels: it finds no domain either.
    start = next;
  }
  return undefined;
}

/**
 * A phone number: a run of digits with the separators people write in numbers (space, slash,
 * hyphen, parentheses; not dots or commas, which dates and prices use), starting with + (at least
 * 7 digits) or with a 0 (at least 9 digits: an area code and a subscriber number; fewer would catch
 * "0815" or a date written 01/03/2027). Not preceded by a digit, dot or comma, so the middle of a
 * larger number never starts one (that character is matched, not looked behind at, so that the
 * automaton checker can prove the pattern linear; the candidate is group 1).
 */
const PHONE_CANDIDATE = /(?:^|[^\d.,])((?:\+|\(?0)[\d\s/()-]*\d)/g;

function phoneIn(text: string): string | undefined {
  for (const match of text.matchAll(PHONE_CANDIDATE)) {
    const candidate = match[1] ?? '';
    const digits = candidate.replace(/\D/g, '').length;
    if (digits >= (candidate.startsWith('+') ? 7 : 9) && digits <= 15) return candidate.trim();
  }
  return undefined;
}

/** What rule 21 looks for, in the order reported. */
const FORBIDDEN: readonly { what: string; find: (text: string) => string | undefined }[] = [
  { what: 'HTML', find: (text) => HTML.exec(text)?.[0] },
  { what: 'an email address', find: emailIn },
  { what: 'a URL', find: (text) => SCHEME_OR_WWW_URL.exec(text)?.[0] },
  { what: 'a URL', find: bareDomainIn },
  { what: 'a phone number', find: phoneIn },
];

/** What rule 21 finds in a text: the kind and the offending part, or undefined for a clean text. */
export function forbiddenContent(text: string): { what: string; found: string } | undefined {
  for (const { what, find } of FORBIDDEN) {
    const found = find(text);
    if (found !== undefined) return { what, found };
  }
  return undefined;
}

// --- Projects -------------------------------------------------------------------------------------------

const PROJECT_FIELDS = [
  'externalProjectId',
  'projectEstateType',
  'projectEstateSubType',
  'projectDistributionType',
  'projectDistributionSubType',
] as const;

/** The member that makes a request a project classified, or undefined. */
function projectMarker(request: ListingRequest): string | undefined {
  if (request.data.estateType === 'PROJECT') return '/data/estateType';
  const field = PROJECT_FIELDS.find((name) => request.data[name] !== undefined);
  return field === undefined ? undefined : `/data/${field}`;
}

/** Whether the request is a project classified (estateType PROJECT or any project field): refused at present. */
export function isProjectListing(request: ListingRequest): boolean {
  return projectMarker(request) !== undefined;
}

/** Whether the listing is to be published: `metadata.isPublished`, true unless false. */
export function isPublished(request: ListingRequest): boolean {
  return request.metadata.isPublished !== false;
}

// --- The rules --------------------------------------------------------------------------------------------

function rangeRule(id: string, title: string, kinds: readonly FieldKind[], check: (value: unknown) => boolean, reason: string): Rule {
  return {
    id,
    title,
    check: (context) =>
      fieldsOf(kinds, context)
        .filter((field) => !check(field.value))
        .map((field) => ({ name: field.pointer, reason })),
  };
}

function matrixRule(
  id: string,
  title: string,
  matrix: Readonly<Record<string, readonly string[]>>,
  typeField: string,
  subTypeField: string,
  get: (request: ListingRequest) => { type: string | undefined; subType: string | undefined },
  requirePair: boolean,
): Rule {
  return {
    id,
    title,
    check: ({ request }) => {
      const { type, subType } = get(request);
      if (type === undefined && subType === undefined) return [];
      if (requirePair && (type === undefined || subType === undefined)) {
        const missing = type === undefined ? typeField : subTypeField;
        const present = type === undefined ? subTypeField : typeField;
        return [{ name: `/data/${missing}`, reason: `rule ${id}: ${missing} is required with ${present}.` }];
      }
      if (subType === undefined || type === undefined) return [];
      const allowed = matrix[type] ?? [];
      if (allowed.includes(subType)) return [];
      return [
        {
          name: `/data/${subTypeField}`,
          reason: `rule ${id}: ${subTypeField} ${subType} does not match ${typeField} ${type}; allowed: ${allowed.length ? allowed.join(', ') : 'none'}.`,
        },
      ];
    },
  };
}

function rentAmountRule(id: 17 | 18, title: string): Rule {
  return {
    id: String(id),
    title,
    check: ({ request }) => {
      const { distributionType, distributionSubType } = request.data;
      if (distributionType !== 'RENT' || RENT_AMOUNT_RULES[distributionSubType] !== id) return [];
      const rent = request.data.prices.rent ?? {};
      if ([rent.baseRent, rent.totalRent, rent.lease].some((price) => positive(price?.amount))) return [];
      return [
        {
          name: '/data/prices/rent',
          reason: `rule ${id}: baseRent.amount, totalRent.amount or lease.amount must be greater than 0 for a rent with distributionSubType ${distributionSubType}.`,
        },
      ];
    },
  };
}

const MANDATORY: readonly { pointer: string; label: string; get: (request: ListingRequest) => unknown }[] = [
  { pointer: '/metadata/externalId', label: 'externalId', get: (r) => r.metadata.externalId },
  { pointer: '/metadata/source/offererEstateId', label: 'offererEstateId', get: (r) => r.metadata.source?.offererEstateId },
  { pointer: '/metadata/source/offererMarketingKey', label: 'offererMarketingKey', get: (r) => r.metadata.source?.offererMarketingKey },
  { pointer: '/metadata/softwareName', label: 'softwareName', get: (r) => r.metadata.softwareName },
  { pointer: '/metadata/externalCustomerId', label: 'externalCustomerId', get: (r) => r.metadata.externalCustomerId },
];

const MANDATORY_FOR_PROJECTS: typeof MANDATORY = [
  { pointer: '/data/externalProjectId', label: 'externalProjectId', get: (r) => r.data.externalProjectId },
  { pointer: '/metadata/source/offererEstateGroupId', label: 'offererEstateGroupId', get: (r) => r.metadata.source?.offererEstateGroupId },
];

export const RULES: readonly Rule[] = [
  {
    id: 'projects',
    title: 'Project classifieds are not supported at present',
    check: ({ request }) => {
      const marker = projectMarker(request);
      return marker === undefined
        ? []
        : [
            {
              name: marker,
              reason:
                'project classifieds are not supported at present: send each unit as a listing without project fields and not as estateType PROJECT.',
            },
          ];
    },
  },
  {
    id: '1',
    title: 'Multi-lingual texts are at most 3999 characters',
    check: (context) =>
      textEntries(context, ['multiLingualText']).flatMap((entry) => {
        const length = tooLong(entry);
        return length === undefined
          ? []
          : [{ name: entry.pointer, reason: `rule 1: a multi-lingual text is at most ${MAX_TEXT} characters; this one has ${length}.` }];
      }),
  },
  rangeRule('2', 'Emails are valid', ['email'], (v) => typeof v === 'string' && EMAIL.test(v), 'rule 2: must be a valid email address.'),
  rangeRule(
    '3',
    'Phone numbers have the phone format',
    ['phone'],
    (v) => typeof v === 'string' && PHONE.test(v),
    'rule 3: must be a phone number: optional leading +, 1-3 digits, optional hyphen or space, 1-4 digits, optional hyphen or space, 4-10 digits.',
  ),
  rangeRule('4', 'Dates are full dates', ['date'], isFullDate, 'rule 4: must be a full date (YYYY-MM-DD).'),
  rangeRule('5', 'URLs are valid', ['url'], isHttpUrl, 'rule 5: must be a valid http or https URL.'),
  matrixRule(
    '6',
    'estateType matches estateSubType',
    ESTATE_SUB_TYPES,
    'estateType',
    'estateSubType',
    (r) => ({ type: r.data.estateType, subType: r.data.estateSubType }),
    false,
  ),
  matrixRule(
    '7',
    'distributionType matches distributionSubType',
    DISTRIBUTION_SUB_TYPES,
    'distributionType',
    'distributionSubType',
    (r) => ({ type: r.data.distributionType, subType: r.data.distributionSubType }),
    false,
  ),
  matrixRule(
    '8',
    'projectEstateType matches projectEstateSubType',
    PROJECT_ESTATE_SUB_TYPES,
    'projectEstateType',
    'projectEstateSubType',
    (r) => ({ type: r.data.projectEstateType, subType: r.data.projectEstateSubType }),
    true,
  ),
  matrixRule(
    '9',
    'projectDistributionType matches projectDistributionSubType',
    PROJECT_DISTRIBUTION_SUB_TYPES,
    'projectDistributionType',
    'projectDistributionSubType',
    (r) => ({ type: r.data.projectDistributionType, subType: r.data.projectDistributionSubType }),
    true,
  ),
  {
    id: '10',
    title: 'The identifiers of API customers are mandatory',
    check: ({ request }) => [
      ...MANDATORY.filter((field) => blank(field.get(request))).map((field) => ({
        name: field.pointer,
        reason: `rule 10: ${field.label} is mandatory for API customers.`,
      })),
      ...(isProjectListing(request) ? MANDATORY_FOR_PROJECTS : [])
        .filter((field) => blank(field.get(request)))
        .map((field) => ({ name: field.pointer, reason: `rule 10: ${field.label} is mandatory for a project classified.` })),
    ],
  },
  {
    id: '11',
    title: 'An update may not change estateType',
    check: ({ request, options }) =>
      options.existingEstateType === undefined || options.existingEstateType === request.data.estateType
        ? []
        : [
            {
              name: '/data/estateType',
              reason: `rule 11: estateType cannot be changed by an update; the listing's estateType is ${options.existingEstateType}.`,
            },
          ],
  },
  rangeRule(
    '12',
    'Spaces are at least 0 and below 99999999',
    ['space'],
    (v) => inRange(v, 99999999),
    'rule 12: a space must be a number at least 0 and below 99999999.',
  ),
  rangeRule(
    '13',
    'Counts and parking lots are at least 0 and below 999999',
    ['count'],
    (v) => inRange(v, 999999),
    'rule 13: a count must be a number at least 0 and below 999999.',
  ),
  rangeRule(
    '14',
    'Prices and amounts are at least 0 and below 9999999999999',
    ['price'],
    (v) => inRange(v, 9999999999999),
    'rule 14: a price or amount must be a number at least 0 and below 9999999999999.',
  ),
  {
    id: '15',
    title: 'New builds: availableFromDate and buildingStartDate after 1900-01-01',
    check: ({ request }) => {
      const subType = request.data.distributionSubType;
      if (!NEW_BUILD_SUB_TYPES.includes(subType)) return [];
      const dates = [
        { name: '/data/management/availableFromDate', label: 'availableFromDate', value: request.data.management?.availableFromDate },
        { name: '/data/conditions/buildingStartDate', label: 'buildingStartDate', value: request.data.conditions?.buildingStartDate },
      ];
      // A malformed date is rule 4's finding; full dates compare as text.
      return dates
        .filter(({ value }) => isFullDate(value) && value <= '1900-01-01')
        .map(({ name, label }) => ({
          name,
          reason: `rule 15: ${label} must be after 1900-01-01 for a new build (distributionSubType ${subType}).`,
        }));
    },
  },
  rangeRule(
    '16',
    'Percentages are between 0 and 100',
    ['percent'],
    (v) => typeof v === 'number' && v >= 0 && v <= 100,
    'rule 16: a percentage must be between 0 and 100.',
  ),
  rentAmountRule(17, 'A CLASSIC rent has a rent amount'),
  rentAmountRule(18, 'A NEW_BUILD_UNIT or EMPTY rent has a rent amount'),
  {
    id: '19',
    title: 'A compulsory auction has a minimum bid and an overbid session starting price',
    check: ({ request }) => {
      if (request.data.distributionType !== 'COMPULSORY_AUCTION') return [];
      const auction = request.data.prices.compulsoryAuction ?? {};
      return (['minimumBid', 'overbidSessionStartingPrice'] as const)
        .filter((member) => !positive(auction[member]?.amount))
        .map((member) => ({
          name: `/data/prices/compulsoryAuction/${member}`,
          reason: `rule 19: ${member}.amount must be greater than 0 for a COMPULSORY_AUCTION.`,
        }));
    },
  },
  {
    id: '20',
    title: 'A BUY or RENT with a fee states the fee',
    check: ({ request }) => {
      const { distributionType } = request.data;
      const fee = request.data.prices.brokerageFee ?? {};
      if ((distributionType !== 'BUY' && distributionType !== 'RENT') || fee.hasFee === false) return [];
      const noted = Object.values(fee.priceNote ?? {}).some((note) => !blank(note));
      if (positive(fee.amount) || noted) return [];
      return [
        {
          name: '/data/prices/brokerageFee',
          reason: `rule 20: a ${distributionType} needs brokerageFee.amount greater than 0 or a non-empty brokerageFee.priceNote unless brokerageFee.hasFee is false.`,
        },
      ];
    },
  },
  {
    id: '21',
    title: 'Text entries contain no HTML, URLs, email addresses or phone numbers',
    // A text rule 1 refused is not read again: its answer is rule 1's, and the text may be as long as the body.
    check: (context) =>
      textEntries(context, ['multiLingualText', 'freeText']).flatMap((entry) => {
        if (tooLong(entry) !== undefined) return [];
        const { pointer, text } = entry;
        const finding = forbiddenContent(text);
        return finding
          ? [
              {
                name: pointer,
                reason: `rule 21: text must not contain HTML, URLs, email addresses or phone numbers; found ${finding.what}: ${JSON.stringify(finding.found)}.`,
              },
            ]
          : [];
      }),
  },
];

// --- Warnings ----------------------------------------------------------------------------------------------

/** The warnings alone (a stored listing's, for the console): no rule runs. */
export function listingWarnings(request: ListingRequest): ListingWarning[] {
  const { location } = request.data;
  const warnings: ListingWarning[] = [];
  if (blank(location.street) || blank(location.houseNumber)) {
    warnings.push({
      type: 'IMPRECISE_LOCATION',
      message: 'The location has no street and house number: the listing is placed by its postal code and city.',
    });
  }
  if (location.geometry === undefined) {
    warnings.push({ type: 'IMPRECISE_LOCATION', message: 'The location has no geometry: the listing is placed by its address.' });
  }
  return warnings;
}

/**
 * Applies every rule to a request that passed the schema. Errors non-empty: answer 400 with them
 * (errorSource body). Warnings are for the create response and never block.
 */
export function checkListing(request: ListingRequest, options: CheckOptions = {}): CheckResult {
  const fields: KindField[] = [];
  collect(root, request, '', fields);
  const context: Context = { request, options, fields };
  return { errors: RULES.flatMap((rule) => rule.check(context)), warnings: listingWarnings(request) };
}
