/*
 * The classified payload schema (caas v4 POST/PUT body): generated from reference/, accepted by the
 * body validator for a realistic classified and for one that sets every field of the reference, and
 * refusing bad bodies with the contract's pointer and reason.
 *
 * Plain unit tests of schema + validator: no database and no server are needed to judge a body, so
 * none is started (the HTTP routes have their own tests in writes.test.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ErrorObject } from 'ajv';
import { classifiedSchema } from '../../src/apis/classifieds/model/classified.js';
import {
  ENUMS_FILE,
  FIELDS_FILE,
  generateClassifiedSchema,
  parseFieldsTsv,
  readReference,
  renderSchema,
  renderTypes,
  repositoryRoot,
  SCHEMA_FILE,
  TYPES_FILE,
  type ReferenceEnums,
} from '../../scripts/generate-caas-schema.js';
import { createValidators, validationProblem } from '../../src/platform/http/validation.js';
import { minimalClassified, realisticClassified } from '../fixtures/classifieds.js';

const root = repositoryRoot();

type Schema = Record<string, unknown>;

/**
 * Every object schema of a document's classified tree, by path (`.member`, `[]` for items, `|n` for
 * the n-th anyOf variant), with whether it refuses unknown members: itself or any allOf part
 * closed, as a validator would judge. allOf parts, one-schema oneOfs and $refs are followed, not listed.
 */
function objectsOf(document: Schema, start: Schema): Record<string, boolean> {
  const resolve = (node: Schema): Schema => {
    let current = node;
    while (typeof current.$ref === 'string') {
      current = (current.$ref as string)
        .slice(2)
        .split('/')
        .reduce<unknown>((at, step) => (at as Record<string, unknown>)[step.replace(/~1/g, '/').replace(/~0/g, '~')], document) as Schema;
    }
    return current;
  };
  const found: Record<string, boolean> = {};
  const visit = (input: Schema, at: string): void => {
    const node = resolve(input);
    // A oneOf of one schema (the real media items) is that schema.
    const single = node.oneOf as Schema[] | undefined;
    if (single?.length === 1) {
      visit(single[0] as Schema, at);
      return;
    }
    const parts = [node, ...((node.allOf as Schema[] | undefined) ?? []).map(resolve)];
    const properties = Object.assign({}, ...parts.map((part) => (part.properties as Record<string, Schema> | undefined) ?? {})) as Record<
      string,
      Schema
    >;
    const variants = parts.flatMap((part) => (part.anyOf as Schema[] | undefined) ?? []);
    if (variants.length > 0) {
      for (const [i, variant] of variants.entries()) visit(variant, `${at}|${i}`);
      return;
    }
    const items = parts.find((part) => part.items !== undefined)?.items as Schema | undefined;
    if (items) {
      visit(items, `${at}[]`);
      return;
    }
    if (!parts.some((part) => part.type === 'object' || part.properties !== undefined)) return;
    // A multilingual text is one shared schema, closed in both; its 184 language codes are not walked.
    if (Object.keys(properties).length > 100) {
      found[at] = parts.some((part) => part.additionalProperties === false);
      return;
    }
    found[at] = parts.some((part) => part.additionalProperties === false);
    for (const [name, member] of Object.entries(properties)) visit(member, `${at}.${name}`);
  };
  visit(start, '');
  return found;
}
const INSTANCE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

type BodyValidator = ((body: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validate = createValidators().compiler({
  schema: classifiedSchema,
  method: 'POST',
  url: '/caas/v4/classifieds',
  httpPart: 'body',
}) as BodyValidator;

/** The problem body the API would send for this body, or null when the body is valid. */
function problemFor(body: unknown): Record<string, unknown> | null {
  if (validate(body)) return null;
  return validationProblem(validate.errors ?? [], 'body').body(INSTANCE);
}

function badRequest(errors: { name: string; reason: string }[]): Record<string, unknown> {
  return {
    type: '/problems/bad-request',
    title: 'Bad request',
    status: 400,
    detail: 'Your request has not been validated',
    instance: INSTANCE,
    errors,
    errorSource: 'body',
  };
}

// --- (a) generated from the reference ---------------------------------------------------------------

describe('classified schema generation', () => {
  it('the checked-in schema and type are exactly what the generator makes of reference/ now', () => {
    const { rows, enums } = readReference(root);
    const schema = generateClassifiedSchema(rows, enums);
    const generated = renderSchema(schema);
    for (const [file, text] of [
      [SCHEMA_FILE, generated],
      [TYPES_FILE, renderTypes(schema)],
    ] as const) {
      const checkedIn = fs.readFileSync(path.join(root, file), 'utf8');
      // A message instead of a 7000-line diff.
      assert.ok(checkedIn === text, `${file} is stale: run npm run generate:caas-schema and commit it`);
    }
    // The copy tsc put into dist/ (the one the server loads) is the same document.
    assert.deepEqual(classifiedSchema, JSON.parse(generated));
    assert.equal(rows.length, 1029);
  });

  it('renders deterministically: 2-space JSON with a trailing newline, same text on every run', () => {
    const { rows, enums } = readReference(root);
    const first = renderSchema(generateClassifiedSchema(rows, enums));
    const second = renderSchema(generateClassifiedSchema(parseFieldsTsv(fs.readFileSync(path.join(root, FIELDS_FILE), 'utf8')), enums));
    assert.equal(first, second);
    assert.ok(first.endsWith('}\n'));
    assert.ok(first.startsWith('{\n  "$schema": "http://json-schema.org/draft-07/schema#",\n'));
  });

  it('refuses unknown members in exactly the objects where the real document refuses them, and keeps defaults out', () => {
    const defaults: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) visit(item, `${at}/${i}`);
        return;
      }
      if (typeof node !== 'object' || node === null) return;
      if ('default' in node) defaults.push(at);
      for (const [key, value] of Object.entries(node)) visit(value, `${at}/${key}`);
    };
    visit(classifiedSchema, '#');
    assert.deepEqual(defaults, []);
    const facts = JSON.parse(fs.readFileSync(path.join(root, 'reference/caas-v4-openapi.facts.json'), 'utf8')) as Schema;
    const real = objectsOf(facts, (facts.components as { schemas: Record<string, Schema> }).schemas.AvivClassified as Schema);
    const ours = objectsOf(classifiedSchema as Schema, classifiedSchema as Schema);
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(real).sort());
    const closed = (objects: Record<string, boolean>) =>
      Object.keys(objects)
        .filter((at) => objects[at])
        .sort();
    assert.deepEqual(closed(ours), closed(real));
    // The objects open in the real document, which therefore keep unknown members as sent.
    assert.deepEqual(
      Object.keys(real)
        .filter((at) => !real[at])
        .sort(),
      [
        '.data.buildingProperty',
        '.data.buildingProperty.program',
        '.data.buildingProperty.program.coPromotion',
        '.data.buildingProperty.program.coPromotion.coPromoter',
        '.data.buildingProperty.program.coPromotion.coPromoter.address',
        '.data.buildingProperty.program.coPromotion.promoter',
        '.data.buildingProperty.program.coPromotion.promoter.address',
        '.data.buildingProperty.program.salesOffice',
        '.data.buildingProperty.units[].unitDescription',
        '.data.features.internet',
        '.data.features.internet.internetAvailability',
        '.data.features.internet.propertyInternetAccess',
        '.data.links',
        '.data.location.geometry|0',
        '.data.location.geometry|1',
        '.data.location.geometry|2',
        '.data.location.geometry|3',
        '.data.location.geometry|4',
        '.data.location.geometry|5',
        '.data.management.countrySpecific.be.lifeAnnuity.annuitants',
        '.specific.gsl.additionalContactPerson',
        '.specific.gsl.additionalContactPerson.address',
        '.specific.gsl.mainContactPerson',
        '.specific.gsl.mainContactPerson.address',
        '.specific.gsl.mandateCoOwner1',
        '.specific.gsl.mandateCoOwner1.address',
        '.specific.gsl.mandateCoOwner2',
        '.specific.gsl.mandateCoOwner2.address',
        '.specific.gsl.mandateCoOwner3',
        '.specific.gsl.mandateCoOwner3.address',
      ].sort(),
    );
  });

  it('refuses a reference it does not fully understand instead of guessing', () => {
    const { rows, enums } = readReference(root);
    const withRow = (row: string) => parseFieldsTsv(`${fs.readFileSync(path.join(root, FIELDS_FILE), 'utf8')}${row}\n`);
    assert.throws(
      () => generateClassifiedSchema(withRow('data.management.leaseStart\tdate\t\t\tno\tno\tno'), enums),
      /fields TSV data\.management\.leaseStart: unknown type date/,
    );
    assert.throws(
      () => generateClassifiedSchema(withRow('data.management.floorNote\tstring\t\tmaxWords=3\tno\tno\tno'), enums),
      /unknown constraint maxWords=3/,
    );
    const otherEnums: ReferenceEnums = { ...enums, enums: { ...enums.enums, 'data.estateSubType.trading': ['STORE', 'KIOSK'] } };
    assert.throws(() => generateClassifiedSchema(rows, otherEnums), /data\.estateSubType\.trading: enum differs/);
    const extraEnum: ReferenceEnums = { ...enums, enums: { ...enums.enums, 'data.nowhere': ['A'] } };
    assert.throws(() => generateClassifiedSchema(rows, extraEnum), /no field row for data\.nowhere/);
    assert.ok(fs.existsSync(path.join(root, ENUMS_FILE)));
  });
});

// --- (b) a large realistic classified ------------------------------------------------------------------

describe('classified schema: valid bodies', () => {
  it('accepts a large realistic classified (every price, space, energy and text block, GeoJSON point, all media types)', () => {
    assert.equal(problemFor(realisticClassified()), null);
  });

  it('accepts both spellings of the members the reference names with a trailing "?"', () => {
    const body = realisticClassified();
    body.data.buildingProperty = {
      units: [{ propertyType: 'APARTMENT', number: 3, unitDescription: { spaceMin: 60, description: 'Two bedrooms', 'isDuplex?': true } }],
    };
    assert.equal(problemFor(body), null);
  });
});

// --- (c) every field of the reference ------------------------------------------------------------------

interface ReferenceRow {
  path: string;
  type: string;
  notation: string;
  own: Map<string, string>;
  items: Map<string, string>;
}

/**
 * Read independently of the generator (a generator that dropped or mistyped a field must fail here):
 * every leaf row of the TSV gets one valid value at its place in the document.
 */
function referenceRows(): ReferenceRow[] {
  const [, ...lines] = fs.readFileSync(path.join(root, FIELDS_FILE), 'utf8').trimEnd().split('\n');
  return lines.map((line) => {
    const [rowPath, type, notation, constraints] = line.split('\t') as [string, string, string, string];
    const own = new Map<string, string>();
    const items = new Map<string, string>();
    let target = own;
    for (let part of constraints.split(';').filter(Boolean)) {
      if (part.startsWith('items:')) [target, part] = [items, part.slice(6)];
      const eq = part.indexOf('=');
      target.set(part.slice(0, eq), part.slice(eq + 1));
    }
    return { path: rowPath, type, notation, own, items };
  });
}

const LANGUAGES = (JSON.parse(fs.readFileSync(path.join(root, ENUMS_FILE), 'utf8')) as ReferenceEnums).multiLingualTextLanguages;

function numberFor(type: string, limits: Map<string, string>): number {
  const min = limits.has('minimum') ? Number(limits.get('minimum')) : 1;
  const max = limits.has('maximum') ? Number(limits.get('maximum')) : Infinity;
  const wanted = type === 'number' ? min + 0.5 : min;
  return wanted <= max ? wanted : min;
}

const STRING_FORMATS: Record<string, string> = {
  date: '2025-11-05',
  'date-time': '2025-11-05T09:30:00+01:00',
  uuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  url: 'https://media.example.org/estate/1.jpg',
  email: 'agent@example.org',
  'ref:MediaTitle': 'Living room',
};

function stringFor(row: ReferenceRow): string {
  if (row.notation in STRING_FORMATS) return STRING_FORMATS[row.notation] as string;
  if (row.notation !== '') return row.notation.split('|').at(-1) as string;
  return 'text'.slice(0, Number(row.own.get('maxLength') ?? 4));
}

function leafValue(row: ReferenceRow): unknown {
  switch (row.type) {
    case 'string':
      return stringFor(row);
    case 'number':
    case 'integer':
      return numberFor(row.type, row.own);
    case 'boolean':
      return true;
    case 'object':
      return row.notation.startsWith('MultiLingualText') ? Object.fromEntries(LANGUAGES.map((l) => [l, `text (${l})`])) : {};
    case 'array': {
      const enumItems = /^items enum: (.+)$/.exec(row.notation);
      if (enumItems) return (enumItems[1] as string).split('|'); // every allowed value at once
      const count = Number(row.own.get('minItems') ?? 2);
      return Array.from({ length: Math.max(count, 1) }, (_, i) => (row.notation === 'items: integer' ? 70 + i : 4.35 + i));
    }
    default:
      throw new Error(`no value for ${row.path} (${row.type})`);
  }
}

/** `a.b[]<anyOf:X>.c` → ['a', 'b', 0, 'c']: arrays get one element, a variant adds no level. */
function documentPath(rowPath: string): (string | number)[] {
  return (rowPath.match(/\[\]|<anyOf:[^>]+>|[^.[<]+/g) ?? []).filter((t) => !t.startsWith('<')).map((t) => (t === '[]' ? 0 : t));
}

function setAt(document: Record<string, unknown>, steps: (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = document;
  for (const [i, step] of steps.entries()) {
    if (i === steps.length - 1) node[step] = value;
    else {
      node[step] ??= typeof steps[i + 1] === 'number' ? [] : {};
      node = node[step] as Record<string | number, unknown>;
    }
  }
}

/** One document setting every leaf of the reference; of the GeoJSON variants, only `variant`. */
function everyFieldClassified(variant: string): { document: Record<string, unknown>; leaves: number } {
  const rows = referenceRows();
  const isParent = (row: ReferenceRow) =>
    rows.some((r) => r.path.startsWith(`${row.path}.`) || r.path.startsWith(`${row.path}[`) || r.path.startsWith(`${row.path}<`));
  const document: Record<string, unknown> = {};
  let leaves = 0;
  for (const row of rows) {
    const other = /<anyOf:([^>]+)>/.exec(row.path);
    if ((other && other[1] !== variant) || isParent(row)) continue;
    setAt(document, documentPath(row.path), leafValue(row));
    leaves += 1;
  }
  return { document, leaves };
}

describe('classified schema: every field of the reference', () => {
  it('accepts one classified that sets every leaf field of the TSV (with every value of enum lists)', () => {
    const { document, leaves } = everyFieldClassified('Point');
    assert.equal(leaves, 818); // 816 outside the geometry, 2 in its Point variant
    assert.equal(problemFor(document), null);
    const data = document.data as Record<string, Record<string, unknown>>;
    assert.deepEqual(data.location?.geometry, { type: 'Point', coordinates: [4.35, 5.35] });
    assert.equal(Object.keys(data.texts?.headline as object).length, 184);
    assert.deepEqual(document.portals, ['SL', 'BUCOM', 'BD', 'SLC', 'SLN']);
  });

  for (const variant of ['LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon']) {
    it(`accepts the GeoJSON ${variant} variant of data.location.geometry`, () => {
      const { document } = everyFieldClassified(variant);
      assert.equal(problemFor(document), null);
      const geometry = (document.data as Record<string, Record<string, unknown>>).location?.geometry as Record<string, unknown>;
      assert.equal(geometry.type, variant);
    });
  }
});

// --- (d) refusals in the contract's words --------------------------------------------------------------

describe('classified schema: refusals', () => {
  it('accepts the minimal classified the refusals start from', () => {
    assert.equal(problemFor(minimalClassified()), null);
  });

  it('names an unknown member deep in the tree by its own pointer', () => {
    const body = minimalClassified();
    body.data.location.spaceship = 'USS Enterprise';
    assert.deepEqual(
      problemFor(body),
      badRequest([{ name: '/data/location/spaceship', reason: 'must NOT have additional properties: spaceship.' }]),
    );
  });

  it('refuses unknown members where the real document does: top, media item, multilingual text', () => {
    const body = minimalClassified();
    body.classifiedId = '0f8fad5b-d9cb-469f-a165-70867728950e';
    body.media = [{ url: 'https://cdn.example.org/1.jpg', mediaType: 'PICTURE', displayOrder: 1 }];
    body.data.texts = { description: { fr: 'Boutique', xx: 'unknown language' } };
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/classifiedId', reason: 'must NOT have additional properties: classifiedId.' },
        { name: '/data/texts/description/xx', reason: 'must NOT have additional properties: xx.' },
        { name: '/media/0/displayOrder', reason: 'must NOT have additional properties: displayOrder.' },
      ]),
    );
  });

  it('accepts unknown members where the real document does: a GeoJSON bbox, data.links, data.features.internet, the gsl contacts', () => {
    const body = minimalClassified();
    body.data.location.geometry = { type: 'Point', coordinates: [2.37, 48.86], bbox: [2.3, 48.8, 2.4, 48.9] };
    body.data.features = { internet: { internetSpeedMbit: 100, provider: 'Orange' } };
    body.data.links = { brochure: 'https://example.org/brochure.pdf' };
    assert.equal(validate(body), true, JSON.stringify(validate.errors));
  });

  it('lists the allowed values of an enum', () => {
    const body = minimalClassified();
    body.data.estateSubType.trading = 'CASTLE';
    assert.deepEqual(
      problemFor(body),
      badRequest([
        {
          name: '/data/estateSubType/trading',
          reason: 'must be equal to one of the allowed values: STORE, SHOWROOM_SPACE, SHOPPING_CENTRE, KIOSK, SALES_AREA.',
        },
      ]),
    );
  });

  it('refuses a wrong type', () => {
    const body = minimalClassified();
    body.data.spaces = { spaceMeasureUnit: 'SQUARE_METER', overallSpace: '120 m2' };
    body.data.structure = { rooms: { numberOfBedRooms: 2.5 } };
    body.data.management = { isRented: 'no' };
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/data/spaces/overallSpace', reason: 'must be number.' },
        { name: '/data/structure/rooms/numberOfBedRooms', reason: 'must be integer.' },
        { name: '/data/management/isRented', reason: 'must be boolean.' },
      ]),
    );
  });

  it('refuses a malformed uuid, date, date-time, url and email', () => {
    const body = minimalClassified();
    body.data.metaData.classifiedId = '3f2c4a9e-8b1d-4c6f-9a2e';
    body.data.prices.buyAuction = { startOfferPhase: '2025-02-30' };
    body.data.management = { availableFrom: '2026-01-01' };
    body.data.links = { externalLinks: [{ url: 'agency.example.be/detail' }] };
    body.specific = { gsl: { mandateCoOwner1: { email: 'owner-at-example.org' } } };
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/data/prices/buyAuction/startOfferPhase', reason: 'must match format "date".' },
        { name: '/data/management/availableFrom', reason: 'must match format "date-time".' },
        { name: '/data/metaData/classifiedId', reason: 'must match format "uuid".' },
        { name: '/data/links/externalLinks/0/url', reason: 'must match format "uri".' },
        { name: '/specific/gsl/mandateCoOwner1/email', reason: 'must match format "email".' },
      ]),
    );
  });

  it('accepts a loopback media url (address policy belongs to the media fetcher, not to the syntax)', () => {
    const body = minimalClassified();
    body.media = [{ url: 'http://127.0.0.1:8080/photo.jpg', mediaType: 'PICTURE' }];
    assert.equal(problemFor(body), null);
  });

  it('refuses more than 5 portals', () => {
    const body = minimalClassified();
    body.portals = ['SL', 'BUCOM', 'BD', 'SLC', 'SLN', 'SL'];
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/portals', reason: 'must NOT have more than 5 items.' },
        { name: '/portals', reason: 'must NOT have duplicate items (items ## 5 and 0 are identical).' },
      ]),
    );
  });

  it('refuses duplicated portals and an unknown portal', () => {
    const body = minimalClassified();
    body.portals = ['BD', 'SLN', 'BD', 'IMMOWEB'];
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/portals/3', reason: 'must be equal to one of the allowed values: SL, BUCOM, BD, SLC, SLN.' },
        { name: '/portals', reason: 'must NOT have duplicate items (items ## 2 and 0 are identical).' },
      ]),
    );
  });

  it('names a missing required member by its own pointer', () => {
    const body = minimalClassified();
    delete body.data.location.city;
    assert.deepEqual(problemFor(body), badRequest([{ name: '/data/location/city', reason: 'is required.' }]));
  });

  it('reports several errors at once, each once, in schema order', () => {
    const body = minimalClassified();
    delete body.portals;
    delete body.data.metaData.source.offererEstateId;
    body.data.estateType = 'CASTLE';
    body.data.location.floorNumber = 1000;
    body.data.location.houseNumber = 12;
    body.media = [{ url: 'https://cdn.example.org/1.jpg', mediaType: 'AUDIO', title: '   ' }, { mediaType: 'VIDEO' }];
    body.spaceship = true;
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/portals', reason: 'is required.' },
        { name: '/spaceship', reason: 'must NOT have additional properties: spaceship.' },
        {
          name: '/data/estateType',
          reason:
            'must be equal to one of the allowed values: HOUSE, APARTMENT, PLOT, OFFICE, TRADING, GASTRONOMY_HOTEL, STORAGE_PRODUCTION, AGRICULTURE_FORESTRY, PARKING, SENIOR, PROJECT, MISCELLANEOUS.',
        },
        { name: '/data/location/houseNumber', reason: 'must be string.' },
        { name: '/data/location/floorNumber', reason: 'must be <= 999.' },
        { name: '/data/metaData/source/offererEstateId', reason: 'is required.' },
        { name: '/media/0/mediaType', reason: 'must be equal to one of the allowed values: PICTURE, VIRTUAL_TOUR, PANORAMA, VIDEO.' },
        { name: '/media/0/title', reason: 'must match pattern "(?!(^\\s+$))^.+$".' },
        { name: '/media/1/url', reason: 'is required.' },
      ]),
    );
  });
});
