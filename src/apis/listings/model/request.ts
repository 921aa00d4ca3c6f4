/*
 * The listing write request (apiRequest: the body of POST /listings and PUT /listings/{id}) as one
 * TypeBox schema and the type derived from it; listing.ts registers it (with its $id and example).
 *
 * Why hand-written rather than derived from the classifieds schema: the listing import is its own
 * contract (German market, one estateSubType string instead of an object keyed by type, hasFee
 * as a boolean, a Point-only geometry, rules instead of bounds), and an API may not import
 * another's code. The `data` object keeps the classifieds' structure and member names where the
 * two coincide (location, prices.rent.baseRent.amount, spaces, structure.rooms, texts keyed by
 * language, links, media categories), takes the shared vocabularies from the model family's
 * reference (matrices.ts), and adds what the listing rules name. test/listings/rules.test.ts
 * checks every shared path against the classifieds schema so the two cannot drift apart unnoticed.
 *
 * What the schema checks: structure, types, enums, required members, lengths of identifiers, and
 * `additionalProperties: false` at every level. What it deliberately leaves to rules.ts: every
 * constraint a business rule names (text length, email, phone, dates, URLs, the numeric ranges,
 * the matrices, mandatory identifiers), so that a violation is answered with that rule's reason.
 * Each such field carries `x-kind` (which rule family applies) and says its limit in its description;
 * rules.ts finds the fields by walking this schema, so the schema is the one list of them.
 */
import Type, { type Static, type TObjectOptions, type TProperties } from 'typebox';
import { stringEnum } from '../../../platform/http/schemas.js';
import {
  AGE_STATES,
  allValues,
  BUILD_STATES,
  CELLAR,
  CURRENCIES,
  DISTRIBUTION_SUB_TYPES,
  DISTRIBUTION_TYPES,
  ESTATE_SUB_TYPES,
  ESTATE_TYPES,
  FEE_FOR,
  LANGUAGES,
  MEDIA_CATEGORIES,
  MEDIA_TYPES,
  PRICE_INFORMATION,
  PROJECT_DISTRIBUTION_SUB_TYPES,
  PROJECT_ESTATE_SUB_TYPES,
  URL_TYPES,
  YES_NO,
} from './matrices.js';

/** Which business rules apply to a field (its `x-kind`); rules.ts reads it while walking the schema. */
export const FIELD_KINDS = [
  'multiLingualText', // rules 1 and 21
  'freeText', // rule 21 (a plain-string text entry, e.g. a media title)
  'email', // rule 2
  'phone', // rule 3
  'date', // rule 4
  'url', // rule 5
  'space', // rule 12
  'count', // rule 13
  'price', // rule 14
  'percent', // rule 16
] as const;

export type FieldKind = (typeof FIELD_KINDS)[number];

// --- Builders --------------------------------------------------------------------------------------------

/** An object closed to other members; a member not marked Type.Optional is required. */
export function object<P extends TProperties>(properties: P, options: TObjectOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** An object closed to other members, every one of them optional (most of the request is). */
function partial<P extends TProperties>(properties: P, options: TObjectOptions = {}) {
  return Type.Partial(Type.Object(properties), { additionalProperties: false, ...options });
}

function text(maxLength: number, description?: string) {
  return Type.String({ maxLength, ...(description ? { description } : {}) });
}

function matrixField(values: readonly string[], matrix: Readonly<Record<string, readonly string[]>>, description: string) {
  const pairs = Object.entries(matrix)
    .map(([key, allowed]) => `${key}: ${allowed.length ? allowed.join(', ') : '(none)'}`)
    .join('; ');
  return stringEnum(values, { description: `${description} Allowed pairs: ${pairs}.`, 'x-matrix': matrix });
}

const kind = (k: FieldKind) => ({ 'x-kind': k });

/** The ISO 639-1 codes as members, as in the classifieds, so the document lists the languages. */
// Each text's schema bound is the default body limit (BODY_LIMIT_BYTES), far past rule 1's 3999:
// the rule, not the schema, answers every text too long that the default server takes.
const MULTILINGUAL_TEXT_BOUND = 1_048_576;
const MultiLingualText = Type.Object(
  Object.fromEntries(LANGUAGES.map((code) => [code, Type.Optional(Type.String({ maxLength: MULTILINGUAL_TEXT_BOUND }))])),
  {
    description:
      'Text keyed by ISO 639-1 language code, e.g. {"de": "...", "en": "..."}. Rule 1: each at most 3999 characters; rule 21: no HTML, URLs, emails or phone numbers.',
    additionalProperties: false,
    ...kind('multiLingualText'),
  },
);
export type MultiLingualText = Static<typeof MultiLingualText>;

const multiLingual = (description: string) => Type.Unsafe<MultiLingualText>({ $ref: '#/definitions/MultiLingualText', description });
const space = (description: string) =>
  Type.Number({ description: `${description} Square metres; rule 12: at least 0, below 99999999.`, ...kind('space') });
const countDescription = (description: string) => `${description} Rule 13: at least 0, below 999999.`;
const count = (description: string) => Type.Integer({ description: countDescription(description), ...kind('count') });
const amount = (description: string) =>
  Type.Number({ description: `${description} Rule 14: at least 0, below 9999999999999.`, ...kind('price') });
const percent = (description: string) => Type.Number({ description: `${description} Rule 16: 0 to 100.`, ...kind('percent') });
const date = (description: string) =>
  Type.String({ maxLength: 64, description: `${description} Full date (rule 4), e.g. 2027-03-01.`, ...kind('date') });
const url = (description: string) =>
  Type.String({ maxLength: 2048, description: `${description} Rule 5: a valid http(s) URL.`, ...kind('url') });
const freeText = (maxLength: number, description: string) =>
  Type.String({ maxLength, description: `${description} Rule 21: no HTML, URLs, emails or phone numbers.`, ...kind('freeText') });

/** A price as in the classifieds: the amount and its VAT details. */
const price = (description: string) =>
  partial(
    {
      amount: amount('The amount in the listing currency.'),
      vatValue: amount('The VAT included in or added to the amount.'),
      vatPercent: percent('The VAT rate.'),
      isVatIncluded: Type.Boolean(),
      priceInformation: stringEnum(PRICE_INFORMATION),
    },
    { description },
  );

const identifier = (description: string) => text(512, description);

// --- The request -----------------------------------------------------------------------------------------

const location = object(
  {
    postalcode: text(32),
    city: text(128),
    street: Type.Optional(text(512)),
    houseNumber: Type.Optional(text(64)),
    state: Type.Optional(text(128)),
    country: text(125, 'Country code, e.g. DE.'),
    floorNumber: Type.Optional(Type.Integer({ minimum: -999, maximum: 999 })),
    geometry: Type.Optional(
      object(
        {
          type: stringEnum(['Point']),
          coordinates: Type.Array(Type.Number(), {
            minItems: 2,
            maxItems: 2,
            description: 'Longitude, latitude (WGS 84), in this order as in GeoJSON.',
          }),
        },
        { description: 'A GeoJSON Point. Without it the listing is placed by its address (warning IMPRECISE_LOCATION).' },
      ),
    ),
    isAddressShown: Type.Optional(
      Type.Boolean({ description: 'Whether the street and house number are shown on the portal. Default true.', default: true }),
    ),
    locationNote: Type.Optional(multiLingual('About the location.')),
  },
  { description: 'Without street and house number the listing is placed by postal code (warning IMPRECISE_LOCATION).' },
);

const prices = partial(
  {
    currency: stringEnum(CURRENCIES, { default: 'EUR' }),
    buy: partial({ price: price('Purchase price.'), parkingPrice: price('Price of the parking space.') }),
    rent: partial(
      {
        baseRent: price('Base rent (Kaltmiete) per month.'),
        totalRent: price('Total rent (Warmmiete) per month.'),
        lease: price('Lease (Pacht) per month.'),
        operatingCosts: price('Operating costs (Nebenkosten) per month.'),
        heatingCosts: price('Heating costs per month.'),
        parkingRent: price('Rent of the parking space per month.'),
        deposit: price('Rental deposit (Kaution).'),
      },
      {
        description:
          'Rules 17 and 18: a rent with distributionSubType CLASSIC, NEW_BUILD_UNIT or EMPTY needs baseRent, totalRent or lease amount greater than 0.',
      },
    ),
    compulsoryAuction: partial({
      marketValue: price('Market value (Verkehrswert).'),
      minimumBid: price('Minimum bid (geringstes Gebot); rule 19: amount greater than 0 for a COMPULSORY_AUCTION.'),
      overbidSessionStartingPrice: price('Starting price of the overbid session; rule 19: amount greater than 0 for a COMPULSORY_AUCTION.'),
    }),
    brokerageFee: partial({
      hasFee: Type.Boolean({
        description: 'Whether a brokerage fee is due. Rule 20: unless false, a BUY or RENT needs amount or priceNote.',
      }),
      amount: amount('The fee amount.'),
      feePercentage: percent('The fee as a percentage of the price.'),
      feeFor: stringEnum(FEE_FOR),
      isVatIncluded: Type.Boolean(),
      priceNote: multiLingual('The fee as text, e.g. 3,57 % inkl. MwSt.'),
    }),
    isPriceShown: Type.Boolean({ default: true }),
    priceNote: multiLingual('About the price.'),
  },
  { description: 'May be empty in a request; the rules say which amounts a distribution needs.' },
);

const spaces = partial(
  {
    usableFloorSpace: space('Usable floor space (Nutzfläche).'),
    overallSpace: space('Overall space.'),
    plotSpace: space('Plot space.'),
    kitchenSpace: space('Kitchen space.'),
    additionalSpace: space('Additional space.'),
    residential: partial({
      livingSpace: space('Living space (Wohnfläche).'),
      balconySpace: space('Balcony space.'),
      terraceSpace: space('Terrace space.'),
      cellarSpace: space('Cellar space.'),
      gardenSpace: space('Garden space.'),
      atticSpace: space('Attic space.'),
    }),
  },
  { description: 'Spaces in square metres (the German market); the residential ones grouped as in the classifieds.' },
);

const structure = partial({
  rooms: partial({
    // Halves allowed, so a number rather than an integer.
    numberOfRooms: Type.Number({ description: countDescription('Rooms; halves allowed (2.5).'), ...kind('count') }),
    numberOfBedRooms: count('Bedrooms.'),
    numberOfBathRooms: count('Bathrooms.'),
    numberOfToilets: count('Toilets.'),
    numberOfBalconies: count('Balconies.'),
    numberOfTerraces: count('Terraces.'),
  }),
  building: partial({
    numberOfFloors: count('Floors of the building.'),
    cellar: stringEnum(CELLAR),
    barrierFree: stringEnum(YES_NO),
    elevator: partial({ person: stringEnum(YES_NO), freight: stringEnum(YES_NO) }),
  }),
  parkingLots: partial(
    {
      outside: count('Outside parking lots.'),
      carport: count('Carports.'),
      garage: count('Garages.'),
      duplex: count('Duplex parking lots.'),
      underground: count('Underground parking lots.'),
    },
    { description: 'Parking lots (rule 13).' },
  ),
});

const conditions = partial({
  buildState: stringEnum(BUILD_STATES),
  ageState: stringEnum(AGE_STATES),
  yearOfConstruction: Type.Integer({ minimum: 0, maximum: 9999 }),
  lastModernisation: Type.Integer({ minimum: 0, maximum: 9999 }),
  buildingStartDate: date('Start of construction; rule 15: after 1900-01-01 for a new build.'),
});

const management = partial({
  availableFromDate: date('Available from; rule 15: after 1900-01-01 for a new build.'),
  isImmediatelyAvailable: Type.Boolean(),
  isRented: Type.Boolean(),
  isForInvestment: Type.Boolean(),
});

const texts = partial({
  headline: multiLingual('Headline of the listing.'),
  description: multiLingual('Description of the property.'),
  features: multiLingual('Its features (Ausstattung).'),
  area: multiLingual('Its surroundings (Lage).'),
  extendedInformation: multiLingual('Other information.'),
});

const links = partial({
  externalLinks: Type.Array(
    object({
      url: url('The link.'),
      urlType: Type.Optional(stringEnum(URL_TYPES)),
      title: Type.Optional(freeText(512, 'Title of the link.')),
    }),
    { maxItems: 50 },
  ),
  virtualTours: Type.Array(
    object({ url: url('The tour.'), provider: Type.Optional(text(64)), title: Type.Optional(freeText(512, 'Title of the tour.')) }),
    { maxItems: 50 },
  ),
});

const data = object(
  {
    estateType: matrixField(
      ESTATE_TYPES,
      ESTATE_SUB_TYPES,
      'Rule 6: must agree with estateSubType. PROJECT (a project classified) is not supported at present.',
    ),
    estateSubType: Type.Optional(
      matrixField(allValues(ESTATE_SUB_TYPES), ESTATE_SUB_TYPES, 'Optional; rule 6: one of the sub-types of estateType.'),
    ),
    distributionType: matrixField(DISTRIBUTION_TYPES, DISTRIBUTION_SUB_TYPES, 'Rule 7: must agree with distributionSubType.'),
    distributionSubType: matrixField(
      allValues(DISTRIBUTION_SUB_TYPES),
      DISTRIBUTION_SUB_TYPES,
      'Rule 7: one of the sub-types of distributionType.',
    ),
    location,
    prices,
    spaces: Type.Optional(spaces),
    structure: Type.Optional(structure),
    conditions: Type.Optional(conditions),
    management: Type.Optional(management),
    texts: Type.Optional(texts),
    links: Type.Optional(links),
    externalProjectId: Type.Optional(identifier('Project classifieds only (not supported at present): the project. Rule 10.')),
    projectEstateType: Type.Optional(
      matrixField(
        Object.keys(PROJECT_ESTATE_SUB_TYPES),
        PROJECT_ESTATE_SUB_TYPES,
        'Project classifieds only (not supported at present); rule 8.',
      ),
    ),
    projectEstateSubType: Type.Optional(
      matrixField(allValues(PROJECT_ESTATE_SUB_TYPES), PROJECT_ESTATE_SUB_TYPES, 'Project classifieds only; rule 8.'),
    ),
    projectDistributionType: Type.Optional(
      matrixField(
        Object.keys(PROJECT_DISTRIBUTION_SUB_TYPES),
        PROJECT_DISTRIBUTION_SUB_TYPES,
        'Project classifieds only (not supported at present); rule 9.',
      ),
    ),
    projectDistributionSubType: Type.Optional(
      matrixField(allValues(PROJECT_DISTRIBUTION_SUB_TYPES), PROJECT_DISTRIBUTION_SUB_TYPES, 'Project classifieds only; rule 9.'),
    ),
  },
  { description: 'The listing content.' },
);

const metadata = partial(
  {
    source: partial(
      {
        offererMarketingKey: identifier('The offerer (agency) key at the portal. Mandatory (rule 10).'),
        offererEstateId: identifier(
          "The client's own identifier of the listing: its externalListingId in paths. Mandatory (rule 10); unique per agency and environment.",
        ),
        offererEstateGroupId: identifier('Project classifieds only (not supported at present): the group of units. Rule 10.'),
      },
      { description: 'Who offers the listing and under which identifier.' },
    ),
    externalId: identifier('The listing number shown to seekers (Objektnummer). Mandatory (rule 10).'),
    softwareName: identifier('The software that sends the listing (e.g. the CRM), with its version. Mandatory (rule 10).'),
    externalCustomerId: identifier("The agency's customer number at that software vendor. Mandatory (rule 10)."),
    isPublished: Type.Boolean({
      default: true,
      description:
        'false stores the listing without publishing it: it is served to its agency (marked not published) but not shown on the portal.',
    }),
  },
  {
    description: 'About the listing rather than the property. The mandatory members are checked by rule 10, which names each missing one.',
  },
);

const media = Type.Array(
  object({
    externalMediaId: Type.String({ minLength: 1, maxLength: 512, description: 'The externalMediaId given to POST /medias.' }),
    mediaType: Type.Optional(stringEnum(MEDIA_TYPES, { default: 'PICTURE' })),
    category: Type.Optional(stringEnum(MEDIA_CATEGORIES)),
    title: Type.Optional(freeText(512, 'Caption.')),
  }),
  { maxItems: 200, description: 'Media uploaded beforehand through POST /medias, in display order.' },
);

const contact = partial(
  {
    salutation: stringEnum(['MR', 'MS', 'OTHER']),
    firstName: text(128),
    lastName: text(128),
    company: text(256),
    email: Type.String({ maxLength: 256, description: 'Rule 2: a valid email address.', ...kind('email') }),
    phone: Type.String({ maxLength: 32, description: 'Rule 3: e.g. +49 30 1234567.', ...kind('phone') }),
    mobilePhone: Type.String({ maxLength: 32, description: 'Rule 3: e.g. +49 171 1234567.', ...kind('phone') }),
    fax: Type.String({ maxLength: 32, description: 'Rule 3.', ...kind('phone') }),
    homepage: url('The contact person or agency homepage.'),
  },
  { description: 'The contact person for seekers.' },
);

/** The apiRequest, not yet registered: example.ts is typed by it and listing.ts registers it. */
export const ApiRequest = object(
  { data, metadata, media: Type.Optional(media), contact: Type.Optional(contact) },
  {
    title: 'apiRequest',
    description:
      'A listing as created or replaced by POST /listings and PUT /listings/{externalListingId}. Additional properties are refused at every level.',
    definitions: { MultiLingualText },
  },
);

/** An apiRequest as the schema accepts it (the mandatory identifiers of rule 10 are checked by the rules). */
export type ApiRequest = Static<typeof ApiRequest>;
