/*
 * The listing write request (apiRequest: the body of POST /listings and PUT /listings/{id}) as
 * one JSON Schema, registered under LISTING_REQUEST_SCHEMA_ID; routes use `{ $ref: 'ClimApiRequest#' }`.
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
import { berlinRentApartmentExample } from './example.js';
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

export const LISTING_REQUEST_SCHEMA_ID = 'ClimApiRequest';

/** Which business rules apply to a field; rules.ts reads it while walking the schema. */
export type FieldKind =
  | 'multiLingualText' // rules 1 and 21
  | 'freeText' // rule 21 (a plain-string text entry, e.g. a media title)
  | 'email' // rule 2
  | 'phone' // rule 3
  | 'date' // rule 4
  | 'url' // rule 5
  | 'space' // rule 12
  | 'count' // rule 13
  | 'price' // rule 14
  | 'percent'; // rule 16

type Schema = Record<string, unknown>;

function object(properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return { type: 'object', additionalProperties: false, properties, ...extra };
}

function text(maxLength: number, description?: string): Schema {
  return { type: 'string', maxLength, ...(description ? { description } : {}) };
}

function enumOf(values: readonly string[], description?: string): Schema {
  return { type: 'string', enum: [...values], ...(description ? { description } : {}) };
}

function matrixField(values: readonly string[], matrix: Readonly<Record<string, readonly string[]>>, description: string): Schema {
  const pairs = Object.entries(matrix)
    .map(([key, allowed]) => `${key}: ${allowed.length ? allowed.join(', ') : '(none)'}`)
    .join('; ');
  return { ...enumOf(values), description: `${description} Allowed pairs: ${pairs}.`, 'x-matrix': matrix };
}

const kind = (k: FieldKind, schema: Schema): Schema => ({ ...schema, 'x-kind': k });

const multiLingual = (description: string): Schema => ({ $ref: '#/definitions/MultiLingualText', description });
const space = (description: string) =>
  kind('space', { type: 'number', description: `${description} Square metres; rule 12: at least 0, below 99999999.` });
const count = (description: string, type: 'integer' | 'number' = 'integer') =>
  kind('count', { type, description: `${description} Rule 13: at least 0, below 999999.` });
const amount = (description: string) =>
  kind('price', { type: 'number', description: `${description} Rule 14: at least 0, below 9999999999999.` });
const percent = (description: string) => kind('percent', { type: 'number', description: `${description} Rule 16: 0 to 100.` });
const date = (description: string) => kind('date', { type: 'string', description: `${description} Full date (rule 4), e.g. 2027-03-01.` });
const url = (description: string) =>
  kind('url', { type: 'string', maxLength: 2048, description: `${description} Rule 5: a valid http(s) URL.` });
const freeText = (maxLength: number, description: string) =>
  kind('freeText', { type: 'string', maxLength, description: `${description} Rule 21: no HTML, URLs, emails or phone numbers.` });

/** A price as in the classifieds: the amount and its VAT details. */
const price = (description: string): Schema =>
  object(
    {
      amount: amount('The amount in the listing currency.'),
      vatValue: amount('The VAT included in or added to the amount.'),
      vatPercent: percent('The VAT rate.'),
      isVatIncluded: { type: 'boolean' },
      priceInformation: enumOf(PRICE_INFORMATION),
    },
    { description },
  );

const identifier = (description: string): Schema => text(512, description);

const location = object(
  {
    postalcode: text(32),
    city: text(128),
    street: text(512),
    houseNumber: text(64),
    state: text(128),
    country: text(125, 'Country code, e.g. DE.'),
    floorNumber: { type: 'integer', minimum: -999, maximum: 999 },
    geometry: object(
      {
        type: enumOf(['Point']),
        coordinates: {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: { type: 'number' },
          description: 'Longitude, latitude (WGS 84), in this order as in GeoJSON.',
        },
      },
      {
        required: ['type', 'coordinates'],
        description: 'A GeoJSON Point. Without it the listing is placed by its address (warning IMPRECISE_LOCATION).',
      },
    ),
    isAddressShown: {
      type: 'boolean',
      description: 'Whether the street and house number are shown on the portal. Default true.',
      default: true,
    },
    locationNote: multiLingual('About the location.'),
  },
  {
    required: ['postalcode', 'city', 'country'],
    description: 'Without street and house number the listing is placed by postal code (warning IMPRECISE_LOCATION).',
  },
);

const prices = object(
  {
    currency: { ...enumOf(CURRENCIES), default: 'EUR' },
    buy: object({ price: price('Purchase price.'), parkingPrice: price('Price of the parking space.') }),
    rent: object(
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
    compulsoryAuction: object({
      marketValue: price('Market value (Verkehrswert).'),
      minimumBid: price('Minimum bid (geringstes Gebot); rule 19: amount greater than 0 for a COMPULSORY_AUCTION.'),
      overbidSessionStartingPrice: price('Starting price of the overbid session; rule 19: amount greater than 0 for a COMPULSORY_AUCTION.'),
    }),
    brokerageFee: object({
      hasFee: {
        type: 'boolean',
        description: 'Whether a brokerage fee is due. Rule 20: unless false, a BUY or RENT needs amount or priceNote.',
      },
      amount: amount('The fee amount.'),
      feePercentage: percent('The fee as a percentage of the price.'),
      feeFor: enumOf(FEE_FOR),
      isVatIncluded: { type: 'boolean' },
      priceNote: multiLingual('The fee as text, e.g. 3,57 % inkl. MwSt.'),
    }),
    isPriceShown: { type: 'boolean', default: true },
    priceNote: multiLingual('About the price.'),
  },
  { description: 'May be empty in a request; the rules say which amounts a distribution needs.' },
);

const spaces = object(
  {
    usableFloorSpace: space('Usable floor space (Nutzfläche).'),
    overallSpace: space('Overall space.'),
    plotSpace: space('Plot space.'),
    kitchenSpace: space('Kitchen space.'),
    additionalSpace: space('Additional space.'),
    residential: object({
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

const structure = object({
  rooms: object({
    numberOfRooms: count('Rooms; halves allowed (2.5).', 'number'),
    numberOfBedRooms: count('Bedrooms.'),
    numberOfBathRooms: count('Bathrooms.'),
    numberOfToilets: count('Toilets.'),
    numberOfBalconies: count('Balconies.'),
    numberOfTerraces: count('Terraces.'),
  }),
  building: object({
    numberOfFloors: count('Floors of the building.'),
    cellar: enumOf(CELLAR),
    barrierFree: enumOf(YES_NO),
    elevator: object({ person: enumOf(YES_NO), freight: enumOf(YES_NO) }),
  }),
  parkingLots: object(
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

const conditions = object({
  buildState: enumOf(BUILD_STATES),
  ageState: enumOf(AGE_STATES),
  yearOfConstruction: { type: 'integer', minimum: 0, maximum: 9999 },
  lastModernisation: { type: 'integer', minimum: 0, maximum: 9999 },
  buildingStartDate: date('Start of construction; rule 15: after 1900-01-01 for a new build.'),
});

const management = object({
  availableFromDate: date('Available from; rule 15: after 1900-01-01 for a new build.'),
  isImmediatelyAvailable: { type: 'boolean' },
  isRented: { type: 'boolean' },
  isForInvestment: { type: 'boolean' },
});

const texts = object({
  headline: multiLingual('Headline of the listing.'),
  description: multiLingual('Description of the property.'),
  features: multiLingual('Its features (Ausstattung).'),
  area: multiLingual('Its surroundings (Lage).'),
  extendedInformation: multiLingual('Other information.'),
});

const links = object({
  externalLinks: {
    type: 'array',
    maxItems: 50,
    items: object({ url: url('The link.'), urlType: enumOf(URL_TYPES), title: freeText(512, 'Title of the link.') }, { required: ['url'] }),
  },
  virtualTours: {
    type: 'array',
    maxItems: 50,
    items: object({ url: url('The tour.'), provider: text(64), title: freeText(512, 'Title of the tour.') }, { required: ['url'] }),
  },
});

const data = object(
  {
    estateType: matrixField(
      ESTATE_TYPES,
      ESTATE_SUB_TYPES,
      'Rule 6: must agree with estateSubType. PROJECT (a project classified) is not supported at present.',
    ),
    estateSubType: matrixField(allValues(ESTATE_SUB_TYPES), ESTATE_SUB_TYPES, 'Optional; rule 6: one of the sub-types of estateType.'),
    distributionType: matrixField(DISTRIBUTION_TYPES, DISTRIBUTION_SUB_TYPES, 'Rule 7: must agree with distributionSubType.'),
    distributionSubType: matrixField(
      allValues(DISTRIBUTION_SUB_TYPES),
      DISTRIBUTION_SUB_TYPES,
      'Rule 7: one of the sub-types of distributionType.',
    ),
    location,
    prices,
    spaces,
    structure,
    conditions,
    management,
    texts,
    links,
    externalProjectId: identifier('Project classifieds only (not supported at present): the project. Rule 10.'),
    projectEstateType: matrixField(
      Object.keys(PROJECT_ESTATE_SUB_TYPES),
      PROJECT_ESTATE_SUB_TYPES,
      'Project classifieds only (not supported at present); rule 8.',
    ),
    projectEstateSubType: matrixField(allValues(PROJECT_ESTATE_SUB_TYPES), PROJECT_ESTATE_SUB_TYPES, 'Project classifieds only; rule 8.'),
    projectDistributionType: matrixField(
      Object.keys(PROJECT_DISTRIBUTION_SUB_TYPES),
      PROJECT_DISTRIBUTION_SUB_TYPES,
      'Project classifieds only (not supported at present); rule 9.',
    ),
    projectDistributionSubType: matrixField(
      allValues(PROJECT_DISTRIBUTION_SUB_TYPES),
      PROJECT_DISTRIBUTION_SUB_TYPES,
      'Project classifieds only; rule 9.',
    ),
  },
  { required: ['estateType', 'distributionType', 'distributionSubType', 'location', 'prices'], description: 'The listing content.' },
);

const metadata = object(
  {
    source: object(
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
    isPublished: {
      type: 'boolean',
      default: true,
      description:
        'false stores the listing without publishing it: it is served to its agency (marked not published) but not shown on the portal.',
    },
  },
  {
    description: 'About the listing rather than the property. The mandatory members are checked by rule 10, which names each missing one.',
  },
);

const media = {
  type: 'array',
  maxItems: 200,
  description: 'Media uploaded beforehand through POST /medias, in display order.',
  items: object(
    {
      externalMediaId: { type: 'string', minLength: 1, maxLength: 512, description: 'The externalMediaId given to POST /medias.' },
      mediaType: { ...enumOf(MEDIA_TYPES), default: 'PICTURE' },
      category: enumOf(MEDIA_CATEGORIES),
      title: freeText(512, 'Caption.'),
    },
    { required: ['externalMediaId'] },
  ),
};

const contact = object(
  {
    salutation: enumOf(['MR', 'MS', 'OTHER']),
    firstName: text(128),
    lastName: text(128),
    company: text(256),
    email: kind('email', { type: 'string', maxLength: 256, description: 'Rule 2: a valid email address.' }),
    phone: kind('phone', { type: 'string', maxLength: 32, description: 'Rule 3: e.g. +49 30 1234567.' }),
    mobilePhone: kind('phone', { type: 'string', maxLength: 32, description: 'Rule 3: e.g. +49 171 1234567.' }),
    fax: kind('phone', { type: 'string', maxLength: 32, description: 'Rule 3.' }),
    homepage: url('The contact person or agency homepage.'),
  },
  { description: 'The contact person for seekers.' },
);

/** The ISO 639-1 codes as members, as in the classifieds, so the document lists the languages. */
const multiLingualText = kind('multiLingualText', {
  type: 'object',
  description:
    'Text keyed by ISO 639-1 language code, e.g. {"de": "...", "en": "..."}. Rule 1: each at most 3999 characters; rule 21: no HTML, URLs, emails or phone numbers.',
  additionalProperties: false,
  properties: Object.fromEntries(LANGUAGES.map((code) => [code, { type: 'string' }])),
});

export const listingRequestSchema = {
  $id: LISTING_REQUEST_SCHEMA_ID,
  title: 'apiRequest',
  description:
    'A listing as created or replaced by POST /listings and PUT /listings/{externalListingId}. Additional properties are refused at every level.',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'metadata'],
  properties: { data, metadata, media, contact },
  definitions: { MultiLingualText: multiLingualText },
  example: berlinRentApartmentExample(),
} as const satisfies Schema & { $id: string };
