/*
 * The listing request model of the Listing import API: its JSON Schema (as the app registers and
 * compiles it), the 21 business rules with one passing and one failing case each, the type
 * matrices, the refusal of project classifieds, rule 21 against ordinary German text, and warnings.
 *
 * Plain unit tests of schema + rules: judging a body needs no database and no server, so none is
 * started (the HTTP routes have their own tests in listings.test.ts). Every failing case first
 * passes the schema, so the same body reaches the rules through the route.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ErrorObject } from 'ajv';
import fc from 'fast-check';
import { berlinRentApartmentExample } from '../../src/apis/listings/model/example.js';
import {
  DISTRIBUTION_SUB_TYPES,
  ESTATE_SUB_TYPES,
  ESTATE_TYPES,
  PROJECT_DISTRIBUTION_SUB_TYPES,
  PROJECT_ESTATE_SUB_TYPES,
} from '../../src/apis/listings/model/matrices.js';
import { checkListing, forbiddenContent, isProjectListing, isPublished, RULES, type RuleError } from '../../src/apis/listings/rules.js';
import { LISTING_REQUEST_SCHEMA_ID, ListingRequest } from '../../src/apis/listings/model/listing.js';
import { createValidators, validationProblem } from '../../src/platform/http/validation.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { formerForbiddenContent } from '../fixtures/rule21.js';
import { REPO_ROOT } from '../helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;
type BodyValidator = ((body: unknown) => boolean) & { errors?: ErrorObject[] | null };

// Exactly as the app does: the shared schema registered by its $id, the route body a $ref to it.
const validators = createValidators();
validators.addSchema(ListingRequest);
const validate = validators.compiler({
  schema: { $ref: `${LISTING_REQUEST_SCHEMA_ID}#` },
  method: 'POST',
  url: '/import-listings/v1/listings',
  httpPart: 'body',
}) as BodyValidator;

/** The field errors the API would answer for this body's schema violations ([] when valid). */
function schemaErrors(body: unknown): RuleError[] {
  if (validate(body)) return [];
  return (validationProblem(validate.errors ?? [], 'body').extra.errors as RuleError[]) ?? [];
}

/** The Berlin listing changed by `change`; asserts that it still passes the schema. */
function listing(change: (body: Body) => void = () => undefined): Body {
  const body: Body = berlinRentApartment();
  change(body);
  assert.deepEqual(schemaErrors(body), [], 'the case must pass the schema so that it reaches the rules');
  return body;
}

function errorsOf(change: (body: Body) => void, options: { existingEstateType?: string } = {}): RuleError[] {
  return checkListing(listing(change), options).errors;
}

/** A project classified complete in every project field. */
function projectListing(change: (body: Body) => void = () => undefined): Body {
  return listing((b) => {
    b.data.externalProjectId = 'PRJ-7';
    b.data.projectEstateType = 'APARTMENT';
    b.data.projectEstateSubType = 'MULTI_FAMILY_HOUSE';
    b.data.projectDistributionType = 'RENT';
    b.data.projectDistributionSubType = 'NEW_BUILD_PROJECT';
    b.metadata.source.offererEstateGroupId = 'GRP-7';
    change(b);
  });
}

const PROJECT_REFUSAL: RuleError = {
  name: '/data/externalProjectId',
  reason:
    'project classifieds are not supported at present: send each unit as a listing without project fields and not as estateType PROJECT.',
};

const RULE_21 = (name: string, what: string, found: string): RuleError => ({
  name,
  reason: `rule 21: text must not contain HTML, URLs, email addresses or phone numbers; found ${what}: ${JSON.stringify(found)}.`,
});

describe('the listing request schema', () => {
  it('accepts the Berlin rent apartment, which passes every rule without warnings, and is the OpenAPI example', () => {
    const body = berlinRentApartment();
    assert.deepEqual(schemaErrors(body), []);
    assert.deepEqual(checkListing(body, {}), { errors: [], warnings: [] });
    assert.deepEqual(checkListing(body, { existingEstateType: 'APARTMENT' }), { errors: [], warnings: [] });
    assert.equal(ListingRequest.$id, 'ClimApiRequest');
    assert.deepEqual(ListingRequest.example, berlinRentApartmentExample());
    assert.deepEqual(berlinRentApartment(), berlinRentApartmentExample());
    assert.notEqual(berlinRentApartment(), berlinRentApartment(), 'each call is a fresh copy');
  });

  it('accepts a listing with media, links and every contact field', () => {
    const body = listing((b) => {
      b.media = [
        { externalMediaId: 'img-1', mediaType: 'PICTURE', category: 'LIVING_ROOM', title: 'Wohnzimmer mit Stuck' },
        { externalMediaId: 'img-2' },
      ];
      b.data.links = { externalLinks: [{ url: 'https://example.com/expose/42', urlType: 'OFFERER_DETAIL_PAGE', title: 'Exposé' }] };
      b.contact = { ...b.contact, mobilePhone: '+49 171 1234567', fax: '030-12345678', homepage: 'https://example.com' };
    });
    assert.deepEqual(checkListing(body), { errors: [], warnings: [] });
  });

  it('refuses an unknown member at every level as not allowed', () => {
    const cases: [string, (b: Body) => void][] = [
      ['/unknown', (b) => (b.unknown = 1)],
      ['/data/unknown', (b) => (b.data.unknown = 1)],
      ['/data/location/unknown', (b) => (b.data.location.unknown = 1)],
      ['/data/location/geometry/unknown', (b) => (b.data.location.geometry.unknown = 1)],
      ['/data/prices/rent/baseRent/unknown', (b) => (b.data.prices.rent.baseRent.unknown = 1)],
      ['/data/texts/headline/xx', (b) => (b.data.texts.headline.xx = 'text')],
      ['/metadata/unknown', (b) => (b.metadata.unknown = 1)],
      ['/metadata/source/unknown', (b) => (b.metadata.source.unknown = 1)],
      ['/media/0/unknown', (b) => (b.media = [{ externalMediaId: 'm-1', unknown: 1 }])],
      ['/contact/unknown', (b) => (b.contact.unknown = 1)],
    ];
    for (const [name, change] of cases) {
      const body: Body = berlinRentApartment();
      change(body);
      const member = name.split('/').pop() as string;
      assert.deepEqual(schemaErrors(body), [{ name, reason: `must NOT have additional properties: ${member}.` }], name);
    }
  });

  it('requires data and metadata, and in data the types, location and prices', () => {
    assert.deepEqual(schemaErrors({}), [
      { name: '/data', reason: 'is required.' },
      { name: '/metadata', reason: 'is required.' },
    ]);
    const body: Body = berlinRentApartment();
    delete body.data.distributionSubType;
    delete body.data.location.city;
    assert.deepEqual(schemaErrors(body), [
      { name: '/data/distributionSubType', reason: 'is required.' },
      { name: '/data/location/city', reason: 'is required.' },
    ]);
  });

  it('lists the allowed values of an enum, and refuses wrong types', () => {
    const body: Body = berlinRentApartment();
    body.data.distributionType = 'LEASE';
    body.data.spaces.residential.livingSpace = '85';
    body.metadata.isPublished = 'yes';
    assert.deepEqual(schemaErrors(body), [
      { name: '/data/distributionType', reason: 'must be equal to one of the allowed values: BUY, RENT, COMPULSORY_AUCTION, BUY_AUCTION.' },
      { name: '/data/spaces/residential/livingSpace', reason: 'must be number.' },
      { name: '/metadata/isPublished', reason: 'must be boolean.' },
    ]);
  });

  it('takes only a GeoJSON Point with a longitude, latitude pair', () => {
    const body: Body = berlinRentApartment();
    body.data.location.geometry = { type: 'Polygon', coordinates: [13.35, 52.48, 34] };
    assert.deepEqual(schemaErrors(body), [
      { name: '/data/location/geometry/type', reason: 'must be equal to one of the allowed values: Point.' },
      { name: '/data/location/geometry/coordinates', reason: 'must NOT have more than 2 items.' },
    ]);
  });

  it('shares member names and types with the classifieds data tree where the two coincide', () => {
    // Read as data, not imported: an API may not import another's code, a test may compare them.
    const file = path.join(REPO_ROOT, 'src/apis/classifieds/model/classified.schema.json');
    const classified = JSON.parse(fs.readFileSync(file, 'utf8')) as Body;
    const types = (schema: Body, rootSchema: Body, prefix: string, out: Map<string, string>): Map<string, string> => {
      // A $ref is a MultiLingualText in both: compared as an object, its language members not listed.
      if (typeof schema.$ref === 'string') return out.set(prefix, String(rootSchema.definitions[schema.$ref.split('/').pop()].type));
      out.set(prefix, String(schema.type));
      for (const [member, child] of Object.entries<Body>(schema.properties ?? {})) types(child, rootSchema, `${prefix}.${member}`, out);
      return out;
    };
    const ours = types(ListingRequest.properties.data, ListingRequest, 'data', new Map());
    const theirs = types(classified.properties.data, classified, 'data', new Map());
    const shared = [...ours.keys()].filter((key) => theirs.has(key));
    const differing = shared.filter((key) => ours.get(key) !== theirs.get(key));
    // The listing carries one estateSubType string (rule 6's matrix) and states hasFee as a boolean (rule 20).
    assert.deepEqual(differing, ['data.estateSubType', 'data.prices.brokerageFee.hasFee']);
    assert.ok(shared.length > 100, `only ${shared.length} shared paths`);
    // What the listing adds to the shared tree: the fields its rules name, and is-prefixed booleans.
    const additions = [...ours.keys()].filter((key) => !theirs.has(key) && theirs.has(key.slice(0, key.lastIndexOf('.'))));
    assert.deepEqual(additions, [
      'data.distributionSubType',
      'data.location.geometry.type',
      'data.location.geometry.coordinates',
      'data.location.isAddressShown',
      'data.prices.rent.deposit',
      'data.prices.compulsoryAuction.overbidSessionStartingPrice',
      'data.prices.brokerageFee.priceNote',
      'data.prices.isPriceShown',
      'data.conditions.buildingStartDate',
      'data.management.availableFromDate',
      'data.externalProjectId',
      'data.projectEstateType',
      'data.projectEstateSubType',
      'data.projectDistributionType',
      'data.projectDistributionSubType',
    ]);
  });
});

describe('the 21 business rules', () => {
  it('has each rule once, in the order of the spec, after the refusal of projects', () => {
    assert.deepEqual(
      RULES.map((rule) => rule.id),
      ['projects', ...Array.from({ length: 21 }, (_, i) => String(i + 1))],
    );
  });

  it('rule 1: a multi-lingual text of 3999 characters passes, 4000 fail (characters, not UTF-16 units)', () => {
    const words = (n: number) => 'Altbau '.repeat(Math.ceil(n / 7)).slice(0, n);
    assert.deepEqual(
      errorsOf((b) => (b.data.texts.description.de = words(3999))),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.texts.description.en = '🏠'.repeat(3999))),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.texts.description.de = words(4000))),
      [{ name: '/data/texts/description/de', reason: 'rule 1: a multi-lingual text is at most 3999 characters; this one has 4000.' }],
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.location.locationNote = { de: 'x'.repeat(5000) })),
      [{ name: '/data/location/locationNote/de', reason: 'rule 1: a multi-lingual text is at most 3999 characters; this one has 5000.' }],
    );
  });

  it('rule 2: a valid contact email passes, an invalid one fails', () => {
    assert.deepEqual(
      errorsOf((b) => (b.contact.email = 'a.schmidt+listings@makler-berlin.de')),
      [],
    );
    const reason = 'rule 2: must be a valid email address.';
    for (const email of ['anna.schmidt@example', 'anna.schmidt.example.com', 'anna schmidt@example.com', '']) {
      assert.deepEqual(
        errorsOf((b) => (b.contact.email = email)),
        [{ name: '/contact/email', reason }],
        email,
      );
    }
  });

  it('rule 3: phones of the phone format pass, others fail', () => {
    for (const phone of ['+49 30 1234567', '030 1234567', '030-1234567', '0301234567', '+49-171-1234567890']) {
      assert.deepEqual(
        errorsOf((b) => (b.contact.phone = phone)),
        [],
        phone,
      );
    }
    const reason =
      'rule 3: must be a phone number: optional leading +, 1-3 digits, optional hyphen or space, 1-4 digits, optional hyphen or space, 4-10 digits.';
    for (const phone of ['030/1234567', '+49 (0)30 1234567', '12-34', '+49 30 123', 'Tel. 030 1234567']) {
      assert.deepEqual(
        errorsOf((b) => (b.contact.phone = phone)),
        [{ name: '/contact/phone', reason }],
        phone,
      );
    }
    assert.deepEqual(
      errorsOf((b) => Object.assign(b.contact, { mobilePhone: '0171 123', fax: '+49 30 1234567' })),
      [{ name: '/contact/mobilePhone', reason }],
    );
  });

  it('rule 4: full dates pass, other date notations and impossible dates fail', () => {
    assert.deepEqual(
      errorsOf((b) => (b.data.conditions.buildingStartDate = '2024-02-29')),
      [],
    );
    const reason = 'rule 4: must be a full date (YYYY-MM-DD).';
    for (const date of ['01.03.2027', '2027-3-1', '2027-02-29', '2027-13-01', '2027-03-01T00:00:00Z']) {
      assert.deepEqual(
        errorsOf((b) => (b.data.management.availableFromDate = date)),
        [{ name: '/data/management/availableFromDate', reason }],
        date,
      );
    }
  });

  it('rule 5: http(s) URLs pass, other URLs fail', () => {
    assert.deepEqual(
      errorsOf((b) => {
        b.data.links = {
          externalLinks: [{ url: 'https://example.com/expose?id=42' }],
          virtualTours: [{ url: 'http://tour.example.com/42' }],
        };
        b.contact.homepage = 'https://makler-berlin.de';
      }),
      [],
    );
    const reason = 'rule 5: must be a valid http or https URL.';
    assert.deepEqual(
      errorsOf((b) => {
        b.data.links = {
          externalLinks: [{ url: 'https://example.com' }, { url: 'example.com/expose' }],
          virtualTours: [{ url: 'ftp://tour.example.com' }],
        };
        b.contact.homepage = 'https://exa mple.com';
      }),
      [
        { name: '/data/links/externalLinks/1/url', reason },
        { name: '/data/links/virtualTours/0/url', reason },
        { name: '/contact/homepage', reason },
      ],
    );
  });

  it('rule 6: an estateSubType of the estateType passes (or none), another fails naming the allowed ones', () => {
    assert.deepEqual(
      errorsOf((b) => (b.data.estateSubType = 'LOFT')),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => delete b.data.estateSubType),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.estateSubType = 'VILLA')),
      [
        {
          name: '/data/estateSubType',
          reason:
            'rule 6: estateSubType VILLA does not match estateType APARTMENT; allowed: MULTI_STOREY, FLATSHARING_ROOM, LOFT, PENTHOUSE, STUDIO, TERRACE, UNFINISHED_ATTIC_SPACE.',
        },
      ],
    );
    assert.deepEqual(
      errorsOf((b) => {
        b.data.estateType = 'MISCELLANEOUS';
        b.data.estateSubType = 'LOFT';
      }),
      [{ name: '/data/estateSubType', reason: 'rule 6: estateSubType LOFT does not match estateType MISCELLANEOUS; allowed: none.' }],
    );
  });

  it('rule 7: a distributionSubType of the distributionType passes, another fails naming the allowed ones', () => {
    assert.deepEqual(
      errorsOf((b) => (b.data.distributionSubType = 'TEMPORARY')),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.distributionSubType = 'LIFE_ANNUITY')),
      [
        {
          name: '/data/distributionSubType',
          reason:
            'rule 7: distributionSubType LIFE_ANNUITY does not match distributionType RENT; allowed: CLASSIC, NEW_BUILD_UNIT, EMPTY, FURNISHED, TEMPORARY, VACATION, BUSINESS.',
        },
      ],
    );
  });

  it('rule 8: a project with matching projectEstateType and sub-type is refused only as a project; a mismatch adds rule 8', () => {
    assert.deepEqual(checkListing(projectListing()).errors, [PROJECT_REFUSAL]);
    assert.deepEqual(checkListing(projectListing((b) => (b.data.projectEstateSubType = 'HOUSE_PARK'))).errors, [
      PROJECT_REFUSAL,
      {
        name: '/data/projectEstateSubType',
        reason: 'rule 8: projectEstateSubType HOUSE_PARK does not match projectEstateType APARTMENT; allowed: MULTI_FAMILY_HOUSE.',
      },
    ]);
    assert.deepEqual(checkListing(projectListing((b) => delete b.data.projectEstateSubType)).errors, [
      PROJECT_REFUSAL,
      { name: '/data/projectEstateSubType', reason: 'rule 8: projectEstateSubType is required with projectEstateType.' },
    ]);
  });

  it('rule 9: matching projectDistributionType and sub-type pass rule 9; a mismatch fails it', () => {
    assert.deepEqual(
      checkListing(
        projectListing((b) =>
          Object.assign(b.data, { projectDistributionType: 'BUY', projectDistributionSubType: 'NEW_BUILD_INVESTMENT_PRODUCT' }),
        ),
      ).errors,
      [PROJECT_REFUSAL],
    );
    assert.deepEqual(checkListing(projectListing((b) => (b.data.projectDistributionSubType = 'NEW_BUILD_INVESTMENT_PRODUCT'))).errors, [
      PROJECT_REFUSAL,
      {
        name: '/data/projectDistributionSubType',
        reason:
          'rule 9: projectDistributionSubType NEW_BUILD_INVESTMENT_PRODUCT does not match projectDistributionType RENT; allowed: NEW_BUILD_PROJECT.',
      },
    ]);
  });

  it('rule 10: the five identifiers present pass; each missing or blank one fails, and projects need two more', () => {
    assert.deepEqual(
      errorsOf(() => undefined),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => {
        b.metadata = { source: { offererEstateId: '  ' }, softwareName: '' };
      }),
      [
        { name: '/metadata/externalId', reason: 'rule 10: externalId is mandatory for API customers.' },
        { name: '/metadata/source/offererEstateId', reason: 'rule 10: offererEstateId is mandatory for API customers.' },
        { name: '/metadata/source/offererMarketingKey', reason: 'rule 10: offererMarketingKey is mandatory for API customers.' },
        { name: '/metadata/softwareName', reason: 'rule 10: softwareName is mandatory for API customers.' },
        { name: '/metadata/externalCustomerId', reason: 'rule 10: externalCustomerId is mandatory for API customers.' },
      ],
    );
    assert.deepEqual(
      checkListing(
        projectListing((b) => {
          delete b.data.externalProjectId;
          delete b.metadata.source.offererEstateGroupId;
        }),
      ).errors,
      [
        { ...PROJECT_REFUSAL, name: '/data/projectEstateType' },
        { name: '/data/externalProjectId', reason: 'rule 10: externalProjectId is mandatory for a project classified.' },
        { name: '/metadata/source/offererEstateGroupId', reason: 'rule 10: offererEstateGroupId is mandatory for a project classified.' },
      ],
    );
  });

  it('rule 11: an update keeping estateType passes, one changing it fails', () => {
    assert.deepEqual(
      errorsOf(() => undefined, { existingEstateType: 'APARTMENT' }),
      [],
    );
    assert.deepEqual(
      errorsOf(() => undefined, { existingEstateType: 'HOUSE' }),
      [{ name: '/data/estateType', reason: "rule 11: estateType cannot be changed by an update; the listing's estateType is HOUSE." }],
    );
  });

  it('rule 12: spaces from 0 to below 99999999 pass, outside fail', () => {
    assert.deepEqual(
      errorsOf((b) => Object.assign(b.data.spaces, { plotSpace: 99999998.99, residential: { livingSpace: 0 } })),
      [],
    );
    const reason = 'rule 12: a space must be a number at least 0 and below 99999999.';
    assert.deepEqual(
      errorsOf((b) => Object.assign(b.data.spaces, { plotSpace: 99999999, residential: { livingSpace: -1 } })),
      [
        { name: '/data/spaces/plotSpace', reason },
        { name: '/data/spaces/residential/livingSpace', reason },
      ],
    );
  });

  it('rule 13: counts and parking lots from 0 to below 999999 pass, outside fail', () => {
    assert.deepEqual(
      errorsOf((b) => {
        b.data.structure.rooms.numberOfRooms = 2.5;
        b.data.structure.parkingLots = { garage: 999998, outside: 0 };
      }),
      [],
    );
    const reason = 'rule 13: a count must be a number at least 0 and below 999999.';
    assert.deepEqual(
      errorsOf((b) => {
        b.data.structure.rooms.numberOfBedRooms = -1;
        b.data.structure.parkingLots = { garage: 999999 };
      }),
      [
        { name: '/data/structure/rooms/numberOfBedRooms', reason },
        { name: '/data/structure/parkingLots/garage', reason },
      ],
    );
  });

  it('rule 14: prices and amounts from 0 to below 9999999999999 pass, outside fail', () => {
    assert.deepEqual(
      errorsOf((b) => Object.assign(b.data.prices.rent, { deposit: { amount: 0 }, lease: { amount: 9999999999998 } })),
      [],
    );
    const reason = 'rule 14: a price or amount must be a number at least 0 and below 9999999999999.';
    assert.deepEqual(
      errorsOf((b) => {
        b.data.prices.rent.deposit = { amount: -1, vatValue: 9999999999999 };
        b.data.prices.brokerageFee.amount = -5;
      }),
      [
        { name: '/data/prices/rent/deposit/amount', reason },
        { name: '/data/prices/rent/deposit/vatValue', reason },
        { name: '/data/prices/brokerageFee/amount', reason },
      ],
    );
  });

  it('rule 15: a new build with dates after 1900-01-01 passes, on or before fails; other listings are not concerned', () => {
    const newBuild = (available: string, start: string) => (b: Body) => {
      b.data.distributionSubType = 'NEW_BUILD_UNIT';
      b.data.management.availableFromDate = available;
      b.data.conditions.buildingStartDate = start;
    };
    assert.deepEqual(errorsOf(newBuild('1900-01-02', '2025-06-01')), []);
    assert.deepEqual(
      errorsOf((b) => (b.data.conditions.buildingStartDate = '1899-05-01')),
      [],
    );
    assert.deepEqual(errorsOf(newBuild('1900-01-01', '1899-12-31')), [
      {
        name: '/data/management/availableFromDate',
        reason: 'rule 15: availableFromDate must be after 1900-01-01 for a new build (distributionSubType NEW_BUILD_UNIT).',
      },
      {
        name: '/data/conditions/buildingStartDate',
        reason: 'rule 15: buildingStartDate must be after 1900-01-01 for a new build (distributionSubType NEW_BUILD_UNIT).',
      },
    ]);
  });

  it('rule 16: percentages from 0 to 100 pass, outside fail', () => {
    assert.deepEqual(
      errorsOf((b) => {
        b.data.prices.rent.baseRent.vatPercent = 100;
        b.data.prices.brokerageFee.feePercentage = 0;
      }),
      [],
    );
    const reason = 'rule 16: a percentage must be between 0 and 100.';
    assert.deepEqual(
      errorsOf((b) => {
        b.data.prices.rent.baseRent.vatPercent = 100.5;
        b.data.prices.brokerageFee.feePercentage = -1;
      }),
      [
        { name: '/data/prices/rent/baseRent/vatPercent', reason },
        { name: '/data/prices/brokerageFee/feePercentage', reason },
      ],
    );
  });

  it('rule 17: a CLASSIC rent with baseRent, totalRent or lease above 0 passes, without fails', () => {
    assert.deepEqual(
      errorsOf((b) => (b.data.prices.rent = { lease: { amount: 800 } })),
      [],
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.prices.rent = { totalRent: { amount: 0.01 } })),
      [],
    );
    const failing = [
      {
        name: '/data/prices/rent',
        reason:
          'rule 17: baseRent.amount, totalRent.amount or lease.amount must be greater than 0 for a rent with distributionSubType CLASSIC.',
      },
    ];
    assert.deepEqual(
      errorsOf((b) => (b.data.prices.rent = { baseRent: { amount: 0 }, operatingCosts: { amount: 200 } })),
      failing,
    );
    assert.deepEqual(
      errorsOf((b) => (b.data.prices = { brokerageFee: { hasFee: false } })),
      failing,
    );
    // An empty prices object is schema-valid; the rules then say what a CLASSIC rent lacks.
    assert.deepEqual(
      errorsOf((b) => (b.data.prices = {})),
      [
        ...failing,
        {
          name: '/data/prices/brokerageFee',
          reason:
            'rule 20: a RENT needs brokerageFee.amount greater than 0 or a non-empty brokerageFee.priceNote unless brokerageFee.hasFee is false.',
        },
      ],
    );
  });

  it('rule 18: a NEW_BUILD_UNIT or EMPTY rent with a rent amount passes, without fails', () => {
    for (const subType of ['NEW_BUILD_UNIT', 'EMPTY']) {
      assert.deepEqual(
        errorsOf((b) => {
          b.data.distributionSubType = subType;
          b.data.prices.rent = { totalRent: { amount: 1500 } };
        }),
        [],
      );
      assert.deepEqual(
        errorsOf((b) => {
          b.data.distributionSubType = subType;
          b.data.prices.rent = { baseRent: { priceInformation: 'PRICE_ON_DEMAND' } };
        }),
        [
          {
            name: '/data/prices/rent',
            reason: `rule 18: baseRent.amount, totalRent.amount or lease.amount must be greater than 0 for a rent with distributionSubType ${subType}.`,
          },
        ],
      );
    }
    // Other rent sub-types need no amount.
    assert.deepEqual(
      errorsOf((b) => {
        b.data.distributionSubType = 'VACATION';
        b.data.prices.rent = {};
      }),
      [],
    );
  });

  it('rule 19: a compulsory auction with minimumBid and overbidSessionStartingPrice above 0 passes, without fails', () => {
    const auction = (prices: Body) => (b: Body) => {
      b.data.estateType = 'HOUSE';
      b.data.estateSubType = 'SINGLE_FAMILY_HOUSE';
      b.data.distributionType = 'COMPULSORY_AUCTION';
      b.data.distributionSubType = 'CLASSIC';
      b.data.prices = { compulsoryAuction: prices };
    };
    assert.deepEqual(
      errorsOf(
        auction({ marketValue: { amount: 350000 }, minimumBid: { amount: 175000 }, overbidSessionStartingPrice: { amount: 180000 } }),
      ),
      [],
    );
    assert.deepEqual(errorsOf(auction({ minimumBid: { amount: 0 } })), [
      {
        name: '/data/prices/compulsoryAuction/minimumBid',
        reason: 'rule 19: minimumBid.amount must be greater than 0 for a COMPULSORY_AUCTION.',
      },
      {
        name: '/data/prices/compulsoryAuction/overbidSessionStartingPrice',
        reason: 'rule 19: overbidSessionStartingPrice.amount must be greater than 0 for a COMPULSORY_AUCTION.',
      },
    ]);
  });

  it('rule 20: a BUY or RENT states its fee unless hasFee is false', () => {
    const buy = (fee: Body) => (b: Body) => {
      b.data.distributionType = 'BUY';
      b.data.prices = { buy: { price: { amount: 450000 } }, brokerageFee: fee };
    };
    assert.deepEqual(errorsOf(buy({ hasFee: false })), []);
    assert.deepEqual(errorsOf(buy({ hasFee: true, amount: 16065 })), []);
    assert.deepEqual(errorsOf(buy({ priceNote: { de: '3,57 % inkl. MwSt. vom Kaufpreis' } })), []);
    const reason = (type: string) =>
      `rule 20: a ${type} needs brokerageFee.amount greater than 0 or a non-empty brokerageFee.priceNote unless brokerageFee.hasFee is false.`;
    assert.deepEqual(errorsOf(buy({ hasFee: true, amount: 0, priceNote: { de: '  ' } })), [
      { name: '/data/prices/brokerageFee', reason: reason('BUY') },
    ]);
    assert.deepEqual(
      errorsOf((b) => delete b.data.prices.brokerageFee),
      [{ name: '/data/prices/brokerageFee', reason: reason('RENT') }],
    );
  });

  it('rule 21: ordinary German listing text passes', () => {
    const texts = [
      '3-Zimmer-Wohnung, 85 m², Kaltmiete 1.250 €, ab 01.03.2027, Hauptstraße 12, 10827 Berlin, 2. OG',
      'Nebenkosten 250 € + Heizkosten 80 €, Kaution 3 Nettokaltmieten (3.750 €), Provision 3,57 % inkl. MwSt.',
      'Baujahr 1910, saniert 2015-2018, Energieverbrauch 112,5 kWh/(m²·a), Zimmer 1 bis 3 je ca. 20-25 m².',
      'PLZ 01067 Dresden, Wohnungs-Nr. 0815/4711, Besichtigung am 01/03/2027 um 10:30 Uhr, z. B. mit U7 (5 Min.).',
      'Miete < 1.500 € warm, Fläche > 80 m²; Tel. und E-Mail erhalten Sie nach Ihrer Anfrage über das Portal.',
      'Ruhige Lage.Die Wohnung liegt im Hinterhaus, Balkon.Info zur Hausordnung beim Hausmeister.',
    ];
    for (const text of texts) {
      assert.equal(forbiddenContent(text), undefined, text);
      assert.deepEqual(
        errorsOf((b) => (b.data.texts.description.de = text)),
        [],
        text,
      );
    }
    assert.deepEqual(
      errorsOf((b) => (b.media = [{ externalMediaId: 'm-1', title: 'Grundriss 2. OG, 85 m²' }])),
      [],
    );
  });

  it('rule 21: HTML, URLs, email addresses and phone numbers in text entries fail, naming what was found', () => {
    const cases: [string, string, string][] = [
      ['Mehr im <a href="https://x.de">Exposé</a>', 'HTML', '<a href="https://x.de">'],
      ['Helle Wohnung<br/>mit Balkon', 'HTML', '<br/>'],
      ['Küche &amp; Bad', 'HTML', '&amp;'],
      ['Alle Infos unter www.example.de', 'a URL', 'www.example.de'],
      ['Exposé: https://makler.example/expose?id=42', 'a URL', 'https://makler.example/expose?id=42'],
      ['Details auf makler-berlin.de/angebote', 'a URL', 'makler-berlin.de/angebote'],
      ['Anfragen an info@makler.de bitte', 'an email address', 'info@makler.de'],
      ['Anfragen an info(at)makler.de', 'an email address', 'info(at)makler.de'],
      ['Rufen Sie an: +49 30 1234567', 'a phone number', '+49 30 1234567'],
      ['Telefon 030/1234567 ab 9 Uhr', 'a phone number', '030/1234567'],
      ['Tel. (030) 123 456 78', 'a phone number', '(030) 123 456 78'],
      ['Mobil 0171-1234567.', 'a phone number', '0171-1234567'],
    ];
    for (const [text, what, found] of cases) {
      assert.deepEqual(
        errorsOf((b) => (b.data.texts.description.de = text)),
        [RULE_21('/data/texts/description/de', what, found)],
        text,
      );
    }
    assert.deepEqual(
      errorsOf((b) => {
        b.media = [{ externalMediaId: 'm-1', title: 'Fotos: www.example.de' }];
        b.data.prices.brokerageFee.priceNote = { de: 'Info unter 030 12345678' };
        b.data.links = { virtualTours: [{ url: 'https://tour.example.com', title: '<b>Rundgang</b>' }] };
      }),
      [
        RULE_21('/data/prices/brokerageFee/priceNote/de', 'a phone number', '030 12345678'),
        RULE_21('/data/links/virtualTours/0/title', 'HTML', '<b>'),
        RULE_21('/media/0/title', 'a URL', 'www.example.de'),
      ],
    );
  });
});

describe('the type matrices', () => {
  it('rule 6: every allowed estateType/estateSubType pair passes the schema and the rule; a foreign sub-type fails', () => {
    const ruleSix = (errors: RuleError[]) => errors.filter((error) => error.reason.startsWith('rule 6:'));
    for (const estateType of ESTATE_TYPES) {
      const allowed = ESTATE_SUB_TYPES[estateType] ?? [];
      for (const estateSubType of allowed) {
        assert.deepEqual(
          ruleSix(errorsOf((b) => Object.assign(b.data, { estateType, estateSubType }))),
          [],
          `${estateType}/${estateSubType}`,
        );
      }
      const foreign = Object.values(ESTATE_SUB_TYPES)
        .flat()
        .find((value) => !allowed.includes(value)) as string;
      assert.deepEqual(
        ruleSix(errorsOf((b) => Object.assign(b.data, { estateType, estateSubType: foreign }))),
        [
          {
            name: '/data/estateSubType',
            reason: `rule 6: estateSubType ${foreign} does not match estateType ${estateType}; allowed: ${allowed.length ? allowed.join(', ') : 'none'}.`,
          },
        ],
        `${estateType}/${foreign}`,
      );
    }
    assert.equal(ESTATE_SUB_TYPES.HOUSE?.length, 25);
    assert.deepEqual(ESTATE_SUB_TYPES.MISCELLANEOUS, []);
  });

  it('rule 7: every allowed distributionType/distributionSubType pair passes the schema and the rule; a foreign sub-type fails', () => {
    const ruleSeven = (errors: RuleError[]) => errors.filter((error) => error.reason.startsWith('rule 7:'));
    for (const [distributionType, allowed] of Object.entries(DISTRIBUTION_SUB_TYPES)) {
      for (const distributionSubType of allowed) {
        assert.deepEqual(
          ruleSeven(errorsOf((b) => Object.assign(b.data, { distributionType, distributionSubType }))),
          [],
          `${distributionType}/${distributionSubType}`,
        );
      }
      const foreign = Object.values(DISTRIBUTION_SUB_TYPES)
        .flat()
        .find((value) => !allowed.includes(value)) as string;
      assert.deepEqual(ruleSeven(errorsOf((b) => Object.assign(b.data, { distributionType, distributionSubType: foreign }))), [
        {
          name: '/data/distributionSubType',
          reason: `rule 7: distributionSubType ${foreign} does not match distributionType ${distributionType}; allowed: ${allowed.join(', ')}.`,
        },
      ]);
    }
  });

  it('rules 8 and 9: every allowed project pair is refused only as a project; a foreign sub-type fails its rule', () => {
    for (const [projectEstateType, allowed] of Object.entries(PROJECT_ESTATE_SUB_TYPES)) {
      for (const projectEstateSubType of allowed) {
        assert.deepEqual(checkListing(projectListing((b) => Object.assign(b.data, { projectEstateType, projectEstateSubType }))).errors, [
          PROJECT_REFUSAL,
        ]);
      }
      const foreign = Object.values(PROJECT_ESTATE_SUB_TYPES)
        .flat()
        .find((value) => !allowed.includes(value)) as string;
      const errors = checkListing(
        projectListing((b) => Object.assign(b.data, { projectEstateType, projectEstateSubType: foreign })),
      ).errors;
      assert.deepEqual(
        errors.map((error) => error.name),
        ['/data/externalProjectId', '/data/projectEstateSubType'],
      );
    }
    for (const [projectDistributionType, allowed] of Object.entries(PROJECT_DISTRIBUTION_SUB_TYPES)) {
      for (const projectDistributionSubType of allowed) {
        assert.deepEqual(
          checkListing(projectListing((b) => Object.assign(b.data, { projectDistributionType, projectDistributionSubType }))).errors,
          [PROJECT_REFUSAL],
        );
      }
    }
  });

  it('documents each matrix in the schema, as data', () => {
    const data = ListingRequest.properties.data.properties as Body;
    assert.deepEqual(data.estateType['x-matrix'], ESTATE_SUB_TYPES);
    assert.deepEqual(data.distributionType['x-matrix'], DISTRIBUTION_SUB_TYPES);
    assert.deepEqual(data.projectEstateType['x-matrix'], PROJECT_ESTATE_SUB_TYPES);
    assert.deepEqual(data.projectDistributionType['x-matrix'], PROJECT_DISTRIBUTION_SUB_TYPES);
  });
});

describe('projects, publishing and warnings', () => {
  it('recognises a project classified by estateType PROJECT or any project field, and refuses it', () => {
    assert.equal(isProjectListing(berlinRentApartment()), false);
    assert.equal(isProjectListing(listing((b) => (b.data.projectEstateType = 'HOUSE'))), true);
    const project = listing((b) => {
      b.data.estateType = 'PROJECT';
      b.data.estateSubType = 'HOUSE_PARK';
      b.data.externalProjectId = 'PRJ-1';
      b.metadata.source.offererEstateGroupId = 'GRP-1';
    });
    assert.equal(isProjectListing(project), true);
    assert.deepEqual(checkListing(project).errors, [{ ...PROJECT_REFUSAL, name: '/data/estateType' }]);
  });

  it('publishes unless metadata.isPublished is false', () => {
    assert.equal(isPublished(berlinRentApartment()), true);
    assert.equal(isPublished(listing((b) => delete b.metadata.isPublished)), true);
    const unpublished = listing((b) => (b.metadata.isPublished = false));
    assert.equal(isPublished(unpublished), false);
    assert.deepEqual(checkListing(unpublished), { errors: [], warnings: [] });
  });

  it('warns, without refusing, when the location has no house number or no geometry', () => {
    const noNumber = {
      type: 'IMPRECISE_LOCATION',
      message: 'The location has no street and house number: the listing is placed by its postal code and city.',
    };
    const noGeometry = { type: 'IMPRECISE_LOCATION', message: 'The location has no geometry: the listing is placed by its address.' };
    assert.deepEqual(checkListing(listing((b) => delete b.data.location.houseNumber)), { errors: [], warnings: [noNumber] });
    assert.deepEqual(checkListing(listing((b) => delete b.data.location.geometry)), { errors: [], warnings: [noGeometry] });
    assert.deepEqual(checkListing(listing((b) => (b.data.location = { postalcode: '10827', city: 'Berlin', country: 'DE' }))), {
      errors: [],
      warnings: [noNumber, noGeometry],
    });
  });
});

describe('rule 21 in linear time', () => {
  /**
   * Pieces of the shapes rule 21 looks for, so that random texts often come close to one: all of
   * them, then without markup (which is reported first and would hide the rest), then for phones.
   */
  const PIECES: Record<string, string[]> = {
    'any shape': [
      ...'aAzZdeo09_.-@()/+%<>&#;,: \n\u00a0\t'.split(''),
      ...['de', 'com', 'info', 'Info', 'at', 'www.', 'http://', 'ftp:/', '(at)', ' (at) ', '(@)', '.de', '.de/x'],
      ...['+49 30 ', '0171-123', '(030) ', '&amp;', '<b>', '<!--'],
    ],
    'addresses and domains': [
      ...'aAzZdo09_.-@()/+%,: \n\u00a0'.split(''),
      ...['de', 'com', 'info', 'Info', 'at', 'io', 'immo', 'www.', '(at)', ' (at) ', '(@)', '.de', '.de/x', '.a', 'x@', 'a@b'],
    ],
    phones: [...'0123456789 +()/-.,a\n'.split(''), '+49', '030', '0171', ' 123', '(0)', '0815'],
  };

  for (const [name, pieces] of Object.entries(PIECES)) {
    it(`finds exactly what the former regular expressions found, on random texts of ${name}`, () => {
      const texts = fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join(''));
      fc.assert(
        fc.property(texts, (text) => {
          assert.deepEqual(forbiddenContent(text), formerForbiddenContent(text), JSON.stringify(text));
        }),
        { numRuns: 10_000 },
      );
    });
  }

  /** Texts that made the former patterns take seconds (issue 22), and what rule 21 finds in them. */
  const ADVERSARIAL: [string, string, { what: string; found: string } | undefined][] = [
    ['64,000 letters', 'a'.repeat(64_000), undefined],
    ['32,000 × "a."', 'a.'.repeat(32_000), undefined],
    ['32,000 × "a-"', 'a-'.repeat(32_000), undefined],
    ['32,000 × "a@a."', 'a@a.'.repeat(32_000), undefined],
    ['16,000 × "a(at)"', 'a(at)'.repeat(16_000), undefined],
    ['10,000 × "a (at) "', 'a (at) '.repeat(10_000), undefined],
    ['16,000 × "a(@)"', 'a(@)'.repeat(16_000), undefined],
    ['32,000 × "a." after "(at)" and before "de"', `kontakt(at)${'a.'.repeat(32_000)}de`, undefined],
    ['32,000 × "a-" before ".de"', `${'a-'.repeat(32_000)}.de`, undefined],
    ['32,000 × "a." before "de/"', `${'a.'.repeat(32_000)}de/`, undefined],
  ];
  // The last three are found, each as the whole text.
  ADVERSARIAL[7]![2] = { what: 'an email address', found: ADVERSARIAL[7]![1] };
  ADVERSARIAL[8]![2] = { what: 'a URL', found: ADVERSARIAL[8]![1] };
  ADVERSARIAL[9]![2] = { what: 'a URL', found: ADVERSARIAL[9]![1] };

  it('reads each adversarial text in a few milliseconds, with the same finding as before', () => {
    for (const [name, text, expected] of ADVERSARIAL) {
      const started = performance.now();
      const finding = forbiddenContent(text);
      const ms = performance.now() - started;
      assert.deepEqual(finding, expected, name);
      // The former patterns took 8-16 s on the first; a linear scan of 64 KB takes well under a millisecond.
      assert.ok(ms < 100, `${name}: ${ms.toFixed(1)} ms`);
      // The same answer as the former patterns, on a piece short enough for them (they are quadratic).
      const piece = text.slice(0, 300) + text.slice(-300);
      assert.deepEqual(forbiddenContent(piece), formerForbiddenContent(piece), `${name} (600 characters)`);
    }
  });

  it('reads adversarial texts of 3999 characters in the body, each reported as the former rule did', () => {
    for (const [name, text] of ADVERSARIAL) {
      const entry = text.slice(0, 3995) + text.slice(-4);
      const expected = formerForbiddenContent(entry);
      const started = performance.now();
      const errors = errorsOf((b) => {
        b.data.texts.description.de = entry;
        b.data.texts.headline = { de: entry, en: entry };
      });
      assert.ok(performance.now() - started < 250, name);
      const pointers = ['/data/texts/headline/de', '/data/texts/headline/en', '/data/texts/description/de'];
      assert.deepEqual(
        errors,
        expected === undefined ? [] : pointers.map((pointer) => RULE_21(pointer, expected.what, expected.found)),
        name,
      );
    }
  });

  it("leaves a text rule 1 refused to rule 1: its entry gets rule 1's error only", () => {
    const long = `Mehr unter www.example.de oder info@makler.de, Tel. 030 12345678. ${'Altbau '.repeat(600)}`;
    assert.deepEqual(
      errorsOf((b) => {
        b.data.texts.description.de = long;
        b.data.texts.description.en = 'More at www.example.de';
      }),
      [
        {
          name: '/data/texts/description/de',
          reason: `rule 1: a multi-lingual text is at most 3999 characters; this one has ${long.length}.`,
        },
        RULE_21('/data/texts/description/en', 'a URL', 'www.example.de'),
      ],
    );
    for (const [name, text] of ADVERSARIAL) {
      assert.deepEqual(
        errorsOf((b) => (b.data.texts.description.de = text)),
        [
          {
            name: '/data/texts/description/de',
            reason: `rule 1: a multi-lingual text is at most 3999 characters; this one has ${text.length}.`,
          },
        ],
        name,
      );
    }
    // 3999 characters of which some are two UTF-16 units each are within rule 1, and so read by rule 21.
    const emoji = `${'🏠'.repeat(3970)} www.example.de`;
    assert.equal([...emoji].length, 3985);
    assert.deepEqual(
      errorsOf((b) => (b.data.texts.description.de = emoji)),
      [RULE_21('/data/texts/description/de', 'a URL', 'www.example.de')],
    );
  });
});
