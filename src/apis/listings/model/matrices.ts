/*
 * The vocabularies and type matrices of the listing request, as data: the schema takes its enums
 * from here, the rules look pairs up here, and the OpenAPI document shows them (listing.ts puts
 * each matrix into the description and an `x-matrix` member of the field it governs).
 *
 * The listing `data` belongs to the same real-estate model family as the classifieds payload, so
 * where the vocabularies coincide they are read from the shared reference of that family,
 * reference/caas-v4-enums.json (repository data, not another API's code; tsc copies it into dist
 * beside the build because it is imported). Estate types and their sub-types, distribution types,
 * the ISO 639-1 codes of multilingual texts, currencies and the media and condition vocabularies
 * are therefore the classifieds' ones. What the listing import adds (distribution sub-types, the
 * project matrices) is written out below.
 */
import reference from '../../../../reference/caas-v4-enums.json' with { type: 'json' };

const enums: Readonly<Record<string, readonly string[]>> = reference.enums;

function shared(path: string): readonly string[] {
  const values = enums[path];
  if (!values) throw new Error(`reference/caas-v4-enums.json has no enum ${path}`);
  return values;
}

export const ESTATE_TYPES = shared('data.estateType');
export const DISTRIBUTION_TYPES = shared('data.distributionType');
export const LANGUAGES: readonly string[] = reference.multiLingualTextLanguages;
export const CURRENCIES = shared('data.prices.currency');
export const PRICE_INFORMATION = shared('data.prices.rent.baseRent.priceInformation');
export const FEE_FOR = shared('data.prices.brokerageFee.feeFor');
export const BUILD_STATES = shared('data.conditions.buildState');
export const AGE_STATES = shared('data.conditions.ageState');
export const MEDIA_TYPES = shared('media[].mediaType');
export const MEDIA_CATEGORIES = shared('media[].category');
export const URL_TYPES = shared('data.links.externalLinks[].urlType');
export const CELLAR = shared('data.structure.building.cellar');
export const YES_NO = shared('data.structure.building.barrierFree');

/** HOUSE -> house, GASTRONOMY_HOTEL -> gastronomyHotel: the classifieds key sub-types by this name. */
function camel(estateType: string): string {
  return estateType.toLowerCase().replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * Rule 6: estateType -> the estateSubType values allowed with it. The classifieds carry the
 * sub-type inside an object keyed by type (data.estateSubType.apartment); the listing carries one
 * string, so the matrix is what ties the two together. A type without sub-types (MISCELLANEOUS)
 * maps to an empty list: it takes no estateSubType.
 */
export const ESTATE_SUB_TYPES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  ESTATE_TYPES.map((type) => [type, enums[`data.estateSubType.${camel(type)}`] ?? []]),
);

/**
 * Rule 7: distributionType -> the distributionSubType values allowed with it. CLASSIC is the
 * standard case of each; the new-build values mark new builds (rule 15); EMPTY is an unfurnished
 * rent (rule 18).
 */
export const DISTRIBUTION_SUB_TYPES: Readonly<Record<string, readonly string[]>> = {
  BUY: ['CLASSIC', 'NEW_BUILD_UNIT', 'NEW_BUILD_INVESTMENT_PRODUCT', 'LIFE_ANNUITY', 'BUSINESS_SALE_GOODWILL'],
  RENT: ['CLASSIC', 'NEW_BUILD_UNIT', 'EMPTY', 'FURNISHED', 'TEMPORARY', 'VACATION', 'BUSINESS'],
  COMPULSORY_AUCTION: ['CLASSIC', 'PARTITION_AUCTION'],
  BUY_AUCTION: ['CLASSIC', 'ONLINE_AUCTION'],
};

/** Rule 15 applies to these distributionSubType values. */
export const NEW_BUILD_SUB_TYPES: readonly string[] = ['NEW_BUILD_UNIT', 'NEW_BUILD_INVESTMENT_PRODUCT'];

/** Rules 17 and 18: the rent sub-types that need a rent amount (the spec names them in two rules). */
export const RENT_AMOUNT_RULES: Readonly<Record<string, 17 | 18>> = { CLASSIC: 17, NEW_BUILD_UNIT: 18, EMPTY: 18 };

/**
 * Rule 8: projectEstateType -> projectEstateSubType. The sub-types are the classifieds' project
 * sub-types (data.estateSubType.project), grouped by what the project's units are.
 */
export const PROJECT_ESTATE_SUB_TYPES: Readonly<Record<string, readonly string[]>> = {
  APARTMENT: ['MULTI_FAMILY_HOUSE'],
  HOUSE: ['HOUSE_PARK', 'SINGLE_MULTI_HOUSES'],
  MISCELLANEOUS: ['MISCELLANEOUS'],
};

/** Rule 9: projectDistributionType -> projectDistributionSubType. */
export const PROJECT_DISTRIBUTION_SUB_TYPES: Readonly<Record<string, readonly string[]>> = {
  BUY: ['NEW_BUILD_PROJECT', 'NEW_BUILD_INVESTMENT_PRODUCT'],
  RENT: ['NEW_BUILD_PROJECT'],
};

/** Every value of a matrix, each once: the enum of the sub-type field. */
export function allValues(matrix: Readonly<Record<string, readonly string[]>>): string[] {
  return [...new Set(Object.values(matrix).flat())];
}
