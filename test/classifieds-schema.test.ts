/**
 * The classified payload schema (caas v4 POST/PUT body): generated from reference/, accepted by the
 * body validator for a realistic classified and for one that sets every field of the reference, and
 * refusing bad bodies with the contract's pointer and reason.
 *
 * Plain unit tests of schema + validator: no database and no server are needed to judge a body, so
 * none is started (the HTTP route of issue 3 gets its own tests).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ErrorObject } from 'ajv';
import { classifiedSchema, type Classified, type MultiLingualText } from '../src/apis/classifieds/schema/classified.js';
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
} from '../src/apis/classifieds/schema/generate.js';
import { createValidators, validationProblem } from '../src/platform/http/validation.js';

const root = repositoryRoot();
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
    for (const [file, text] of [[SCHEMA_FILE, generated], [TYPES_FILE, renderTypes(schema)]] as const) {
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

  it('closes every object of the tree and keeps defaults out of the schema', () => {
    const open: string[] = [];
    const defaults: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${at}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if ('default' in schema) defaults.push(at);
      // The anyOf wrapper of the GeoJSON geometry leaves closing to its variants (each is closed).
      if (schema.type === 'object' && !schema.anyOf && schema.additionalProperties !== false) open.push(at);
      for (const [key, value] of Object.entries(schema)) visit(value, `${at}/${key}`);
    };
    visit(classifiedSchema, '#');
    assert.deepEqual(open, []);
    assert.deepEqual(defaults, []);
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

// Typed as the generated Classified, so tsc also checks the generated type against a real body.
function price<const T extends object = object>(amount: number, extra?: T) {
  const common = { amount, vatValue: Math.round(amount * 0.2 * 100) / 100, vatPercent: 20, isVatIncluded: true };
  return { ...common, priceInformation: 'BASIS_FOR_NEGOTIATION' as const, ...(extra as T) };
}

function netPrice(amount: number) {
  return { amount, priceInformation: 'PRICE_ON_DEMAND' as const };
}

function texts(fr: string, nl: string, en: string, de?: string): MultiLingualText {
  return de === undefined ? { fr, nl, en } : { fr, nl, en, de };
}

function realisticClassified(): Classified {
  return {
    portals: ['SL', 'BD', 'SLN'],
    data: {
      estateType: 'APARTMENT',
      estateSubType: { apartment: 'PENTHOUSE', house: 'TOWN_HOUSE' },
      distributionType: 'BUY',
      location: {
        postalcode: '1050',
        city: 'Ixelles',
        street: 'Avenue Louise',
        houseNumber: '231',
        unit: '7B',
        staircase: 'A',
        floorNumber: 7,
        entrance: 'North',
        state: 'Brussels-Capital',
        country: 'BE',
        geometry: { type: 'Point', coordinates: [4.3641, 50.8265] },
        locationNote: texts('Proche de la place Flagey', 'Dicht bij het Flageyplein', 'Close to Place Flagey'),
        countrySpecific: {
          de: { govMapNo: '12', govMapPart: '3', govRegisterPlace: 'Berlin', govRegisterNo: '4711' },
          fr: { inseeCode: '75056' },
        },
      },
      prices: {
        currency: 'EUR',
        buy: {
          price: price(845000),
          minBuy: price(800000),
          housePrice: price(700000),
          plotPrice: price(145000),
          isLeaseBuyCombi: false,
          leasehold: { isLeasehold: true, amount: 1200, priceTimeUnit: 'YEAR', duration: 99, endDate: '2098-12-31' },
          operatingCosts: price(250, { priceTimeUnit: 'MONTH', accounting: 'REAL_USAGE' }),
          rentalIncome: { priceTimeUnit: 'MONTH', amount: 2600, vatValue: 0, vatPercent: 0, isVatIncluded: false },
          rentalIncomeExpect: { priceTimeUnit: 'YEAR', amount: 33000, vatValue: 0, vatPercent: 0, isVatIncluded: false },
          parkingPrice: price(35000, { isOperatingCostsIncluded: false, parkingStyle: 'UNDERGROUND' }),
          pricePerSqUnit: price(5633.33),
          yieldFactor: 25.6,
          countrySpecific: {
            be: {
              isSubjectToVat: false,
              cadastralIncome: { amount: 2150, vatValue: 0, vatPercent: 0, isVatIncluded: false },
              lifeAnnuity: { estimatedPropertyValue: 900000, lumpSum: 150000, monthlyAmount: 1800 },
            },
            fr: { isReducedNotaryFees: false, notaryFeesFor: 'BUYER', lifeAnnuity: price(1500) },
            at: {
              operatingCostsNet: netPrice(210.5),
              heatingCostsNet: netPrice(80),
              miscCostsNet: netPrice(12.3),
              vatCostsPerMonth: 30.28,
              costsPerMonthGross: netPrice(333.08),
            },
          },
        },
        rent: {
          baseRent: price(2450),
          minRent: price(2300),
          baseRentPerYear: price(29400),
          totalRent: price(2800),
          lease: price(2450),
          operatingCosts: price(250, { accounting: 'FIXED' }),
          heatingCosts: price(100, { accounting: 'ADJUSTMENT' }),
          isHeatingIncludedInOC: false,
          isHeatingIncludedInTR: true,
          pricePerSqUnit: price(16.33),
          pricePerSqUnitPerYear: price(196),
          priceTimeUnit: 'MONTH',
          isParkingPriceIncluded: false,
          parkingRent: price(120, { parkingStyle: 'GARAGE' }),
          depositNote: texts('Trois mois de loyer', 'Drie maanden huur', 'Three months of rent'),
          countrySpecific: {
            fr: { leaseRight: price(15000), accessPrice: price(500), maxRegulatedRent: 2500, overRegulatedRent: 0 },
            at: {
              heatingCostsNet: netPrice(80),
              miscCostsNet: netPrice(10),
              operatingCostsNet: netPrice(200),
              overallLoadGross: netPrice(320),
              overallLoadVat: 32,
              overallRentGross: netPrice(2770),
              rentNet: netPrice(2450),
            },
          },
        },
        compulsoryAuction: {
          auctionProceeds: { amount: 600000, vatValue: 0, vatPercent: 0, isVatIncluded: false },
          biddingGuarantee: { amount: 60000 },
          marketValue: { amount: 820000, isVatIncluded: false },
          minimumBid: { amount: 410000 },
        },
        buyAuction: {
          minPrice: { amount: 780000, vatValue: 0, vatPercent: 0, isVatIncluded: false },
          startOfferPhase: '2025-12-01',
          endOfferPhase: '2025-12-15',
        },
        brokerageFee: {
          isFeeIncluded: true,
          feeFor: 'SHARED',
          feePercentage: 3.57,
          hasFee: 'YES',
          feeNote: texts('Honoraires partagés', 'Gedeeld honorarium', 'Shared fee'),
          countrySpecific: { fr: { feeScheduleLink: 'https://agency.example.be/fees.pdf', inventoryFee: '3 EUR/m2' } },
          amount: 30166.5,
          vatValue: 5035.5,
          vatPercent: 20,
          isVatIncluded: true,
        },
        showPrice: true,
        priceNote: texts('Prix ferme', 'Vaste prijs', 'Fixed price'),
        countrySpecific: {
          fr: { taxRegime: 'LMNP', residentialLeaseType: 'MEUBLE', isPTZeligible: true, taxReductionZone: 'A_BIS' },
          be: { commercial: { isBusinessSold: false, downPayment: 84500 } },
        },
      },
      spaces: {
        spaceMeasureUnit: 'SQUARE_METER',
        buildingFront: 12.5,
        overallSpace: 150,
        usableFloorSpace: 142.5,
        spaceMax: 160,
        spaceMin: 140,
        plotSpace: 420,
        plotFront: 18,
        additionalSpace: 22,
        kitchenSpace: 14,
        residential: {
          livingSpace: 138,
          livingRoomSpace: 48,
          atticSpace: 0,
          balconySpace: 9,
          cellarSpace: 6,
          gardenSpace: 0,
          terraceSpace: 35,
          bathRoomSpace: 8.5,
          showerRoomSpace: 4,
          diningRoomSpace: 18,
        },
        commercial: {
          maxDivisible: 150,
          minDivisible: 50,
          commercialSpace: 0,
          shopSpace: 0,
          storageSpace: 6,
          sellSpace: 0,
          officeSpace: 12,
          officePartSpace: 0,
          managementSpace: 0,
          restaurantSpace: 0,
          complementarySpaces: [
            { complementarySpaceType: 'PARKING', complementarySpaceSubType: 'UNDERGROUND_GARAGE', complementarySpaceArea: 15 },
            { complementarySpaceType: 'OFFICE', complementarySpaceSubType: 'SINGLE_OFFICE', complementarySpaceArea: 12 },
          ],
        },
      },
      conditions: { buildState: 'FULLY_RENOVATED', ageState: 'OLD', yearOfConstruction: 1932, lastModernisation: 2021, constructionStyle: 'SOLID' },
      energy: {
        energyType: {
          heatMethod: 'CENTRAL',
          heatForm: { air: false, radiator: true, stove: false, underfloor: true, wallCeiling: false },
          energySource: {
            coal: false,
            districtHeating: false,
            electric: true,
            gas: true,
            geothermal: false,
            liquidGas: false,
            oil: false,
            solarHeat: false,
            solarPower: true,
            wind: false,
            wood: false,
            woodPellet: false,
          },
          energyGeneration: { fossilburning: true, heatpump: true, combinedHeatAndPowerPlant: false },
          maxElectricalPower: 9,
        },
        countrySpecific: {
          de: {
            energyCertificates: [
              {
                nameOfCertificate: 'Energieausweis 2024',
                certificateType: 'ENEV2014',
                certificateBasedOn: 'CONSUMPTION',
                isResidentialBuilding: true,
                primaryEnergySource: 'GAS',
                efficiencyClass: 'C',
                releaseDate: '2024-03-01',
                validUntil: '2034-02-28',
                yearOfConstructionBuilding: 1932,
                yearOfConstructionHeating: 2019,
                overallEnergyNeed: 92.4,
                primaryEnergyNeed: 101.2,
                electricityNeed: 18.3,
                heatingNeed: 74.1,
                overallEnergyConsumption: 95.5,
                primaryEnergyConsumption: 104,
                isWaterHeatingIncluded: true,
                electricityConsumption: 20.2,
                heatingConsumption: 75.3,
                energyConsumptionIndicator: 96,
              },
              { certificateType: 'NOT_NECESSARY' },
            ],
            houseEnergyStandardType: 'LOW_ENERGY_HOUSE',
          },
          fr: {
            energyCertificate: {
              certificateType: 'DPE_V07_2021',
              overallEnergyNeed: 148,
              efficiencyClass: 'C',
              GHGEmission: 12,
              GHGEmissionClass: 'B',
              releaseDate: '2024-01-15',
              energyConsumptionCostMin: 1100,
              energyConsumptionCostMax: 1550,
              dateOfConsumptionCostEstimation: '2024-01-01',
              finalConsumption: 131,
            },
            tarificationEDF: 'BLEU',
            houseEnergyStandardTypes: ['BBC', 'RE2020'],
          },
          at: {
            energyCertificate: [
              { nameOfCertificate: 'Energieausweis', heatingNeed: 45.3, heatingNeedClass: 'B', overallEnergyEfficiencyFactor: 0.82, overallEnergyEfficiencyFactorClass: 'A_PLUS' },
            ],
          },
          ch: { isMinergieConstruction: false, isMinergieCertified: false },
          be: {
            oilTankCertificateStatus: 'NOT_SPECIFIED',
            hasElectricalInstallationComplianceCertificate: true,
            primaryEnergyConsumptionLevel: 182,
            globalThermalInsulationLevel: 45,
            energyCertificate: {
              certificateNumber: '20240115-0003012345-RES-1',
              primaryEnergyConsumption: 182,
              efficiencyClass: 'C_B',
              GHGEmission: 34,
              releaseDate: '2024-01-15',
              validUntil: '2034-01-15',
              theoreticalEnergyConsumption: 27300,
            },
            energyCertificateNote: texts('PEB C', 'EPC C', 'EPC C'),
          },
        },
      },
      features: {
        aircondition: 'PART',
        furnished: 'NO',
        floorCovering: { parquet: 'YES', tiles: 'YES', marble: 'NO' },
        garden: { shared: true },
        internet: {
          internetSpeedMbit: 1000,
          internetAvailability: { opticalFiber: true, dsl: true, cable: false, satellite: false },
          propertyInternetAccess: { ethernet: true, wireless: true },
        },
        security: { buildingIntercom: 'VIDEO', reinforcedDoor: 'YES' },
        residential: { chimney: 'YES', swimmingPool: 'NO', tv: 'CABLE', countrySpecific: { fr: { evacuation: 'ALL_SEWER' } } },
        parking: { chargingStation: 'YES', bikeParking: 'YES' },
      },
      structure: {
        building: {
          attic: 'CONVERTED',
          balconyDirection: 'SOUTH_WEST',
          bath: { shower: 'ROMAN_SHOWER', bathtub: 'YES', guestToilet: 'YES' },
          cellar: 'YES',
          elevator: { person: 'YES', freight: 'NO' },
          kitchen: { kitchenType: { builtIn: true, open: true }, kitchenEquipment: 'FULLY_EQUIPPED' },
          numberOfFloors: 8,
          numberOfFacades: 2,
          roomHeight: 2.9,
          offeredFloors: 2,
          roofStyle: 'FLAT_ROOF',
          withView: { overlooking: true },
          window: { blinds: 'ELECTRIC', windowMaterial: { woodenWindows: 'YES', insulatedGlazing: 'TRIPLE' } },
          hasSplitFloor: true,
          wallConstructionMaterial: ['BRICK', 'CELLULAR_CONCRETE'],
        },
        rooms: { numberOfRooms: 5.5, numberOfBedRooms: 3, numberOfBathRooms: 2, numberOfToilets: 3, numberOfBalconies: 1, numberOfTerraces: 1, numberOfKitchens: 1, hasDiningRoom: true },
        parkingLots: { underground: 1 },
      },
      texts: {
        headline: texts('Penthouse duplex avec terrasse', 'Duplex penthouse met terras', 'Duplex penthouse with terrace', 'Duplex-Penthouse mit Terrasse'),
        description: texts(
          'Magnifique penthouse en duplex entièrement rénové, avec une terrasse de 35 m² orientée sud-ouest.',
          'Prachtige volledig gerenoveerde duplex penthouse met een terras van 35 m² op het zuidwesten.',
          'Beautiful fully renovated duplex penthouse with a 35 m² south-west terrace.',
        ),
        features: texts('Cuisine équipée, cave, parking', 'Ingerichte keuken, kelder, parking', 'Fitted kitchen, cellar, parking'),
        extendedInformation: texts('Charges communes: 250 EUR', 'Gemeenschappelijke kosten: 250 EUR', 'Common charges: 250 EUR'),
        area: texts('Quartier Louise', 'Louizawijk', 'Louise district'),
        transportation: {
          metro: texts('Louise (M2, M6)', 'Louiza (M2, M6)', 'Louise (M2, M6)'),
          bus: texts('Ligne 54', 'Lijn 54', 'Line 54'),
          tramway: texts('Lignes 8 et 93', 'Lijnen 8 en 93', 'Lines 8 and 93'),
          road: texts('Ring R20', 'Ring R20', 'Ring R20'),
          highway: texts('E40 à 4 km', 'E40 op 4 km', 'E40 at 4 km'),
          publicBikeSystem: texts('Villo! station 120', 'Villo! station 120', 'Villo! station 120'),
          publicParking: texts('Parking Louise', 'Parking Louiza', 'Louise car park'),
          countrySpecific: {
            fr: {
              RER: { fr: 'RER B' },
              SNCF: { fr: 'Gare du Nord' },
              SNCFFret: { fr: 'Non' },
              noctilien: { fr: 'N12' },
              airportShuttle: { fr: 'Roissybus' },
            },
          },
        },
      },
      management: {
        isImmediatelyAvailable: false,
        availableFrom: '2026-01-01T00:00:00+01:00',
        availableUntil: '2027-12-31T23:59:59Z',
        isForInvestment: true,
        heritageProtected: 'NO',
        marketLabel: 'Exclusivité',
        isRented: false,
        useFor: 'LIVING',
        rent: { minRentalTime: 12, maxRentalTime: 36, rentalTimeUnit: 'MONTH', maxPersons: 4, nonSmoker: 'YES', petsAllowed: 'NO' },
        countrySpecific: {
          be: {
            isAsBuiltPlanCertificate: true,
            urbanPlanningInformation: texts('Zone d’habitation', 'Woongebied', 'Residential zone'),
            buildingPermission: { constructionType: 'APARTMENT_BUILDING', floodZoneType: 'NON_FLOOD_ZONE', hasObligationToConstruct: false },
            lifeAnnuity: { isIndexed: true, annuitants: { count: 2, ages: [74, 71] } },
          },
          fr: { isCondo: true, numberOfUnits: 24, operatingCostsPerYear: 3000, legalNotes: ['LOIPINEL', 'PTZ'] },
        },
      },
      countrySpecific: {
        fr: {
          agentMandate: { mandateNumber: 'M-2025-118', mandateType: 'EXCLUSIVE', startDate: '2025-09-01', endDate: '2026-08-31' },
          risk: { isPolluting: false, dateOfStatementOfRisksAndPollution: '2025-08-20' },
        },
      },
      metaData: {
        source: { sourceSystem: 'AgencyCrm', sourceSystemVersion: '7.4.2', offererMarketingKey: 'agency-1050', offererEstateId: 'IXL-231-7B' },
        createDate: '2025-09-01T08:15:00Z',
        changeDate: '2025-11-04T16:42:10+01:00',
        classifiedId: '3f2c4a9e-8b1d-4c6f-9a2e-5d7b8c9e0f1a',
      },
      contact: {
        userHomepage: 'https://agency.example.be',
        mainContactPersonId: 'agent-17',
        preferredContactType: 'BY_EMAIL',
        contactNote: texts('Visites le samedi', 'Bezoeken op zaterdag', 'Visits on Saturdays'),
        displayedInformation: { mainContactPerson: { name: true, phone: true, email: true, companyName: true } },
      },
      links: {
        externalLinks: [{ url: 'https://agency.example.be/ixl-231-7b', urlType: 'OFFERER_DETAIL_PAGE', title: 'Details' }],
        virtualTours: [{ url: 'https://tours.example.com/ixl-231-7b', provider: 'Matterport', title: '3D tour' }],
      },
    },
    media: [
      { url: 'https://cdn.example.be/ixl-231-7b/cover.jpg', mediaType: 'PICTURE', title: 'Séjour', category: 'LIVING_ROOM', tags: ['COVER_PICTURE', 'INDOOR'] },
      { url: 'https://cdn.example.be/ixl-231-7b/plan.png', mediaType: 'PICTURE', category: 'FLOOR_PLAN' },
      { url: 'https://tours.example.com/ixl-231-7b', mediaType: 'VIRTUAL_TOUR', title: 'Visite 3D' },
      { url: 'https://cdn.example.be/ixl-231-7b/terrace-360.jpg', mediaType: 'PANORAMA', category: 'TERRACE' },
      { url: 'https://video.example.be/ixl-231-7b.mp4', mediaType: 'VIDEO', title: 'Film', tags: ['OUTSIDE_VIEW'] },
    ],
  };
}

describe('classified schema: valid bodies', () => {
  it('accepts a large realistic classified (every price, space, energy and text block, GeoJSON point, all media types)', () => {
    assert.equal(problemFor(realisticClassified()), null);
  });

  it('accepts both spellings of the members the reference names with a trailing "?"', () => {
    const body = realisticClassified();
    body.data.buildingProperty = {
      units: [
        { propertyType: 'APARTMENT', number: 3, unitDescription: { spaceMin: 60, description: 'Two bedrooms', 'isDuplex?': true } },
      ],
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
  steps.forEach((step, i) => {
    if (i === steps.length - 1) node[step] = value;
    else node = (node[step] ??= typeof steps[i + 1] === 'number' ? [] : {}) as Record<string | number, unknown>;
  });
}

/** One document setting every leaf of the reference; of the GeoJSON variants, only `variant`. */
function everyFieldClassified(variant: string): { document: Record<string, unknown>; leaves: number } {
  const rows = referenceRows();
  const isParent = (row: ReferenceRow) => rows.some((r) => r.path.startsWith(`${row.path}.`) || r.path.startsWith(`${row.path}[`) || r.path.startsWith(`${row.path}<`));
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

function minimalClassified(): Record<string, any> {
  return {
    portals: ['BUCOM'],
    data: {
      estateType: 'TRADING',
      estateSubType: { trading: 'KIOSK' },
      distributionType: 'RENT',
      location: { postalcode: '75011', city: 'Paris', street: 'Rue Oberkampf', houseNumber: '12', country: 'FR' },
      prices: { rent: { baseRent: { amount: 1900 }, countrySpecific: { fr: { leaseRight: { amount: 40000 } } } } },
      metaData: { source: { sourceSystem: 'Crm', sourceSystemVersion: '1.0', offererMarketingKey: 'k-1', offererEstateId: 'E-1' } },
    },
  };
}

describe('classified schema: refusals', () => {
  it('accepts the minimal classified the refusals start from', () => {
    assert.equal(problemFor(minimalClassified()), null);
  });

  it('names an unknown member deep in the tree by its own pointer', () => {
    const body = minimalClassified();
    body.data.location.spaceship = 'USS Enterprise';
    assert.deepEqual(problemFor(body), badRequest([{ name: '/data/location/spaceship', reason: 'must NOT have additional properties: spaceship.' }]));
  });

  it('refuses unknown members at every level: top, media item, multilingual text, open-in-the-real-API objects', () => {
    const body = minimalClassified();
    body.classifiedId = '0f8fad5b-d9cb-469f-a165-70867728950e';
    body.media = [{ url: 'https://cdn.example.org/1.jpg', mediaType: 'PICTURE', displayOrder: 1 }];
    body.data.texts = { description: { fr: 'Boutique', xx: 'unknown language' } };
    body.data.features = { internet: { internetSpeedMbit: 100, provider: 'Orange' } };
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/classifiedId', reason: 'must NOT have additional properties: classifiedId.' },
        { name: '/data/features/internet/provider', reason: 'must NOT have additional properties: provider.' },
        { name: '/data/texts/description/xx', reason: 'must NOT have additional properties: xx.' },
        { name: '/media/0/displayOrder', reason: 'must NOT have additional properties: displayOrder.' },
      ]),
    );
  });

  it('lists the allowed values of an enum', () => {
    const body = minimalClassified();
    body.data.estateSubType.trading = 'CASTLE';
    assert.deepEqual(
      problemFor(body),
      badRequest([
        { name: '/data/estateSubType/trading', reason: 'must be equal to one of the allowed values: STORE, SHOWROOM_SPACE, SHOPPING_CENTRE, KIOSK, SALES_AREA.' },
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
