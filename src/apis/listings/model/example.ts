/*
 * A complete apiRequest that passes the schema and every business rule: a rent apartment in
 * Berlin with the mandatory fields. It is the `example` of the request schema in the OpenAPI
 * document and the tests' fixture, so the documented body is a tested one. No media: those must
 * be uploaded through POST /medias first.
 */
import type { ApiRequest } from './request.js';

/** The Berlin rent apartment; a fresh copy on each call, free to modify. */
export function berlinRentApartmentExample(): ApiRequest {
  return {
    data: {
      estateType: 'APARTMENT',
      estateSubType: 'MULTI_STOREY',
      distributionType: 'RENT',
      distributionSubType: 'CLASSIC',
      location: {
        postalcode: '10827',
        city: 'Berlin',
        street: 'Hauptstraße',
        houseNumber: '12',
        country: 'DE',
        floorNumber: 2,
        geometry: { type: 'Point', coordinates: [13.3525, 52.4862] },
      },
      prices: {
        currency: 'EUR',
        rent: {
          baseRent: { amount: 1250 },
          totalRent: { amount: 1530 },
          operatingCosts: { amount: 200 },
          heatingCosts: { amount: 80 },
          deposit: { amount: 3750 },
        },
        brokerageFee: { hasFee: false },
      },
      spaces: { residential: { livingSpace: 85, balconySpace: 6 } },
      structure: {
        rooms: { numberOfRooms: 3, numberOfBedRooms: 2, numberOfBathRooms: 1, numberOfBalconies: 1 },
        building: { numberOfFloors: 5, cellar: 'YES', elevator: { person: 'YES' } },
      },
      conditions: { buildState: 'WELL_KEPT', ageState: 'OLD', yearOfConstruction: 1910 },
      management: { availableFromDate: '2027-03-01' },
      texts: {
        headline: {
          de: 'Helle 3-Zimmer-Altbauwohnung mit Balkon in Schöneberg',
          en: 'Bright 3-room period apartment with balcony in Schöneberg',
        },
        description: {
          de: '3-Zimmer-Wohnung, 85 m², Kaltmiete 1.250 €, ab 01.03.2027, Hauptstraße 12, 10827 Berlin, 2. OG. Dielenböden, Wannenbad mit Fenster, Balkon zum ruhigen Hof.',
        },
        area: { de: 'U-Bahn Kleistpark (U7) in 5 Minuten, Einkaufsmöglichkeiten in der Akazienstraße.' },
      },
    },
    metadata: {
      source: { offererMarketingKey: 'beispiel-immobilien', offererEstateId: 'BER-2027-0042' },
      externalId: 'W-0042',
      softwareName: 'MaklerCRM 4.2',
      externalCustomerId: 'K-100234',
      isPublished: true,
    },
    contact: {
      salutation: 'MS',
      firstName: 'Anna',
      lastName: 'Schmidt',
      company: 'Beispiel Immobilien GmbH',
      email: 'anna.schmidt@example.com',
      phone: '+49 30 1234567',
    },
  };
}
