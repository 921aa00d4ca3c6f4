/*
 * The request bodies of the benchmark: a ~5 KB classified cut down from the tests' realistic one
 * (prices, spaces, conditions, texts, six media), with its own offererEstateId and media URLs;
 * and a lead whose message carries a key the webhook receivers read back.
 */
import { realisticClassified } from '../test/fixtures/classifieds.js';

type Body = Record<string, any>;

const template: Body = (() => {
  const full = realisticClassified() as Body;
  const data = full.data;
  const prices = data.prices;
  return {
    portals: full.portals,
    data: {
      estateType: data.estateType,
      estateSubType: data.estateSubType,
      distributionType: data.distributionType,
      location: data.location,
      prices: {
        currency: prices.currency,
        buy: {
          price: prices.buy.price,
          minBuy: prices.buy.minBuy,
          operatingCosts: prices.buy.operatingCosts,
          parkingPrice: prices.buy.parkingPrice,
        },
        brokerageFee: prices.brokerageFee,
        showPrice: prices.showPrice,
        priceNote: prices.priceNote,
      },
      spaces: data.spaces,
      conditions: data.conditions,
      texts: data.texts,
      metaData: data.metaData,
    },
  };
})();

/**
 * The same classified made publishable on its portals, so that processing ends in CREATED: the
 * test fixture (built to exercise the schema) names a house sub-type on an apartment, and BD wants
 * a description of at least 160 characters.
 */
const publishable: Body = (() => {
  const body = structuredClone(template);
  body.data.estateSubType = { apartment: body.data.estateSubType.apartment };
  const description = body.data.texts.description;
  description.fr = `${description.fr} Séjour lumineux de 60 m², trois chambres, deux salles de bains, cuisine équipée, cave et emplacement de parking en sous-sol inclus dans le prix.`;
  return body;
})();

const MEDIA = ['cover', 'living', 'kitchen', 'bedroom', 'bathroom', 'terrace'];

/**
 * One classified as JSON; `mediaBase` is where its six pictures live (the loopback media server or
 * a CDN name). `publishable` gives the variant that passes the portals' rules.
 */
export function classifiedJson(estateId: string, mediaBase = 'https://cdn.example.be', options: { publishable?: boolean } = {}): string {
  const body = structuredClone(options.publishable ? publishable : template);
  body.data.metaData.source.offererEstateId = estateId;
  body.media = MEDIA.map((name, i) => ({
    url: `${mediaBase}/${estateId}/${name}.jpg`,
    mediaType: 'PICTURE',
    title: `Photo ${i + 1}`,
    ...(i === 0 ? { tags: ['COVER_PICTURE'] } : {}),
  }));
  return JSON.stringify(body);
}

/** The lead's message is this prefix and its key: the notification carries the message as it was sent. */
export const LEAD_KEY_PREFIX = 'bench lead ';

export function leadJson(key: string): string {
  return JSON.stringify({
    firstName: 'Bench',
    lastName: 'Load',
    email: 'bench.load@example.be',
    language: 'FR',
    phoneNumbers: [{ type: 'MOBILE', number: '+32 470 12 34 56' }],
    message: `${LEAD_KEY_PREFIX}${key}`,
    classifiedId: '12ABCDEFGHJK',
    submittedDate: new Date().toISOString(),
  });
}
