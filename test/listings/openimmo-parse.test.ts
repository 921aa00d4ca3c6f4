/*
 * The OpenImmo intake's pure part: reading a package (ZIP or XML), parsing the XML, and mapping a
 * transfer to listing requests. No database, no server. Hostile packages are built by
 * test/fixtures/openimmo (a ZIP writer that can forge sizes and names), never stored.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { type OpenImmoLimits, DEFAULT_OPENIMMO_LIMITS, OpenImmoRefused } from '../../src/apis/listings/openimmo/limits.js';
import {
  MAPPED_ELEMENTS,
  mapTransfer,
  mappingCoverage,
  NOT_MAPPED,
  type Transfer,
  type TransferObject,
} from '../../src/apis/listings/openimmo/mapping.js';
import { ATTACHMENT_GROUPS, BUILD_STATE, CELLAR_STATE, COUNTRIES, OBJEKTART, AGE_STATE } from '../../src/apis/listings/openimmo/tables.js';
import { readFile } from '../../src/apis/listings/openimmo/read.js';
import { parseDecimal } from '../../src/apis/listings/openimmo/values.js';
import { parseXml } from '../../src/apis/listings/openimmo/xml.js';
import { findFile, readPackage } from '../../src/apis/listings/openimmo/zip.js';
import {
  AGE_STATES,
  BUILD_STATES,
  CELLAR,
  ESTATE_SUB_TYPES,
  ESTATE_TYPES,
  MEDIA_CATEGORIES,
  MEDIA_TYPES,
  URL_TYPES,
} from '../../src/apis/listings/model/matrices.js';
import { ApiRequest } from '../../src/apis/listings/model/request.js';
import {
  deflatedZeros,
  deletion,
  el,
  houseForSale,
  jpeg,
  leisure,
  mixedPackage,
  office,
  parking,
  plot,
  rentApartment,
  simpleTransfer,
  type Style,
  transfer,
  tx,
  zipOf,
} from '../fixtures/openimmo/documents.js';
import { REPO_ROOT } from '../helpers.js';

const LIMITS = DEFAULT_OPENIMMO_LIMITS;
const NOW = new Date('2024-06-01T12:00:00Z');

const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: Ajv) => void)(ajv);
const validateRequest = ajv.compile(ApiRequest);

function map(xml: string | Buffer, limits: OpenImmoLimits = LIMITS): Transfer {
  return mapTransfer(parseXml(xml, limits), { limits, now: NOW });
}

function objects(transfer: Transfer): TransferObject[] {
  return transfer.providers.flatMap((provider) => provider.objects);
}

function only(xml: string): TransferObject {
  const found = objects(map(xml));
  assert.equal(found.length, 1);
  return found[0]!;
}

/** Asserts the refusal's status and that its message matches. */
function refused(status: number, pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof OpenImmoRefused, `not an OpenImmoRefused: ${error}`);
    assert.equal(error.status, status, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

/** Every object without errors has a request the schema takes. */
function assertValid(transfer: Transfer): void {
  for (const object of objects(transfer)) {
    if (object.errors.length || object.action === 'delete') continue;
    assert.ok(object.request, `${object.path} has no request`);
    assert.ok(validateRequest(object.request), `${object.path}: ${JSON.stringify(validateRequest.errors)}`);
  }
}

const P = '/openimmo/anbieter[1]/immobilie[1]';

/** The facts' outline flat, as the listing request it must become. */
const RENT_APARTMENT_REQUEST = {
  metadata: {
    source: { offererEstateId: 'W-17', offererMarketingKey: 'A-0001' },
    externalId: '17',
    externalCustomerId: 'A-0001',
    softwareName: 'FIXTUREGEN 0.1',
    isPublished: true,
  },
  data: {
    estateType: 'APARTMENT',
    distributionType: 'RENT',
    distributionSubType: 'CLASSIC',
    location: {
      postalcode: '10115',
      city: 'Berlin',
      street: 'Teststrasse',
      houseNumber: '1',
      state: 'Berlin',
      country: 'DE',
      floorNumber: 2,
      geometry: { type: 'Point', coordinates: [13.3849, 52.5321] },
      isAddressShown: true,
    },
    prices: {
      currency: 'EUR',
      rent: { baseRent: { amount: 900 }, totalRent: { amount: 1050 }, operatingCosts: { amount: 150 }, deposit: { amount: 2700 } },
      brokerageFee: { hasFee: false, priceNote: { de: '2,38 Nettokaltmieten inkl. MwSt.' }, isVatIncluded: true },
    },
    spaces: { residential: { livingSpace: 65.5, balconySpace: 6.5, cellarSpace: 4 } },
    structure: {
      rooms: { numberOfRooms: 2.5, numberOfBedRooms: 1, numberOfBathRooms: 1, numberOfBalconies: 1 },
      building: { numberOfFloors: 5, cellar: 'YES', barrierFree: 'NO', elevator: { person: 'YES' } },
      parkingLots: { underground: 1 },
    },
    conditions: { yearOfConstruction: 1995, lastModernisation: 2019, buildState: 'WELL_KEPT', ageState: 'OLD' },
    management: { isRented: false, isImmediatelyAvailable: true },
    texts: {
      headline: { de: 'Helle 2,5-Zimmer-Wohnung' },
      area: { de: 'Ruhige Seitenstrasse nahe dem Park.' },
      features: { de: 'Parkett, Einbaukueche.' },
      description: { de: 'Eine helle Wohnung im zweiten Stock.', en: 'A bright flat on the second floor.' },
      extendedInformation: { de: 'Besichtigung nach Absprache.' },
    },
    links: { externalLinks: [{ url: 'https://makler.example.test/expose/17', title: 'Exposé' }] },
  },
  contact: {
    salutation: 'MS',
    firstName: 'Erika',
    lastName: 'Muster',
    company: 'Beispiel Makler GmbH',
    email: 'agent@example.test',
    phone: '+49 30 1234567',
    mobilePhone: '+49 171 1234567',
    homepage: 'https://makler.example.test',
  },
};

// --- The XML ------------------------------------------------------------------------------------------

describe('OpenImmo XML', () => {
  it('reads local names whatever the prefix or namespace, and gives the same listings', () => {
    const styles: Style[] = [
      { prefix: 'imo', declarePrefix: true },
      { prefix: 'imo' }, // undeclared, as some senders write it
      { emptyNamespace: true },
      { defaultNamespace: 'http://www.openimmo.de' },
      { booleans: 'digits' },
      { declaration: false },
    ];
    const plain = map(mixedPackage().xml);
    assertValid(plain);
    for (const style of styles) {
      const styled = map(mixedPackage(style).xml);
      assert.deepEqual(styled, plain, JSON.stringify(style));
    }
  });

  it('reads prefixed attributes by their local name too', () => {
    const xml = simpleTransfer([rentApartment()]).replace('gruppe="TITELBILD"', 'xmlns:x="urn:x" x:gruppe="TITELBILD"');
    assert.equal(only(xml).attachments[0]?.gruppe, 'TITELBILD');
  });

  it('gives each element a path: anbieter and immobilie always indexed, others only when their name repeats', () => {
    const root = parseXml(transfer({ umfang: 'TEIL', providers: [{ anbieternr: 'A', objects: [plot(), rentApartment()] }] }), LIMITS);
    const provider = root.children.find((c) => c.name === 'anbieter')!;
    assert.equal(provider.path, '/openimmo/anbieter[1]');
    const second = provider.children.filter((c) => c.name === 'immobilie')[1]!;
    assert.equal(second.path, '/openimmo/anbieter[1]/immobilie[2]');
    const geo = second.children.find((c) => c.name === 'geo')!;
    assert.equal(geo.children.find((c) => c.name === 'plz')!.path, '/openimmo/anbieter[1]/immobilie[2]/geo/plz');
    const anhaenge = second.children.find((c) => c.name === 'anhaenge')!;
    assert.deepEqual(
      anhaenge.children.map((c) => c.path),
      [1, 2, 3].map((n) => `/openimmo/anbieter[1]/immobilie[2]/anhaenge/anhang[${n}]`),
    );
  });

  it('keeps text and CDATA together, untrimmed', () => {
    const root = parseXml('<a> x <![CDATA[<b>&]]> y </a>', LIMITS);
    assert.deepEqual(root, { name: 'a', attributes: {}, children: [], text: ' x <b>& y ', path: '/a' });
  });

  it('refuses any DTD: XXE and billion laughs never expand', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE openimmo [<!ENTITY x SYSTEM "file:///etc/passwd">]><openimmo>&x;</openimmo>';
    assert.throws(() => parseXml(xxe, LIMITS), refused(400, /^DTDs are not accepted/));
    const laughs = [
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
      ']><lolz>&lol9;</lolz>',
    ].join('');
    const started = performance.now();
    assert.throws(() => parseXml(laughs, LIMITS), refused(400, /DTDs are not accepted/));
    assert.ok(performance.now() - started < 1000);
    // Without a DTD an entity is simply unknown.
    assert.throws(() => parseXml('<a>&lol9;</a>', LIMITS), refused(400, /not well-formed: line 1, column \d+: undefined entity/));
  });

  it('refuses what is not well-formed, saying where', () => {
    assert.throws(
      () => parseXml('<openimmo>\n  <a></b>\n</openimmo>', LIMITS),
      refused(400, /^the XML is not well-formed: line 2, column \d+: /),
    );
    assert.throws(() => parseXml('', LIMITS), refused(400, /not well-formed|no root/));
  });

  it('bounds depth, element count, text and attribute length', () => {
    const deep = `${'<a>'.repeat(40)}${'</a>'.repeat(40)}`;
    assert.throws(() => parseXml(deep, LIMITS), refused(413, /more than 32 deep.*maxDepth/));
    assert.throws(
      () => parseXml(`<a>${'<b/>'.repeat(11)}</a>`, { ...LIMITS, maxElements: 10 }),
      refused(413, /more than 10 elements \(maxElements\)/),
    );
    const small = { ...LIMITS, maxTextChars: 100 };
    assert.throws(
      () => parseXml(`<a>${'x'.repeat(101)}</a>`, small),
      refused(413, /text of <a>.*longer than 100 characters \(maxTextChars\)/),
    );
    assert.throws(() => parseXml(`<a>${'x'.repeat(60)}<b/>${'x'.repeat(60)}</a>`, small), refused(413, /maxTextChars/));
    assert.throws(() => parseXml(`<a v="${'x'.repeat(101)}"/>`, small), refused(413, /attribute v of <a>.*maxTextChars/));
    assert.throws(() => parseXml('<a>xx</a>', { ...LIMITS, maxXmlBytes: 5 }), refused(413, /maxXmlBytes/));
  });

  it('reads UTF-8 bytes with or without BOM and refuses other encodings', () => {
    const xml = simpleTransfer([houseForSale()]);
    assert.ok(xml.includes('München'));
    const expected = map(xml);
    assert.deepEqual(map(Buffer.from(xml, 'utf8')), expected);
    assert.deepEqual(map(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml, 'utf8')])), expected);
    const latin = xml.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    assert.throws(() => parseXml(Buffer.from(latin, 'latin1'), LIMITS), refused(415, /encoding="ISO-8859-1": only UTF-8/));
    assert.throws(() => parseXml(Buffer.from(`\ufeff${xml}`, 'utf16le'), LIMITS), refused(415, /UTF-16/));
    const invalid = Buffer.from(xml, 'latin1'); // declared UTF-8, written Latin-1
    assert.throws(() => parseXml(invalid, LIMITS), refused(400, /not valid UTF-8/));
  });
});

// --- The package --------------------------------------------------------------------------------------

describe('OpenImmo packages', () => {
  const xml = simpleTransfer([rentApartment()]);

  it('reads a plain XML upload', async () => {
    const pkg = await readPackage(Buffer.from(xml), 'xml', LIMITS);
    assert.deepEqual(pkg, { xml, files: new Map() });
  });

  it('reads a ZIP: the XML, the files by normalized name, directories and macOS extras skipped', async () => {
    const zip = zipOf({
      'export/': '',
      'export/openimmo.xml': xml,
      'export/img_001.jpg': { data: jpeg('front'), method: 'store' },
      './export/Plan_001.JPG': jpeg('plan'),
      '__MACOSX/export/._openimmo.xml': 'resource fork',
      'export/._img_001.jpg': 'resource fork',
    });
    const pkg = await readPackage(zip, 'zip', LIMITS);
    assert.equal(pkg.xml, xml);
    assert.equal(pkg.xmlName, 'export/openimmo.xml');
    assert.deepEqual([...pkg.files.keys()], ['export/img_001.jpg', 'export/Plan_001.JPG']);
    // daten/pfad relative to the XML's folder, and in another letter case.
    assert.deepEqual(findFile(pkg.files, 'img_001.jpg', pkg.xmlName), { name: 'export/img_001.jpg', data: jpeg('front') });
    assert.deepEqual(findFile(pkg.files, 'plan_001.jpg', pkg.xmlName), { name: 'export/Plan_001.JPG', data: jpeg('plan') });
    assert.deepEqual(findFile(pkg.files, './export/img_001.jpg'), { name: 'export/img_001.jpg', data: jpeg('front') });
    assert.equal(findFile(pkg.files, 'missing.jpg', pkg.xmlName), undefined);
    assert.equal(findFile(pkg.files, '../export/img_001.jpg', pkg.xmlName), undefined);
    assert.equal(findFile(pkg.files, '/export/img_001.jpg', pkg.xmlName), undefined);
  });

  it('reads on a worker thread within a deadline, past which the thread is ended and the read throws', async () => {
    const read = await readFile(Buffer.from(xml), 'xml', LIMITS);
    assert.ok('transfer' in read);
    assert.equal(read.transfer.providers[0]?.objects.length, 1);
    // A transfer of the most objects allowed takes far longer than 1 ms to read (a one-object file
    // on a warm thread could beat it): the deadline passes before any answer.
    const most = simpleTransfer(Array.from({ length: LIMITS.maxObjects }, () => rentApartment()));
    await assert.rejects(readFile(Buffer.from(most), 'xml', LIMITS, undefined, 1), {
      message: 'reading the file took longer than 0.001 s; the import is tried again later',
    });
    // The worker stopping aborts the read as it is, not as a deadline.
    await assert.rejects(readFile(Buffer.from(xml), 'xml', LIMITS, AbortSignal.abort()), { name: 'AbortError' });
    // And the pool still reads after a thread was ended.
    assert.ok('transfer' in (await readFile(Buffer.from(xml), 'xml', LIMITS)));
  });

  it('maps the files of a package to its attachments', async () => {
    const { xml: mixed, files } = mixedPackage();
    const pkg = await readPackage(zipOf({ 'transfer.xml': mixed, ...files }), 'zip', LIMITS);
    const flat = objects(map(pkg.xml))[0]!;
    assert.deepEqual(
      flat.attachments.map((a) => findFile(pkg.files, a.pfad!, pkg.xmlName)?.data),
      [jpeg('front'), jpeg('plan')],
    );
  });

  it('refuses what is not a ZIP, and a body over the limit', async () => {
    await assert.rejects(readPackage(Buffer.from('PK not really'), 'zip', LIMITS), refused(400, /not a readable ZIP/));
    await assert.rejects(readPackage(Buffer.from(xml), 'zip', LIMITS), refused(400, /not a readable ZIP/));
    await assert.rejects(readPackage(Buffer.alloc(11), 'zip', { ...LIMITS, maxBodyBytes: 10 }), refused(413, /maxBodyBytes/));
  });

  it('refuses a ZIP with no XML, or more than one', async () => {
    await assert.rejects(readPackage(zipOf({ 'a.jpg': jpeg('a') }), 'zip', LIMITS), refused(400, /^the ZIP holds no OpenImmo XML/));
    await assert.rejects(
      readPackage(zipOf({ 'a.xml': xml, 'sub/b.XML': xml, 'c.jpg': jpeg('c') }), 'zip', LIMITS),
      refused(400, /^the ZIP holds 2 XML files: a\.xml, sub\/b\.XML/),
    );
  });

  it('refuses too many entries before reading them', async () => {
    const entries = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.jpg`, 'x']));
    await assert.rejects(
      readPackage(zipOf({ 'a.xml': xml, ...entries }), 'zip', LIMITS),
      refused(413, /1002 entries, more than the limit of 1000 \(maxEntries\)/),
    );
  });

  it('refuses entry names that leave the package, naming them', async () => {
    for (const name of ['../evil.jpg', 'images/../../evil.jpg', '/etc/passwd', 'C:\\Windows\\evil.jpg', 'C:/evil.jpg']) {
      await assert.rejects(
        readPackage(zipOf({ 'a.xml': xml, [name]: 'x' }), 'zip', LIMITS),
        refused(400, /^the ZIP entry name .*evil|passwd.* is not allowed/),
        name,
      );
    }
  });

  it('refuses a duplicate entry', async () => {
    await assert.rejects(readPackage(zipOf({ 'a.xml': xml, 'x.jpg': 'x', './x.jpg': 'y' }), 'zip', LIMITS), refused(400, /x\.jpg twice/));
  });

  it('refuses a ZIP bomb from its declared sizes, without inflating it', async () => {
    const bomb = zipOf({ 'a.xml': xml, 'bomb.jpg': { deflated: deflatedZeros(200 * 1024 * 1024) } });
    assert.ok(bomb.length < 1024 * 1024, `the bomb has ${bomb.length} bytes`);
    global.gc?.();
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    await assert.rejects(
      readPackage(bomb, 'zip', LIMITS),
      refused(413, /bomb\.jpg declares 209715200 bytes from \d+ compressed, a ratio over 200:1/),
    );
    assert.ok(performance.now() - started < 2000, 'refused fast');
    assert.ok(process.memoryUsage().rss - rss < 100 * 1024 * 1024, 'nothing inflated');
    // With the ratio allowed, the total of the declared sizes still stops it first.
    await assert.rejects(
      readPackage(bomb, 'zip', { ...LIMITS, maxEntryRatio: 1e9, maxUncompressedBytes: 100 * 1024 * 1024 }),
      refused(413, /declare more than 104857600 bytes uncompressed \(maxUncompressedBytes\)/),
    );
  });

  it('refuses an entry whose data runs past its declared size', async () => {
    const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251));
    await assert.rejects(
      readPackage(zipOf({ 'a.xml': xml, 'x.jpg': { data: random, method: 'deflate', declaredSize: 100 } }), 'zip', LIMITS),
      refused(400, /^the ZIP entry x\.jpg is damaged or lies about its size/),
    );
    // A stored entry's two sizes must agree: yauzl refuses it from the directory.
    await assert.rejects(
      readPackage(zipOf({ 'a.xml': xml, 'x.jpg': { data: random, method: 'store', declaredSize: 100 } }), 'zip', LIMITS),
      refused(400, /^the ZIP is damaged or forged: compressed\/uncompressed size mismatch/),
    );
  });

  it('refuses a forged size of zero compressed bytes, and an XML over its own limit', async () => {
    await assert.rejects(
      readPackage(zipOf({ 'a.xml': xml, 'x.jpg': { deflated: { bytes: Buffer.alloc(0), size: 5 * 1024 * 1024, crc: 0 } } }), 'zip', LIMITS),
      refused(413, /ratio over 200:1/),
    );
    await assert.rejects(readPackage(zipOf({ 'a.xml': xml }), 'zip', { ...LIMITS, maxXmlBytes: 100 }), refused(413, /maxXmlBytes/));
  });
});

// --- The mapping --------------------------------------------------------------------------------------

describe('OpenImmo mapping', () => {
  it('maps the outline flat to the whole listing request, with its attachments and warnings', () => {
    const object = only(simpleTransfer([rentApartment()]));
    assert.deepEqual(object.errors, []);
    assert.deepEqual(object.request, RENT_APARTMENT_REQUEST);
    assert.ok(validateRequest(object.request), JSON.stringify(validateRequest.errors));
    assert.equal(object.action, 'upsert');
    assert.equal(object.reference, false);
    assert.equal(object.objektnrExtern, 'W-17');
    assert.equal(object.objektnrIntern, '17');
    assert.equal(object.openimmoObid, 'A-0001_17_W-17');
    assert.deepEqual(object.attachments, [
      {
        path: `${P}/anhaenge/anhang[2]`,
        location: 'EXTERN',
        gruppe: 'TITELBILD',
        format: 'jpg',
        pfad: 'img_001.jpg',
        title: 'Front',
        mediaType: 'PICTURE',
        category: 'COVER_PICTURE',
      },
      {
        path: `${P}/anhaenge/anhang[1]`,
        location: 'EXTERN',
        gruppe: 'GRUNDRISS',
        format: 'jpg',
        pfad: 'plan_001.jpg',
        mediaType: 'PICTURE',
        category: 'FLOOR_PLAN',
      },
    ]);
    // One warning per element left out; the energiepass and infrastruktur as groups, the empty bieterverfahren not at all.
    assert.deepEqual(
      object.warnings.map((w) => w.path).sort(),
      [
        `${P}/ausstattung/bad`,
        `${P}/freitexte/dreizeiler`,
        `${P}/infrastruktur`,
        `${P}/kontaktperson/personennummer`,
        `${P}/preise/heizkosten_enthalten`,
        `${P}/zustand_angaben/energiepass`,
      ].sort(),
    );
    assert.ok(object.warnings.every((w) => w.reason === NOT_MAPPED));
  });

  it('says where each member of the request came from, groups included', () => {
    const object = only(simpleTransfer([rentApartment()]));
    const origin = (pointer: string) => {
      for (let prefix = pointer; prefix !== ''; prefix = prefix.slice(0, prefix.lastIndexOf('/'))) {
        const found = object.sources[prefix];
        if (found) return found;
      }
      return undefined;
    };
    assert.equal(origin('/data/location/postalcode'), `${P}/geo/plz`);
    assert.equal(origin('/data/location/country'), `${P}/geo/land/@iso_land`);
    assert.equal(origin('/data/location/locationNote/de'), `${P}/geo`);
    assert.equal(origin('/data/prices/rent/baseRent/amount'), `${P}/preise/kaltmiete`);
    assert.equal(origin('/data/prices/rent/baseRent/vatPercent'), `${P}/preise`);
    assert.equal(origin('/data/texts/headline/de'), `${P}/freitexte/objekttitel`);
    assert.equal(origin('/contact/email'), `${P}/kontaktperson/email_direkt`);
    assert.equal(origin('/data/estateType'), `${P}/objektkategorie/objektart/wohnung`);
    assert.equal(origin('/metadata/source/offererEstateId'), `${P}/verwaltung_techn/objektnr_extern`);
    assert.equal(origin('/data/links/externalLinks/0/url'), `${P}/anhaenge/anhang[3]`);
    // Every pointer set in the request resolves.
    const walk = (value: unknown, pointer: string): string[] =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.entries(value).flatMap(([key, member]) => walk(member, `${pointer}/${key}`))
        : [pointer];
    for (const pointer of walk(object.request, '')) assert.ok(origin(pointer), pointer);
  });

  it('maps every kind of object of a mixed VOLL package, refusing only the ones that cannot be listed', () => {
    const result = map(mixedPackage().xml);
    assert.equal(result.umfang, 'VOLL');
    assert.equal(result.modus, 'CHANGE');
    assert.equal(result.version, '1.2.7');
    assert.equal(result.sendersoftware, 'FIXTUREGEN');
    assert.deepEqual(result.warnings, []);
    assert.equal(result.providers.length, 1);
    assert.equal(result.providers[0]!.key, 'A-0001');
    assert.equal(result.providers[0]!.openimmoAnid, 'OI-A-0001');
    const found = objects(result);
    const summary = found.map((o) => [
      o.objektnrExtern,
      o.action,
      o.reference,
      o.request?.data.estateType,
      o.request?.data.estateSubType,
      o.request?.data.distributionType,
      o.errors.map((e) => e.path.replace(/^\/openimmo\/anbieter\[1\]/, '')),
    ]);
    assert.deepEqual(summary, [
      ['W-17', 'upsert', false, 'APARTMENT', undefined, 'RENT', []],
      ['H-1', 'upsert', false, 'HOUSE', 'SINGLE_FAMILY_HOUSE', 'BUY', []],
      ['G-1', 'upsert', false, 'PLOT', 'LIVING', 'BUY', []],
      ['B-1', 'upsert', false, 'OFFICE', 'OFFICE_SPACE', 'RENT', []],
      ['P-1', 'upsert', false, 'PARKING', 'UNDERGROUND_PARKING_SPACE', 'RENT', []],
      ['F-1', 'upsert', false, undefined, undefined, undefined, ['/immobilie[6]/objektkategorie/objektart/freizeitimmobilie_gewerblich']],
      [undefined, 'upsert', false, undefined, undefined, undefined, ['/immobilie[7]/verwaltung_techn/objektnr_extern']],
      ['W-99', 'delete', false, undefined, undefined, undefined, []],
      ['H-REF', 'upsert', true, 'HOUSE', 'SINGLE_FAMILY_HOUSE', 'BUY', []],
    ]);
    assert.match(found[5]!.errors[0]!.reason, /freizeitimmobilie_gewerblich has no estateType/);
    assert.match(found[6]!.errors[0]!.reason, /^missing: objektnr_extern/);
    assert.equal(found[8]!.request?.metadata.isPublished, false);
    assertValid(result);
  });

  it('maps a house for sale: price, price on request, a German date', () => {
    const house = only(simpleTransfer([houseForSale()]));
    assert.deepEqual(house.request?.data.prices, {
      buy: { price: { amount: 850000 } },
      isPriceShown: true,
      brokerageFee: { hasFee: true, priceNote: { de: '3,57 % inkl. MwSt.' }, isVatIncluded: true },
    });
    assert.deepEqual(house.request?.data.spaces, { residential: { livingSpace: 140 }, plotSpace: 520.5 });
    assert.deepEqual(house.request?.data.management, { availableFromDate: '2025-03-01' });
    assert.deepEqual(house.request?.data.location, {
      postalcode: '80331',
      city: 'München',
      street: 'Beispielweg',
      houseNumber: '5a',
      country: 'DE',
    });
    const onRequest = only(simpleTransfer([houseForSale({ onRequest: true, kaufpreis: '0' })]));
    assert.equal(onRequest.request?.data.prices.isPriceShown, false);
  });

  it('reads booleans as 1/0 or words, and refuses anything else', () => {
    const words = only(simpleTransfer([rentApartment()]));
    const digits = only(simpleTransfer([rentApartment()], {}, { booleans: 'digits' }));
    assert.deepEqual(digits, words);
    const yes = only(simpleTransfer([rentApartment()]).replace('<vermietet>false</vermietet>', '<vermietet>ja</vermietet>'));
    assert.deepEqual(yes.errors, [{ path: `${P}/verwaltung_objekt/vermietet`, reason: 'not a boolean: "ja" (write true, false, 1 or 0)' }]);
    assert.equal(yes.request, undefined);
  });

  it('reads decimals with a point or a comma, and refuses grouped thousands and words', () => {
    assert.equal(only(simpleTransfer([rentApartment({ kaltmiete: '1234,56' })])).request?.data.prices.rent?.baseRent?.amount, 1234.56);
    assert.equal(only(simpleTransfer([rentApartment({ kaltmiete: ' 1234.5 ' })])).request?.data.prices.rent?.baseRent?.amount, 1234.5);
    for (const [raw, reason] of [
      ['1.234,56', /^ambiguous number: "1\.234,56"/],
      ['1,234.56', /^ambiguous number/],
      ['neunhundert', /^not a number: "neunhundert"/],
      ['12e3', /^not a number/],
    ] as const) {
      const object = only(simpleTransfer([rentApartment({ kaltmiete: raw })]));
      assert.equal(object.errors.length, 1, raw);
      assert.equal(object.errors[0]!.path, `${P}/preise/kaltmiete`);
      assert.match(object.errors[0]!.reason, reason);
      assert.equal(object.request, undefined);
    }
    assert.deepEqual(parseDecimal('2.0'), { ok: true, value: 2 });
    const halfBedroom = only(simpleTransfer([rentApartment()]).replace('<anzahl_schlafzimmer>1<', '<anzahl_schlafzimmer>1.5<'));
    assert.deepEqual(halfBedroom.errors, [{ path: `${P}/flaechen/anzahl_schlafzimmer`, reason: 'not a whole number: "1.5"' }]);
  });

  it('deletes per object (aktionart DELETE) or the whole transfer (modus DELETE)', () => {
    const result = map(simpleTransfer([deletion('W-99'), plot()]));
    const [deleted, kept] = objects(result);
    assert.deepEqual(deleted, {
      path: P,
      objektnrExtern: 'W-99',
      openimmoObid: 'A-0001_x_W-99',
      action: 'delete',
      reference: false,
      sources: {},
      attachments: [],
      errors: [],
      warnings: [],
    });
    assert.equal(kept!.action, 'upsert');
    const all = objects(map(simpleTransfer([plot(), rentApartment()], { modus: 'DELETE' })));
    assert.deepEqual(
      all.map((o) => [o.objektnrExtern, o.action, o.request]),
      [
        ['G-1', 'delete', undefined],
        ['W-17', 'delete', undefined],
      ],
    );
  });

  it('stores a REFERENZ object unpublished, and one outside aktiv_von..aktiv_bis', () => {
    const reference = only(simpleTransfer([plot({ aktionart: 'REFERENZ' })]));
    assert.equal(reference.reference, true);
    assert.equal(reference.request?.metadata.isPublished, false);
    const ended = only(
      simpleTransfer([rentApartment({ extra: [] })]).replace('<openimmo_obid>', '<aktiv_bis>2024-05-31</aktiv_bis><openimmo_obid>'),
    );
    assert.equal(ended.request?.metadata.isPublished, false);
    assert.equal(ended.sources['/metadata/isPublished'], `${P}/verwaltung_techn/aktiv_bis`);
    const future = only(
      simpleTransfer([plot()]).replace(
        '<openimmo_obid>',
        '<aktiv_von>2024-06-02</aktiv_von><aktiv_bis>2030-01-01</aktiv_bis><openimmo_obid>',
      ),
    );
    assert.equal(future.request?.metadata.isPublished, false);
    const current = only(
      simpleTransfer([plot()]).replace(
        '<openimmo_obid>',
        '<aktiv_von>2024-06-01</aktiv_von><aktiv_bis>2024-06-01</aktiv_bis><openimmo_obid>',
      ),
    );
    assert.equal(current.request?.metadata.isPublished, true);
    const unknown = only(
      simpleTransfer([plot()]).replace('aktion/>', 'aktion aktionart="NEW"/>').replace('<aktion>', '<aktion aktionart="NEW">'),
    );
    assert.match(unknown.errors[0]?.reason ?? '', /"NEW" is not an aktionart/);
  });

  it('refuses documents that are not OpenImmo transfers, with the element named', () => {
    assert.throws(() => map('<foo/>'), refused(400, /^not an OpenImmo document: the root element is <foo>/));
    assert.throws(() => map('<openimmo><anbieter/></openimmo>'), refused(400, /\/openimmo\/uebertragung is missing/));
    assert.throws(
      () => map(transfer({ providers: [{ anbieternr: 'A', objects: [plot()] }] })),
      refused(400, /^\/openimmo\/uebertragung\/@umfang is missing/),
    );
    assert.throws(
      () => map(transfer({ umfang: 'HALB', providers: [{ anbieternr: 'A', objects: [plot()] }] })),
      refused(400, /@umfang is "HALB": it must be VOLL/),
    );
    assert.throws(() => map(transfer({ umfang: 'VOLL', providers: [] })), refused(400, /no \/openimmo\/anbieter/));
    assert.equal(map(transfer({ umfang: 'teil', providers: [{ anbieternr: 'A', objects: [plot()] }] })).umfang, 'TEIL');
    const three = simpleTransfer([plot(), plot(), plot()]);
    assert.throws(
      () => map(three, { ...LIMITS, maxObjects: 2 }),
      refused(413, /3 immobilie elements, more than the limit of 2 \(maxObjects\)/),
    );
  });

  it('keys a provider by anbieternr, else openimmo_anid, else refuses its objects', () => {
    const byAnid = map(transfer({ umfang: 'TEIL', providers: [{ openimmoAnid: 'OI-9', objects: [plot()] }] }));
    assert.equal(byAnid.providers[0]!.key, 'OI-9');
    assert.equal(objects(byAnid)[0]!.request?.metadata.source?.offererMarketingKey, 'OI-9');
    const none = objects(map(transfer({ umfang: 'TEIL', providers: [{ objects: [plot()] }] })))[0]!;
    assert.match(none.errors[0]!.reason, /neither anbieternr nor openimmo_anid/);
    assert.equal(none.request, undefined);
  });

  it('warns about the provider’s own elements and the document’s user-defined fields', () => {
    const xml = transfer({
      umfang: 'TEIL',
      providers: [
        { anbieternr: 'A', objects: [plot()], extra: [tx('impressum', 'Beispiel Makler GmbH, Berlin'), el('user_defined_anyfield')] },
      ],
    });
    assert.deepEqual(map(xml).warnings, [{ path: '/openimmo/anbieter[1]/impressum', reason: NOT_MAPPED }]);
  });

  it('warns about a group once, and not at all when it is empty', () => {
    const xml = simpleTransfer([
      rentApartment({
        extra: [
          el('user_defined_simplefield', { feldname: 'epass_wertklasse' }),
          el('bewertung', {}, el('feld', {}, tx('name', 'x'), tx('wert', 'y'))),
        ],
      }),
    ]).replace(
      '<bieterverfahren/>',
      '<bieterverfahren><mindestpreis>100</mindestpreis><hoechstgebot_zeigen>1</hoechstgebot_zeigen></bieterverfahren>',
    );
    const paths = only(xml).warnings.map((w) => w.path);
    assert.ok(paths.includes(`${P}/bieterverfahren`));
    assert.ok(!paths.some((p) => p.startsWith(`${P}/bieterverfahren/`)));
    assert.ok(paths.includes(`${P}/user_defined_simplefield`));
    assert.ok(paths.includes(`${P}/bewertung`));
  });

  it('maps countries, coordinates and the floor, refusing what it cannot read', () => {
    const at = only(simpleTransfer([plot()]).replace('iso_land="DEU"', 'iso_land="AUT"'));
    assert.equal(at.request?.data.location.country, 'AT');
    const unknown = only(simpleTransfer([plot()]).replace('iso_land="DEU"', 'iso_land="XYZ"'));
    assert.deepEqual(
      unknown.errors.map((e) => e.path),
      [`${P}/geo/land/@iso_land`],
    );
    const none = only(simpleTransfer([plot()]).replace('<land iso_land="DEU"/>', ''));
    assert.equal(none.request?.data.location.country, 'DE');
    assert.deepEqual(none.warnings, [{ path: `${P}/geo`, reason: 'no land/@iso_land: the country is taken as DE' }]);
    const zero = only(
      simpleTransfer([rentApartment()]).replace('breitengrad="52.5321" laengengrad="13.3849"', 'breitengrad="0" laengengrad="0"'),
    );
    assert.equal(zero.request?.data.location.geometry, undefined);
    assert.ok(zero.warnings.some((w) => w.path === `${P}/geo/geokoordinaten`));
    const bad = only(simpleTransfer([rentApartment()]).replace('breitengrad="52.5321"', 'breitengrad="north"'));
    assert.deepEqual(
      bad.errors.map((e) => e.path),
      [`${P}/geo/geokoordinaten/@breitengrad`],
    );
    const noPlz = only(simpleTransfer([plot()]).replace('<plz>14467</plz>', '<plz/>'));
    assert.deepEqual(noPlz.errors, [{ path: `${P}/geo/plz`, reason: 'missing: the listing needs plz' }]);
    const floor = only(simpleTransfer([rentApartment()]).replace('<etage>2</etage>', '<etage>2000</etage>'));
    assert.match(floor.errors[0]!.reason, /outside -999\.\.999/);
  });

  it('maps the contact: salutation, fallbacks to the central e-mail and phone, lengths', () => {
    const xml = simpleTransfer([rentApartment()])
      .replace('<email_direkt>agent@example.test</email_direkt>', '')
      .replace('<tel_durchw>+49 30 1234567</tel_durchw>', '')
      .replace('<anrede>Frau</anrede>', '<anrede>Firma</anrede>');
    const object = only(xml);
    assert.equal(object.request?.contact?.email, 'office@example.test');
    assert.equal(object.request?.contact?.phone, '+49 30 1234560');
    assert.equal(object.request?.contact?.salutation, undefined);
    assert.ok(object.warnings.some((w) => w.path === `${P}/kontaktperson/anrede` && /"Firma" is not Herr, Frau or Divers/.test(w.reason)));
    const long = only(simpleTransfer([rentApartment()]).replace('+49 171 1234567', '+49 171 1234567 1234567 1234567 1234567'));
    assert.deepEqual(
      long.errors.map((e) => e.path),
      [`${P}/kontaktperson/tel_handy`],
    );
  });

  it('maps availability: ab sofort, a date, or a warning', () => {
    const later = only(simpleTransfer([rentApartment()]).replace('ab sofort', 'nach Vereinbarung'));
    assert.deepEqual(later.request?.data.management, { isRented: false });
    assert.ok(later.warnings.some((w) => w.path === `${P}/verwaltung_objekt/verfuegbar_ab`));
    const iso = only(simpleTransfer([rentApartment()]).replace('ab sofort', '2024-09-01'));
    assert.equal(iso.request?.data.management?.availableFromDate, '2024-09-01');
  });

  it('takes a holiday flat to rent as VACATION, and an investment property as its building type', () => {
    const holiday = only(simpleTransfer([rentApartment()]).replace('wohnungtyp="ETAGE"', 'wohnungtyp="FERIENWOHNUNG"'));
    assert.equal(holiday.request?.data.distributionSubType, 'VACATION');
    const investment = only(
      simpleTransfer([plot()]).replace('<grundstueck grundst_typ="WOHNEN"/>', '<zinshaus_renditeobjekt zins_typ="MEHRFAMILIENHAUS"/>'),
    );
    assert.deepEqual(
      [investment.request?.data.estateType, investment.request?.data.estateSubType, investment.request?.data.management?.isForInvestment],
      ['HOUSE', 'MULTI_FAMILY_HOUSE', true],
    );
    const sanatorium = only(
      simpleTransfer([plot()]).replace('<grundstueck grundst_typ="WOHNEN"/>', '<zinshaus_renditeobjekt zins_typ="SANATORIUM"/>'),
    );
    assert.deepEqual(
      sanatorium.errors.map((e) => e.path),
      [`${P}/objektkategorie/objektart/zinshaus_renditeobjekt/@zins_typ`],
    );
    const unknownSubType = only(simpleTransfer([plot()]).replace('grundst_typ="WOHNEN"', 'grundst_typ="MOND"'));
    assert.equal(unknownSubType.request?.data.estateType, 'PLOT');
    assert.equal(unknownSubType.request?.data.estateSubType, undefined);
    assert.ok(unknownSubType.warnings.some((w) => w.path.endsWith('/@grundst_typ')));
    const both = only(simpleTransfer([plot()]).replace('KAUF="true" MIETE_PACHT="false"', 'KAUF="true" MIETE_PACHT="true"'));
    assert.match(both.errors[0]!.reason, /both KAUF and MIETE_PACHT/);
  });

  it('maps attachments: remote URLs, inline content, links, unknown groups, the limit', () => {
    const inline = Buffer.from('inline picture');
    const anhaenge = el(
      'anhaenge',
      {},
      el(
        'anhang',
        { location: 'REMOTE', gruppe: 'BILD' },
        tx('format', 'image/jpeg'),
        el('daten', {}, tx('pfad', 'https://cdn.example.test/1.jpg')),
      ),
      el(
        'anhang',
        { location: 'INTERN', gruppe: 'INNENANSICHTEN' },
        tx('format', 'png'),
        el('daten', {}, tx('anhanginhalt', inline.toString('base64'))),
      ),
      el('anhang', { location: 'EXTERN', gruppe: 'FILMLINK' }, el('daten', {}, tx('pfad', 'https://video.example.test/v/1'))),
      el('anhang', { location: 'EXTERN', gruppe: 'QRCODE' }, el('daten', {}, tx('pfad', 'qr.png'))),
      el('anhang', { location: 'EXTERN', gruppe: 'HOLOGRAMM' }, el('daten', {}, tx('pfad', 'x.png'))),
      el('anhang', { location: 'REMOTE', gruppe: 'BILD' }, el('daten', {}, tx('pfad', 'local.jpg'))),
      el('anhang', { location: 'EXTERN', gruppe: 'DOKUMENTE' }, tx('format', 'pdf'), el('daten', {}, tx('pfad', 'docs\\expose.pdf'))),
    );
    const object = only(simpleTransfer([plot()]).replace('</immobilie>', `${anhaengeXml(anhaenge)}</immobilie>`));
    const A = `${P}/anhaenge/anhang`;
    assert.deepEqual(object.attachments, [
      {
        path: `${A}[1]`,
        location: 'REMOTE',
        gruppe: 'BILD',
        format: 'image/jpeg',
        pfad: 'https://cdn.example.test/1.jpg',
        mediaType: 'PICTURE',
      },
      { path: `${A}[2]`, location: 'INTERN', gruppe: 'INNENANSICHTEN', format: 'png', inline, mediaType: 'PICTURE', category: 'INDOOR' },
      {
        path: `${A}[7]`,
        location: 'EXTERN',
        gruppe: 'DOKUMENTE',
        format: 'pdf',
        pfad: 'docs\\expose.pdf',
        mediaType: 'PICTURE',
        category: 'PROPERTY_INFORMATION',
      },
    ]);
    assert.deepEqual(object.request?.data.links, { externalLinks: [{ url: 'https://video.example.test/v/1', urlType: 'MOVIE' }] });
    assert.deepEqual(
      object.warnings.filter((w) => w.path.startsWith(A)).map((w) => w.path),
      [`${A}[4]`, `${A}[5]`, `${A}[6]`],
    );
    const many = el(
      'anhaenge',
      {},
      ...Array.from({ length: 3 }, (_, i) => el('anhang', { location: 'EXTERN' }, el('daten', {}, tx('pfad', `${i}.jpg`)))),
    );
    const limited = mapTransfer(parseXml(simpleTransfer([plot()]).replace('</immobilie>', `${anhaengeXml(many)}</immobilie>`), LIMITS), {
      limits: { ...LIMITS, maxAttachmentsPerObject: 2 },
      now: NOW,
    });
    assert.match(objects(limited)[0]!.errors[0]!.reason, /3 anhang elements, more than the limit of 2 \(maxAttachmentsPerObject\)/);
  });

  it('validates every request without errors against the listing schema', () => {
    const transfers = [
      map(mixedPackage().xml),
      map(mixedPackage({ booleans: 'digits', prefix: 'imo' }).xml),
      map(simpleTransfer([houseForSale({ onRequest: true }), office(), parking(), leisure()], { umfang: 'TEIL' })),
    ];
    let checked = 0;
    for (const result of transfers) {
      assertValid(result);
      checked += objects(result).filter((o) => o.request).length;
    }
    assert.ok(checked >= 15, `${checked} requests checked`);
  });
});

describe('OpenImmo tables and documentation', () => {
  it('maps to values the listing model has', () => {
    for (const [element, rule] of Object.entries(OBJEKTART)) {
      if (rule.estateType) assert.ok(ESTATE_TYPES.includes(rule.estateType), element);
      for (const [value, [type, subType]] of Object.entries(rule.values)) {
        assert.ok(ESTATE_TYPES.includes(type), `${element} ${value}`);
        if (subType) assert.ok(ESTATE_SUB_TYPES[type]?.includes(subType), `${element} ${value}: ${type}/${subType}`);
      }
    }
    for (const [group, rule] of Object.entries(ATTACHMENT_GROUPS)) {
      if (rule && 'media' in rule) {
        assert.ok(MEDIA_TYPES.includes(rule.media.mediaType), group);
        if (rule.media.category) assert.ok(MEDIA_CATEGORIES.includes(rule.media.category), group);
      }
      if (rule && 'link' in rule && rule.link.urlType) assert.ok(URL_TYPES.includes(rule.link.urlType), group);
    }
    for (const value of Object.values(BUILD_STATE)) if (value) assert.ok(BUILD_STATES.includes(value), value);
    for (const value of Object.values(AGE_STATE)) assert.ok(AGE_STATES.includes(value), value);
    for (const value of Object.values(CELLAR_STATE)) assert.ok(CELLAR.includes(value), value);
    for (const value of Object.values(COUNTRIES)) assert.match(value, /^[A-Z]{2}$/);
  });

  it('documents every mapped element', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/openimmo.md'), 'utf8');
    for (const { element } of MAPPED_ELEMENTS) assert.ok(doc.includes(`\`${element}\``), `docs/openimmo.md does not name ${element}`);
    const coverage = mappingCoverage();
    assert.ok(doc.includes(`**${coverage.mapped} mappings**`), `the document states ${coverage.mapped} mappings`);
  });
});

function anhaengeXml(node: ReturnType<typeof el>): string {
  const root = simpleTransfer([el('immobilie', {}, node)]);
  return /<anhaenge>[\s\S]*<\/anhaenge>/.exec(root)![0];
}
