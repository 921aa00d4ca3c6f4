/*
 * An OpenImmo transfer document as listing requests: one TransferObject per `immobilie`, with the
 * JSON request the listing API takes (without media, which the caller adds once it has stored the
 * attachments), where each of its members came from, and what stops or escapes it.
 *
 * Two kinds of finding. An error stops that object alone (the caller refuses it, its neighbours go
 * on): a value the request needs and cannot have (no objektnr_extern, an objektart the model has no
 * type for, a number that is not one). A warning says an element was present and left out: the
 * listing model is narrower than OpenImmo, and a sender should learn what did not arrive rather
 * than find out on the portal. Whenever an object has no error its request passes the ApiRequest
 * schema; the business rules (rules.ts) remain the caller's to apply.
 *
 * The whole mapping, element by element, is docs/openimmo.md; its leaf mappings are data
 * here (the *_LEAVES tables), the rest is code below with the table of tables.ts.
 */
import { CURRENCIES, LANGUAGES } from '../model/matrices.js';
import { MAX_MEDIA_BYTES } from '../model/media.js';
import type { ApiRequest } from '../model/request.js';
import { type OpenImmoLimits, OpenImmoRefused } from './limits.js';
import { AGE_STATE, ATTACHMENT_GROUPS, BUILD_STATE, CELLAR_STATE, COUNTRIES, OBJEKTART, PARKING_LOTS } from './tables.js';
import { isHttpUrl, type Parsed, parseBoolean, parseDate, parseDecimal, parseInteger } from './values.js';
import { child, childrenNamed, isEmpty, type XmlElement } from './xml.js';

export interface Issue {
  /** The element (or `…/@attribute`) concerned. */
  path: string;
  reason: string;
}

export interface Attachment {
  /** The `anhang` element. */
  path: string;
  /** REMOTE: `pfad` is a URL the caller fetches; INTERN/EXTERN: a file of the package, or `inline`. */
  location: 'INTERN' | 'EXTERN' | 'REMOTE';
  gruppe?: string;
  format?: string;
  pfad?: string;
  /** anhanginhalt, decoded from base64. */
  inline?: Buffer;
  title?: string;
  /** One of MEDIA_TYPES. */
  mediaType: string;
  /** One of MEDIA_CATEGORIES. */
  category?: string;
}

export interface TransferObject {
  /** The `immobilie` element, e.g. /openimmo/anbieter[1]/immobilie[2]. */
  path: string;
  objektnrExtern?: string;
  objektnrIntern?: string;
  openimmoObid?: string;
  /** delete: aktion@aktionart DELETE, or uebertragung@modus DELETE; else upsert. */
  action: 'upsert' | 'delete';
  /** aktion@aktionart REFERENZ: a showcase (sold or let), stored unpublished. */
  reference: boolean;
  /** For an upsert without errors: the listing request, without `media`. */
  request?: ApiRequest;
  /** JSON pointer into `request` -> the element it came from; groups too, so any pointer resolves by its longest prefix. */
  sources: Record<string, string>;
  /** In display order, the title picture first. */
  attachments: Attachment[];
  errors: Issue[];
  warnings: Issue[];
}

export interface Provider {
  path: string;
  anbieternr?: string;
  openimmoAnid?: string;
  /** anbieternr, else openimmo_anid: whose listings these are (a VOLL transfer replaces exactly them). */
  key: string;
  firma?: string;
  objects: TransferObject[];
}

export interface Transfer {
  version?: string;
  umfang: 'VOLL' | 'TEIL';
  modus?: string;
  sendersoftware?: string;
  senderversion?: string;
  providers: Provider[];
  /** About elements outside any `immobilie` (the provider's logo, imprint, user-defined fields). */
  warnings: Issue[];
}

export interface MapContext {
  limits: OpenImmoLimits;
  /** Today, for aktiv_von/aktiv_bis; the current date when absent. */
  now?: Date;
}

export const NOT_MAPPED = 'not mapped: the listing model has no place for it';

// --- The leaf mappings, as data ---------------------------------------------------------------------

/** The schema's bound on one text of a multilingual member. */
const TEXT_BOUND = 1_048_576;

type LeafKind = 'text' | 'decimal' | 'integer' | 'boolean';

interface Leaf {
  element: string;
  pointer: string;
  kind: LeafKind;
  maxLength?: number;
}

const leaf = (element: string, pointer: string, kind: LeafKind, maxLength?: number): Leaf => ({
  element,
  pointer,
  kind,
  ...(maxLength ? { maxLength } : {}),
});

const GEO_LEAVES: Leaf[] = [
  leaf('plz', '/data/location/postalcode', 'text', 32),
  leaf('ort', '/data/location/city', 'text', 128),
  leaf('strasse', '/data/location/street', 'text', 512),
  leaf('hausnummer', '/data/location/houseNumber', 'text', 64),
  leaf('bundesland', '/data/location/state', 'text', 128),
  leaf('anzahl_etagen', '/data/structure/building/numberOfFloors', 'integer'),
];

const CONTACT_LEAVES: Leaf[] = [
  leaf('vorname', '/contact/firstName', 'text', 128),
  leaf('name', '/contact/lastName', 'text', 128),
  leaf('firma', '/contact/company', 'text', 256),
  leaf('tel_handy', '/contact/mobilePhone', 'text', 32),
  leaf('tel_fax', '/contact/fax', 'text', 32),
  leaf('url', '/contact/homepage', 'text', 2048),
];

const PRICE_LEAVES: Leaf[] = [
  leaf('warmmiete', '/data/prices/rent/totalRent/amount', 'decimal'),
  leaf('nebenkosten', '/data/prices/rent/operatingCosts/amount', 'decimal'),
  leaf('heizkosten', '/data/prices/rent/heatingCosts/amount', 'decimal'),
  leaf('pacht', '/data/prices/rent/lease/amount', 'decimal'),
  leaf('kaution', '/data/prices/rent/deposit/amount', 'decimal'),
  leaf('provisionspflichtig', '/data/prices/brokerageFee/hasFee', 'boolean'),
  leaf('freitext_preis', '/data/prices/priceNote/de', 'text', TEXT_BOUND),
];

const SPACE_LEAVES: Leaf[] = [
  leaf('wohnflaeche', '/data/spaces/residential/livingSpace', 'decimal'),
  leaf('nutzflaeche', '/data/spaces/usableFloorSpace', 'decimal'),
  leaf('gesamtflaeche', '/data/spaces/overallSpace', 'decimal'),
  leaf('grundstuecksflaeche', '/data/spaces/plotSpace', 'decimal'),
  leaf('anzahl_zimmer', '/data/structure/rooms/numberOfRooms', 'decimal'),
  leaf('anzahl_schlafzimmer', '/data/structure/rooms/numberOfBedRooms', 'integer'),
  leaf('anzahl_badezimmer', '/data/structure/rooms/numberOfBathRooms', 'integer'),
  leaf('anzahl_sep_wc', '/data/structure/rooms/numberOfToilets', 'integer'),
  leaf('anzahl_balkone', '/data/structure/rooms/numberOfBalconies', 'integer'),
  leaf('anzahl_terrassen', '/data/structure/rooms/numberOfTerraces', 'integer'),
  leaf('balkon_terrasse_flaeche', '/data/spaces/residential/balconySpace', 'decimal'),
  leaf('gartenflaeche', '/data/spaces/residential/gardenSpace', 'decimal'),
  leaf('kellerflaeche', '/data/spaces/residential/cellarSpace', 'decimal'),
  leaf('dachbodenflaeche', '/data/spaces/residential/atticSpace', 'decimal'),
];

const TEXT_LEAVES: Leaf[] = [
  leaf('objekttitel', '/data/texts/headline/de', 'text', TEXT_BOUND),
  leaf('lage', '/data/texts/area/de', 'text', TEXT_BOUND),
  leaf('ausstatt_beschr', '/data/texts/features/de', 'text', TEXT_BOUND),
  leaf('objektbeschreibung', '/data/texts/description/de', 'text', TEXT_BOUND),
  leaf('sonstige_angaben', '/data/texts/extendedInformation/de', 'text', TEXT_BOUND),
];

const ADMINISTRATION_LEAVES: Leaf[] = [
  leaf('objektadresse_freigeben', '/data/location/isAddressShown', 'boolean'),
  leaf('vermietet', '/data/management/isRented', 'boolean'),
];

/** Group element -> [its leaf mappings, the request member the group fills]. */
const LEAF_GROUPS: ReadonlyArray<readonly [string, Leaf[], string]> = [
  ['geo', GEO_LEAVES, '/data/location'],
  ['kontaktperson', CONTACT_LEAVES, '/contact'],
  ['preise', PRICE_LEAVES, '/data/prices'],
  ['flaechen', SPACE_LEAVES, '/data/spaces'],
  ['freitexte', TEXT_LEAVES, '/data/texts'],
  ['verwaltung_objekt', ADMINISTRATION_LEAVES, '/data/management'],
];

/** The mappings written as code, for the documentation's and the coverage count's sake. */
const CODED: ReadonlyArray<{ element: string; field: string }> = [
  { element: 'objektkategorie/vermarktungsart', field: '/data/distributionType, /data/distributionSubType' },
  { element: 'objektkategorie/objektart/*', field: '/data/estateType, /data/estateSubType' },
  { element: 'objektkategorie/nutzungsart', field: '(implied by /data/estateType)' },
  { element: 'geo/land/@iso_land', field: '/data/location/country' },
  { element: 'geo/etage', field: '/data/location/floorNumber' },
  { element: 'geo/geokoordinaten', field: '/data/location/geometry' },
  { element: 'kontaktperson/anrede', field: '/contact/salutation' },
  { element: 'kontaktperson/email_direkt, email_zentrale', field: '/contact/email' },
  { element: 'kontaktperson/tel_durchw, tel_zentrale', field: '/contact/phone' },
  { element: 'preise/kaufpreis', field: '/data/prices/buy/price/amount' },
  { element: 'preise/kaufpreis/@auf_anfrage', field: '/data/prices/isPriceShown' },
  { element: 'preise/kaltmiete, nettokaltmiete', field: '/data/prices/rent/baseRent/amount' },
  { element: 'preise/waehrung/@iso_waehrung', field: '/data/prices/currency' },
  { element: 'preise/aussen_courtage', field: '/data/prices/brokerageFee/priceNote/de' },
  { element: 'preise/aussen_courtage/@mit_mwst', field: '/data/prices/brokerageFee/isVatIncluded' },
  { element: 'preise/stp_*/@anzahl', field: '/data/structure/parkingLots/*' },
  { element: 'ausstattung/unterkellert/@keller', field: '/data/structure/building/cellar' },
  { element: 'ausstattung/barrierefrei', field: '/data/structure/building/barrierFree' },
  { element: 'ausstattung/fahrstuhl/@PERSONEN, @LASTEN', field: '/data/structure/building/elevator' },
  { element: 'zustand_angaben/baujahr', field: '/data/conditions/yearOfConstruction' },
  { element: 'zustand_angaben/letztemodernisierung', field: '/data/conditions/lastModernisation' },
  { element: 'zustand_angaben/zustand/@zustand_art', field: '/data/conditions/buildState' },
  { element: 'zustand_angaben/alter/@alter_attr', field: '/data/conditions/ageState' },
  { element: 'freitexte/objekt_text/@lang', field: '/data/texts/description/{lang}' },
  { element: 'verwaltung_objekt/verfuegbar_ab, abdatum', field: '/data/management/isImmediatelyAvailable, availableFromDate' },
  { element: 'verwaltung_objekt/als_ferien', field: '/data/distributionSubType VACATION' },
  { element: 'verwaltung_techn/objektnr_extern', field: '/metadata/source/offererEstateId' },
  { element: 'verwaltung_techn/objektnr_intern', field: '/metadata/externalId' },
  { element: 'verwaltung_techn/aktion/@aktionart', field: 'action, reference, /metadata/isPublished' },
  { element: 'verwaltung_techn/aktiv_von, aktiv_bis', field: '/metadata/isPublished' },
  { element: 'verwaltung_techn/openimmo_obid', field: 'openimmoObid' },
  { element: 'anhaenge/anhang', field: 'attachments (media), /data/links/externalLinks' },
];

/** Every element (or attribute) of an `immobilie` that reaches the request, with where it goes. */
export const MAPPED_ELEMENTS: ReadonlyArray<{ element: string; field: string }> = [
  ...LEAF_GROUPS.flatMap(([group, leaves]) => leaves.map((l) => ({ element: `${group}/${l.element}`, field: l.pointer }))),
  ...CODED,
];

/** The groups of an `immobilie` warned about as a whole (one warning for the element, not one per child). */
export const WARNED_GROUPS: readonly string[] = [
  'weitere_adresse',
  'bieterverfahren',
  'versteigerung',
  'bewertung',
  'infrastruktur',
  'user_defined_simplefield',
  'user_defined_anyfield',
  'user_defined_extend',
  'zustand_angaben/energiepass',
];

/** The objektart elements refused with an error: the listing model has no estateType for them. */
export const UNSUPPORTED_OBJEKTART: readonly string[] = ['freizeitimmobilie_gewerblich', 'zinshaus_renditeobjekt (other zins_typ values)'];

export function mappingCoverage(): { mapped: number; warnedGroups: number; unsupported: number } {
  return { mapped: MAPPED_ELEMENTS.length, warnedGroups: WARNED_GROUPS.length, unsupported: UNSUPPORTED_OBJEKTART.length };
}

// --- The transfer -----------------------------------------------------------------------------------

/** Refuses (OpenImmoRefused) a document that is not an OpenImmo transfer, or holds more objects than allowed. */
export function mapTransfer(root: XmlElement, context: MapContext): Transfer {
  if (root.name !== 'openimmo')
    throw new OpenImmoRefused(400, `not an OpenImmo document: the root element is <${root.name}>, not <openimmo>`);
  const uebertragung = child(root, 'uebertragung');
  if (!uebertragung) throw new OpenImmoRefused(400, 'not an OpenImmo transfer: /openimmo/uebertragung is missing');
  const umfang = uebertragung.attributes.umfang?.trim().toUpperCase();
  if (umfang !== 'VOLL' && umfang !== 'TEIL') {
    throw new OpenImmoRefused(
      400,
      umfang
        ? `/openimmo/uebertragung/@umfang is "${uebertragung.attributes.umfang}": it must be VOLL (the package holds all listings of each provider) or TEIL (only those to change)`
        : '/openimmo/uebertragung/@umfang is missing: it must be VOLL (the package holds all listings of each provider) or TEIL (only those to change)',
    );
  }
  const anbieter = childrenNamed(root, 'anbieter');
  if (anbieter.length === 0) throw new OpenImmoRefused(400, 'the document has no /openimmo/anbieter: there are no listings in it');
  const objects = anbieter.reduce((sum, provider) => sum + childrenNamed(provider, 'immobilie').length, 0);
  if (objects > context.limits.maxObjects) {
    throw new OpenImmoRefused(
      413,
      `the document holds ${objects} immobilie elements, more than the limit of ${context.limits.maxObjects} (maxObjects); split it into TEIL transfers`,
    );
  }

  const attribute = (name: string) => uebertragung.attributes[name]?.trim() || undefined;
  const modus = attribute('modus')?.toUpperCase();
  const sendersoftware = attribute('sendersoftware');
  const senderversion = attribute('senderversion');
  const warnings: Issue[] = [];
  for (const element of root.children) {
    if (element.name !== 'uebertragung' && element.name !== 'anbieter' && !isEmpty(element))
      warnings.push({ path: element.path, reason: NOT_MAPPED });
  }
  const header: Header = {
    modus,
    softwareName: `${sendersoftware ?? ''} ${senderversion ?? ''}`.trim(),
    today: (context.now ?? new Date()).toISOString().slice(0, 10),
    limits: context.limits,
  };
  const providers = anbieter.map((element) => mapProvider(element, header, warnings));
  return compact({
    version: attribute('version'),
    umfang,
    modus,
    sendersoftware,
    senderversion,
    providers,
    warnings,
  }) as Transfer;
}

interface Header {
  modus?: string;
  softwareName: string;
  today: string;
  limits: OpenImmoLimits;
}

const PROVIDER_CHILDREN = new Set(['anbieternr', 'firma', 'openimmo_anid', 'immobilie']);

function mapProvider(element: XmlElement, header: Header, warnings: Issue[]): Provider {
  const text = (name: string) => child(element, name)?.text.trim() || undefined;
  const anbieternr = text('anbieternr');
  const openimmoAnid = text('openimmo_anid');
  const key = anbieternr ?? openimmoAnid ?? '';
  for (const other of element.children) {
    if (!PROVIDER_CHILDREN.has(other.name) && !isEmpty(other)) warnings.push({ path: other.path, reason: NOT_MAPPED });
  }
  const objects = childrenNamed(element, 'immobilie').map((immobilie) => {
    const mapped = mapObject(immobilie, key, header);
    if (!key) {
      mapped.errors.unshift({
        path: element.path,
        reason: 'the anbieter has neither anbieternr nor openimmo_anid: its listings cannot be told from other agencies’ ones',
      });
      delete mapped.request;
    }
    return mapped;
  });
  return compact({ path: element.path, anbieternr, openimmoAnid, key, firma: text('firma'), objects }) as Provider;
}

// --- One object ---------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function setPointer(target: Json, pointer: string, value: unknown): void {
  const keys = pointer.split('/').slice(1);
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Json;
  }
  node[keys[keys.length - 1] as string] = value;
}

function getPointer(target: Json, pointer: string): unknown {
  let node: unknown = target;
  for (const key of pointer.split('/').slice(1)) node = node && typeof node === 'object' ? (node as Json)[key] : undefined;
  return node;
}

/** Drops the members whose value is undefined: an absent member and one set to undefined are not the same to a deepEqual. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

/** The state of one object's mapping: its request, where each member came from, what was found. */
class ObjectMapping {
  readonly request: Json = {};
  readonly sources: Record<string, string> = {};
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  private readonly read = new Set<XmlElement>();

  constructor(readonly limits: OpenImmoLimits) {}

  use(element: XmlElement | undefined): XmlElement | undefined {
    if (element) this.read.add(element);
    return element;
  }

  set(pointer: string, value: unknown, from: string): void {
    setPointer(this.request, pointer, value);
    this.sources[pointer] = from;
  }

  has(pointer: string): boolean {
    return getPointer(this.request, pointer) !== undefined;
  }

  source(pointer: string, element: XmlElement | undefined): void {
    if (element) this.sources[pointer] ??= element.path;
  }

  error(path: string, reason: string): void {
    this.errors.push({ path, reason });
  }

  warn(path: string, reason: string = NOT_MAPPED): void {
    this.warnings.push({ path, reason });
  }

  /** The element's trimmed text; undefined when absent or empty, or past maxLength (an error). */
  text(element: XmlElement | undefined, maxLength?: number): string | undefined {
    if (!this.use(element) || !element) return undefined;
    const value = element.text.trim();
    if (value === '') return undefined;
    if (maxLength !== undefined && value.length > maxLength) {
      this.error(element.path, `too long: ${value.length} characters, the listing takes at most ${maxLength}`);
      return undefined;
    }
    return value;
  }

  /** A value read from the element's text (or an attribute of it); undefined when absent, empty or invalid (an error). */
  value<T>(element: XmlElement | undefined, parse: (raw: string) => Parsed<T>, attribute?: string): T | undefined {
    if (!this.use(element) || !element) return undefined;
    const raw = attribute ? element.attributes[attribute] : element.text;
    if (raw === undefined || raw.trim() === '') return undefined;
    const parsed = parse(raw);
    if (parsed.ok) return parsed.value;
    this.error(attribute ? `${element.path}/@${attribute}` : element.path, parsed.reason);
    return undefined;
  }

  leaves(group: XmlElement, leaves: Leaf[]): void {
    for (const { element: name, pointer, kind, maxLength } of leaves) {
      const element = child(group, name);
      if (!element) continue;
      const parse: (raw: string) => Parsed<number | boolean> =
        kind === 'decimal' ? parseDecimal : kind === 'integer' ? parseInteger : parseBoolean;
      const value = kind === 'text' ? this.text(element, maxLength) : this.value(element, parse);
      if (value !== undefined) this.set(pointer, value, element.path);
    }
  }

  /** One warning for each child not read and not empty. */
  unmapped(group: XmlElement | undefined): void {
    for (const element of group?.children ?? []) if (!this.read.has(element) && !isEmpty(element)) this.warn(element.path);
  }
}

const MAPPED_GROUPS = new Set([
  'objektkategorie',
  'geo',
  'kontaktperson',
  'preise',
  'flaechen',
  'ausstattung',
  'zustand_angaben',
  'freitexte',
  'anhaenge',
  'verwaltung_objekt',
  'verwaltung_techn',
]);

function mapObject(immobilie: XmlElement, providerKey: string, header: Header): TransferObject {
  const m = new ObjectMapping(header.limits);
  const techn = child(immobilie, 'verwaltung_techn');
  const technPath = techn?.path ?? `${immobilie.path}/verwaltung_techn`;
  const objektnrExtern = m.text(child(techn, 'objektnr_extern'), 512);
  const objektnrIntern = m.text(child(techn, 'objektnr_intern'), 512);
  const openimmoObid = m.text(child(techn, 'openimmo_obid'));
  const aktion = m.use(child(techn, 'aktion'));
  // The date of the sender's data: bookkeeping of the transfer, not of the listing, so read without a warning.
  m.use(child(techn, 'stand_vom'));
  const aktionart = aktion?.attributes.aktionart?.trim().toUpperCase() || undefined;
  if (!child(techn, 'objektnr_extern')?.text.trim()) {
    m.error(
      `${technPath}/objektnr_extern`,
      'missing: objektnr_extern identifies the listing (offererEstateId); without it the object can be neither stored nor deleted',
    );
  }
  if (aktionart !== undefined && !['CHANGE', 'DELETE', 'REFERENZ'].includes(aktionart)) {
    m.error(`${aktion?.path}/@aktionart`, `"${aktionart}" is not an aktionart: write CHANGE, DELETE or REFERENZ, or leave it out`);
  }
  const action = aktionart === 'DELETE' || header.modus === 'DELETE' ? 'delete' : 'upsert';
  const reference = aktionart === 'REFERENZ';
  const result = (): TransferObject =>
    compact({
      path: immobilie.path,
      objektnrExtern,
      objektnrIntern,
      openimmoObid,
      action,
      reference,
      request: action === 'upsert' && m.errors.length === 0 ? (m.request as unknown as ApiRequest) : undefined,
      sources: m.sources,
      attachments: action === 'upsert' ? attachments : [],
      errors: m.errors,
      warnings: m.warnings,
    }) as TransferObject;
  let attachments: Attachment[] = [];
  // A delete needs nothing but its number: senders often send the rest of the skeleton empty.
  if (action === 'delete') return result();

  m.source('/data', immobilie);
  m.source('/metadata', techn);
  if (objektnrExtern !== undefined) {
    m.set('/metadata/source/offererEstateId', objektnrExtern, `${technPath}/objektnr_extern`);
    m.set(
      '/metadata/externalId',
      objektnrIntern ?? objektnrExtern,
      `${technPath}/${objektnrIntern ? 'objektnr_intern' : 'objektnr_extern'}`,
    );
  }
  if (providerKey) {
    if (providerKey.length > 512) m.error(immobilie.path, 'the provider key (anbieternr or openimmo_anid) is longer than 512 characters');
    m.set('/metadata/source/offererMarketingKey', providerKey, immobilie.path.replace(/\/immobilie\[\d+\]$/, ''));
    m.set('/metadata/externalCustomerId', providerKey, immobilie.path.replace(/\/immobilie\[\d+\]$/, ''));
  }
  if (header.softwareName) {
    if (header.softwareName.length > 512)
      m.error('/openimmo/uebertragung/@sendersoftware', 'sendersoftware and senderversion are longer than 512 characters');
    else m.set('/metadata/softwareName', header.softwareName, '/openimmo/uebertragung');
  }
  mapPublication(m, techn, reference, header.today, aktion);
  m.unmapped(techn);

  mapCategory(m, immobilie);
  mapGeo(m, child(immobilie, 'geo'), immobilie, child(immobilie, 'verwaltung_objekt'));
  mapContact(m, child(immobilie, 'kontaktperson'));
  mapPrices(m, child(immobilie, 'preise'));
  mapSpaces(m, child(immobilie, 'flaechen'));
  mapEquipment(m, child(immobilie, 'ausstattung'));
  mapCondition(m, child(immobilie, 'zustand_angaben'));
  mapTexts(m, child(immobilie, 'freitexte'));
  mapAdministration(m, child(immobilie, 'verwaltung_objekt'));
  attachments = mapAttachments(m, child(immobilie, 'anhaenge'));
  // Everything else of the object: the groups the model has nothing for (bewertung, infrastruktur, …).
  for (const element of immobilie.children) if (!MAPPED_GROUPS.has(element.name) && !isEmpty(element)) m.warn(element.path);
  if (!m.has('/data/prices')) m.set('/data/prices', {}, child(immobilie, 'preise')?.path ?? immobilie.path);
  return result();
}

/** isPublished: false for a reference object, and outside aktiv_von..aktiv_bis. */
function mapPublication(
  m: ObjectMapping,
  techn: XmlElement | undefined,
  reference: boolean,
  today: string,
  aktion: XmlElement | undefined,
): void {
  const date = (name: string) => {
    const element = m.use(child(techn, name));
    const raw = element?.text.trim();
    if (!element || !raw) return undefined;
    const parsed = parseDate(raw);
    if (!parsed) m.warn(element.path, `not mapped: "${raw}" is not a date (YYYY-MM-DD); the listing is published regardless`);
    return parsed ? { value: parsed, path: element.path } : undefined;
  };
  const from = date('aktiv_von');
  const until = date('aktiv_bis');
  if (reference) m.set('/metadata/isPublished', false, `${aktion?.path}/@aktionart`);
  else if (until && until.value < today) m.set('/metadata/isPublished', false, until.path);
  else if (from && from.value > today) m.set('/metadata/isPublished', false, from.path);
  else m.set('/metadata/isPublished', true, techn?.path ?? '');
}

function mapCategory(m: ObjectMapping, immobilie: XmlElement): void {
  const category = m.use(child(immobilie, 'objektkategorie'));
  const categoryPath = category?.path ?? `${immobilie.path}/objektkategorie`;
  m.use(child(category, 'nutzungsart'));
  const marketing = m.use(child(category, 'vermarktungsart'));
  if (!marketing)
    m.error(
      `${categoryPath}/vermarktungsart`,
      'missing: vermarktungsart says whether the listing is to buy (KAUF) or to rent (MIETE_PACHT)',
    );
  else {
    const flag = (name: string) => m.value(marketing, parseBoolean, name) === true;
    const [buy, rent] = [flag('KAUF'), flag('MIETE_PACHT')];
    if (buy && rent) m.error(marketing.path, 'both KAUF and MIETE_PACHT are true: a listing is either to buy or to rent; send two objects');
    else if (buy || rent) {
      m.set('/data/distributionType', buy ? 'BUY' : 'RENT', marketing.path);
      m.set('/data/distributionSubType', 'CLASSIC', marketing.path);
    } else {
      const other = ['ERBPACHT', 'LEASING'].filter(flag);
      m.error(
        marketing.path,
        other.length
          ? `${other.join(' and ')} has no distribution type in the listing model: only KAUF or MIETE_PACHT listings are taken`
          : 'neither KAUF nor MIETE_PACHT is true: the listing needs one of them',
      );
    }
  }

  const objektart = m.use(child(category, 'objektart'));
  const types = (objektart?.children ?? []).filter((element) => element.name !== 'objektart_zusatz');
  const type = types[0];
  if (!type) {
    m.error(objektart?.path ?? `${categoryPath}/objektart`, 'missing: objektart needs a type element such as wohnung, haus or grundstueck');
    return;
  }
  m.use(type);
  for (const extra of types.slice(1)) m.warn(extra.path, `not mapped: a listing has one type, ${type.name} is taken`);
  const rule = OBJEKTART[type.name];
  if (!rule) {
    m.error(type.path, `the objektart ${type.name} has no estateType in the listing model: such objects cannot be listed`);
    return;
  }
  const value = type.attributes[rule.attribute]?.trim().toUpperCase() || undefined;
  const known = value ? rule.values[value] : undefined;
  const [estateType, subType] = known ?? [rule.estateType, null];
  if (!estateType) {
    m.error(
      value ? `${type.path}/@${rule.attribute}` : type.path,
      value
        ? `${type.name} ${rule.attribute}="${value}" has no estateType in the listing model: such objects cannot be listed`
        : `${type.name} needs @${rule.attribute} to tell which estateType it is`,
    );
    return;
  }
  if (value && !known)
    m.warn(`${type.path}/@${rule.attribute}`, `not mapped: "${value}" is not a ${rule.attribute} we know; sent without estateSubType`);
  m.set('/data/estateType', estateType, type.path);
  if (subType) m.set('/data/estateSubType', subType, `${type.path}/@${rule.attribute}`);
  if (type.name === 'zinshaus_renditeobjekt') m.set('/data/management/isForInvestment', true, type.path);
  if (
    m.has('/data/distributionType') &&
    getPointer(m.request, '/data/distributionType') === 'RENT' &&
    (value === 'FERIENWOHNUNG' || value === 'FERIENHAUS')
  ) {
    m.set('/data/distributionSubType', 'VACATION', `${type.path}/@${rule.attribute}`);
  }
  m.unmapped(objektart);
  m.unmapped(category);
}

function mapGeo(m: ObjectMapping, geo: XmlElement | undefined, immobilie: XmlElement, administration: XmlElement | undefined): void {
  const geoPath = geo?.path ?? `${immobilie.path}/geo`;
  m.source('/data/location', geo);
  if (geo) m.leaves(geo, GEO_LEAVES);
  for (const [name, pointer] of [
    ['plz', '/data/location/postalcode'],
    ['ort', '/data/location/city'],
  ] as const) {
    if (!m.has(pointer) && !m.errors.some((issue) => issue.path === `${geoPath}/${name}`))
      m.error(`${geoPath}/${name}`, `missing: the listing needs ${name}`);
  }
  const land = m.use(child(geo, 'land'));
  const iso = land?.attributes.iso_land?.trim().toUpperCase();
  if (!iso) {
    m.set('/data/location/country', 'DE', land?.path ?? geoPath);
    m.warn(land?.path ?? geoPath, 'no land/@iso_land: the country is taken as DE');
  } else {
    const country = COUNTRIES[iso] ?? (/^[A-Z]{2}$/.test(iso) ? iso : undefined);
    if (country) m.set('/data/location/country', country, `${land?.path}/@iso_land`);
    else m.error(`${land?.path}/@iso_land`, `"${iso}" is not a country we know: write the ISO 3166-1 alpha-3 code, e.g. DEU, AUT or CHE`);
  }
  const etage = child(geo, 'etage');
  const floor = m.value(etage, parseInteger);
  if (floor !== undefined && etage) {
    if (floor < -999 || floor > 999) m.error(etage.path, `the floor ${floor} is outside -999..999`);
    else m.set('/data/location/floorNumber', floor, etage.path);
  }
  const coordinates = child(geo, 'geokoordinaten');
  const latitude = m.value(coordinates, parseDecimal, 'breitengrad');
  const longitude = m.value(coordinates, parseDecimal, 'laengengrad');
  if (coordinates && latitude !== undefined && longitude !== undefined) {
    if (latitude === 0 && longitude === 0)
      m.warn(coordinates.path, 'not mapped: 0/0 is taken for "no coordinates"; the listing is placed by its address');
    else if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180)
      m.error(
        coordinates.path,
        `the coordinates ${latitude}/${longitude} are not a place on earth (breitengrad -90..90, laengengrad -180..180)`,
      );
    else m.set('/data/location/geometry', { type: 'Point', coordinates: [longitude, latitude] }, coordinates.path);
  } else if (coordinates && !coordinates.attributes.breitengrad?.trim() !== !coordinates.attributes.laengengrad?.trim()) {
    m.error(coordinates.path, 'geokoordinaten needs both @breitengrad and @laengengrad');
  }
  // The address's visibility is an administrative flag in OpenImmo, a location member in the listing.
  if (administration) m.leaves(administration, ADMINISTRATION_LEAVES.slice(0, 1));
  m.unmapped(geo);
}

const SALUTATIONS: Readonly<Record<string, 'MR' | 'MS' | 'OTHER'>> = { herr: 'MR', herrn: 'MR', frau: 'MS', divers: 'OTHER' };

function mapContact(m: ObjectMapping, contact: XmlElement | undefined): void {
  if (!contact) return;
  m.source('/contact', contact);
  m.leaves(contact, CONTACT_LEAVES);
  const anrede = child(contact, 'anrede');
  const salutation = m.text(anrede);
  if (salutation && anrede) {
    const value = SALUTATIONS[salutation.toLowerCase()];
    if (value) m.set('/contact/salutation', value, anrede.path);
    else m.warn(anrede.path, `not mapped: "${salutation}" is not Herr, Frau or Divers`);
  }
  const first = (names: string[], pointer: string, maxLength: number) => {
    for (const name of names) {
      const element = child(contact, name);
      const value = m.text(element, maxLength);
      if (value !== undefined && element && !m.has(pointer)) m.set(pointer, value, element.path);
    }
  };
  first(['email_direkt', 'email_zentrale'], '/contact/email', 256);
  first(['tel_durchw', 'tel_zentrale'], '/contact/phone', 32);
  m.unmapped(contact);
}

function mapPrices(m: ObjectMapping, prices: XmlElement | undefined): void {
  if (!prices) return;
  m.source('/data/prices', prices);
  m.leaves(prices, PRICE_LEAVES);
  const kaufpreis = child(prices, 'kaufpreis');
  const price = m.value(kaufpreis, parseDecimal);
  if (price !== undefined && kaufpreis) m.set('/data/prices/buy/price/amount', price, kaufpreis.path);
  const onRequest = m.value(kaufpreis, parseBoolean, 'auf_anfrage');
  if (onRequest !== undefined) m.set('/data/prices/isPriceShown', !onRequest, `${kaufpreis?.path}/@auf_anfrage`);

  const kalt = child(prices, 'kaltmiete');
  const nettokalt = child(prices, 'nettokaltmiete');
  const [kaltValue, nettoValue] = [m.value(kalt, parseDecimal), m.value(nettokalt, parseDecimal)];
  if (kaltValue !== undefined && kalt) m.set('/data/prices/rent/baseRent/amount', kaltValue, kalt.path);
  else if (nettoValue !== undefined && nettokalt) m.set('/data/prices/rent/baseRent/amount', nettoValue, nettokalt.path);
  if (kaltValue !== undefined && nettoValue !== undefined && kaltValue !== nettoValue && nettokalt) {
    m.warn(nettokalt.path, 'not mapped: kaltmiete is taken as the base rent, and nettokaltmiete differs from it');
  }

  const waehrung = m.use(child(prices, 'waehrung'));
  const currency = waehrung?.attributes.iso_waehrung?.trim().toUpperCase();
  if (currency && waehrung) {
    if (CURRENCIES.includes(currency)) m.set('/data/prices/currency', currency, `${waehrung.path}/@iso_waehrung`);
    else m.error(`${waehrung.path}/@iso_waehrung`, `"${currency}" is not a current ISO 4217 currency code`);
  }

  const courtage = child(prices, 'aussen_courtage');
  const note = m.text(courtage, TEXT_BOUND);
  if (note !== undefined && courtage) {
    m.set('/data/prices/brokerageFee/priceNote/de', note, courtage.path);
    const withVat = m.value(courtage, parseBoolean, 'mit_mwst');
    if (withVat !== undefined) m.set('/data/prices/brokerageFee/isVatIncluded', withVat, `${courtage.path}/@mit_mwst`);
  }

  for (const [name, member] of Object.entries(PARKING_LOTS)) {
    const element = child(prices, name);
    const count = m.value(element, parseInteger, 'anzahl');
    if (count !== undefined && element) {
      m.set(`/data/structure/parkingLots/${member}`, count, `${element.path}/@anzahl`);
      m.source('/data/structure/parkingLots', prices);
    }
    const priced = ['stellplatzmiete', 'stellplatzkaufpreis'].filter((attribute) => element?.attributes[attribute]?.trim());
    if (element && priced.length)
      m.warn(element.path, `not mapped: @${priced.join(' and @')} (the listing has no price per kind of parking space)`);
  }
  m.unmapped(prices);
}

function mapSpaces(m: ObjectMapping, spaces: XmlElement | undefined): void {
  if (!spaces) return;
  m.source('/data/spaces', spaces);
  m.source('/data/structure/rooms', spaces);
  m.leaves(spaces, SPACE_LEAVES);
  m.unmapped(spaces);
}

function mapEquipment(m: ObjectMapping, equipment: XmlElement | undefined): void {
  if (!equipment) return;
  m.source('/data/structure/building', equipment);
  const cellar = child(equipment, 'unterkellert');
  const keller = m.use(cellar) && cellar?.attributes.keller?.trim().toUpperCase();
  if (keller && cellar) {
    const value = CELLAR_STATE[keller];
    if (value) m.set('/data/structure/building/cellar', value, `${cellar.path}/@keller`);
    else m.error(`${cellar.path}/@keller`, `"${keller}" is not JA, NEIN or TEIL`);
  }
  const barrierFree = child(equipment, 'barrierefrei');
  const free = m.value(barrierFree, parseBoolean);
  if (free !== undefined && barrierFree) m.set('/data/structure/building/barrierFree', free ? 'YES' : 'NO', barrierFree.path);
  const elevator = child(equipment, 'fahrstuhl');
  for (const [attribute, member] of [
    ['PERSONEN', 'person'],
    ['LASTEN', 'freight'],
  ] as const) {
    const value = m.value(elevator, parseBoolean, attribute);
    if (value !== undefined) m.set(`/data/structure/building/elevator/${member}`, value ? 'YES' : 'NO', `${elevator?.path}/@${attribute}`);
  }
  m.unmapped(equipment);
}

function mapCondition(m: ObjectMapping, condition: XmlElement | undefined): void {
  if (!condition) return;
  m.source('/data/conditions', condition);
  for (const [name, pointer] of [
    ['baujahr', '/data/conditions/yearOfConstruction'],
    ['letztemodernisierung', '/data/conditions/lastModernisation'],
  ] as const) {
    const element = child(condition, name);
    const raw = m.text(element);
    if (raw === undefined || !element) continue;
    const year = parseInteger(raw);
    if (year.ok && year.value >= 0 && year.value <= 9999) m.set(pointer, year.value, element.path);
    else m.warn(element.path, `not mapped: "${raw}" is not a year`);
  }
  for (const [name, attribute, table, pointer] of [
    ['zustand', 'zustand_art', BUILD_STATE, '/data/conditions/buildState'],
    ['alter', 'alter_attr', AGE_STATE, '/data/conditions/ageState'],
  ] as const) {
    const element = m.use(child(condition, name));
    const value = element?.attributes[attribute]?.trim().toUpperCase();
    if (!value || !element) continue;
    const mapped = (table as Readonly<Record<string, string | null>>)[value];
    if (mapped) m.set(pointer, mapped, `${element.path}/@${attribute}`);
    else m.warn(`${element.path}/@${attribute}`, `not mapped: the listing model has no ${pointer.split('/').pop()} for "${value}"`);
  }
  m.unmapped(condition);
}

function mapTexts(m: ObjectMapping, texts: XmlElement | undefined): void {
  if (!texts) return;
  m.source('/data/texts', texts);
  m.leaves(texts, TEXT_LEAVES);
  for (const element of childrenNamed(texts, 'objekt_text')) {
    const value = m.text(element, TEXT_BOUND);
    if (value === undefined) continue;
    const lang = element.attributes.lang?.trim().toLowerCase().slice(0, 2) ?? '';
    const pointer = `/data/texts/description/${lang}`;
    if (!LANGUAGES.includes(lang))
      m.warn(element.path, `not mapped: @lang "${element.attributes.lang ?? ''}" is not an ISO 639-1 language`);
    else if (m.has(pointer)) m.warn(element.path, `not mapped: the description in "${lang}" is given already`);
    else m.set(pointer, value, element.path);
  }
  m.unmapped(texts);
}

const IMMEDIATELY = /^(ab )?sofort( verfügbar| frei| beziehbar)?$|^(ab )?sofort$|^immediately$/i;

function mapAdministration(m: ObjectMapping, administration: XmlElement | undefined): void {
  if (!administration) return;
  m.source('/data/management', administration);
  m.leaves(administration, ADMINISTRATION_LEAVES.slice(1));
  const available = child(administration, 'verfuegbar_ab');
  const raw = m.text(available, 64);
  if (raw !== undefined && available) {
    const date = parseDate(raw);
    if (IMMEDIATELY.test(raw)) m.set('/data/management/isImmediatelyAvailable', true, available.path);
    else if (date) m.set('/data/management/availableFromDate', date, available.path);
    else m.warn(available.path, `not mapped: "${raw}" is neither a date nor "ab sofort"`);
  }
  const from = child(administration, 'abdatum');
  const fromRaw = m.text(from);
  if (fromRaw !== undefined && from) {
    const date = parseDate(fromRaw);
    if (!date) m.warn(from.path, `not mapped: "${fromRaw}" is not a date`);
    else if (!m.has('/data/management/availableFromDate')) m.set('/data/management/availableFromDate', date, from.path);
  }
  const holiday = child(administration, 'als_ferien');
  const vacation = m.value(holiday, parseBoolean);
  if (vacation && holiday) {
    if (getPointer(m.request, '/data/distributionType') === 'RENT') m.set('/data/distributionSubType', 'VACATION', holiday.path);
    else m.warn(holiday.path, 'not mapped: only a rent can be a holiday let');
  }
  m.use(child(administration, 'objektadresse_freigeben')); // read with the location
  m.unmapped(administration);
}

function mapAttachments(m: ObjectMapping, group: XmlElement | undefined): Attachment[] {
  if (!group) return [];
  const items = childrenNamed(group, 'anhang');
  if (items.length > m.limits.maxAttachmentsPerObject) {
    m.error(
      group.path,
      `${items.length} anhang elements, more than the limit of ${m.limits.maxAttachmentsPerObject} (maxAttachmentsPerObject)`,
    );
    return [];
  }
  const attachments: Attachment[] = [];
  const links: Json[] = [];
  for (const anhang of items) {
    m.use(anhang);
    if (isEmpty(anhang)) continue;
    const gruppe = anhang.attributes.gruppe?.trim().toUpperCase() || undefined;
    const rule = gruppe === undefined ? { media: { mediaType: 'PICTURE' } } : ATTACHMENT_GROUPS[gruppe];
    if (rule === undefined) {
      m.warn(anhang.path, `not mapped: gruppe "${gruppe}" is not an OpenImmo attachment group`);
      continue;
    }
    if (rule === null) {
      m.warn(anhang.path);
      continue;
    }
    const daten = child(anhang, 'daten');
    const pfad = child(daten, 'pfad')?.text.trim() || undefined;
    const content = child(daten, 'anhanginhalt')?.text.replace(/\s+/g, '') || undefined;
    let title = child(anhang, 'anhangtitel')?.text.trim() || undefined;
    if (title && title.length > 512) {
      m.warn(`${anhang.path}/anhangtitel`, `not mapped: the title has ${title.length} characters, a media title at most 512`);
      title = undefined;
    }
    if ('link' in rule) {
      if (!pfad || !isHttpUrl(pfad) || pfad.length > 2048) {
        m.warn(anhang.path, `not mapped: a ${gruppe} attachment needs an http(s) URL of at most 2048 characters in daten/pfad`);
        continue;
      }
      m.source('/data/links', group);
      m.sources[`/data/links/externalLinks/${links.length}`] = anhang.path;
      links.push(compact({ url: pfad, urlType: rule.link.urlType, title }));
      continue;
    }
    const declared = anhang.attributes.location?.trim().toUpperCase();
    const remote = pfad !== undefined && isHttpUrl(pfad);
    if (declared === 'REMOTE' && !remote && !content) {
      m.warn(anhang.path, `not mapped: location REMOTE needs an http(s) URL in daten/pfad, not "${pfad ?? ''}"`);
      continue;
    }
    let inline: Buffer | undefined;
    if (content !== undefined) {
      inline = /^[A-Za-z0-9+/]+={0,2}$/.test(content) ? Buffer.from(content, 'base64') : undefined;
      if (!inline || inline.length === 0 || inline.length > MAX_MEDIA_BYTES) {
        m.warn(`${daten?.path}/anhanginhalt`, `not mapped: anhanginhalt is not base64 of at most ${MAX_MEDIA_BYTES} bytes`);
        inline = undefined;
        if (!pfad) continue;
      }
    }
    if (!pfad && !inline) {
      m.warn(anhang.path, 'not mapped: the anhang has neither daten/pfad nor daten/anhanginhalt');
      continue;
    }
    const location = remote ? 'REMOTE' : declared === 'INTERN' ? 'INTERN' : 'EXTERN';
    const format = child(anhang, 'format')?.text.trim() || undefined;
    attachments.push(compact({ path: anhang.path, location, gruppe, format, pfad, inline, title, ...rule.media }));
  }
  if (links.length > 50) m.error(group.path, `${links.length} links (LINKS, FILMLINK, ANBOBJURL), more than the 50 a listing takes`);
  else if (links.length) m.set('/data/links/externalLinks', links, group.path);
  m.unmapped(group);
  // The title picture leads, whatever its place in the file; the others keep theirs.
  return [...attachments.filter((a) => a.gruppe === 'TITELBILD'), ...attachments.filter((a) => a.gruppe !== 'TITELBILD')];
}
