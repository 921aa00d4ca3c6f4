/**
 * The request bodies of the benchmark: a ~5 KB classified cut down from the tests' realistic one
 * (prices, spaces, conditions, texts, six media), with its own offererEstateId and media URLs.
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
        buy: { price: prices.buy.price, minBuy: prices.buy.minBuy, operatingCosts: prices.buy.operatingCosts, parkingPrice: prices.buy.parkingPrice },
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

const MEDIA = ['cover', 'living', 'kitchen', 'bedroom', 'bathroom', 'terrace'];

/** One classified as JSON; `mediaBase` is where its six pictures live (the loopback media server or a CDN name). */
export function classifiedJson(estateId: string, mediaBase = 'https://cdn.example.be'): string {
  const body = structuredClone(template);
  body.data.metaData.source.offererEstateId = estateId;
  body.media = MEDIA.map((name, i) => ({
    url: `${mediaBase}/${estateId}/${name}.jpg`,
    mediaType: 'PICTURE',
    title: `Photo ${i + 1}`,
    ...(i === 0 ? { tags: ['COVER_PICTURE'] } : {}),
  }));
  return JSON.stringify(body);
}
