/* The TypeScript shape of a listing body that schema.ts accepts. */
export type MultiLingualText = Partial<Record<string, string>>;

export interface Price {
  amount?: number;
  vatValue?: number;
  vatPercent?: number;
  isVatIncluded?: boolean;
  priceInformation?: string;
}

export interface ListingData {
  estateType: string;
  estateSubType?: string;
  distributionType: string;
  distributionSubType: string;
  location: {
    postalcode: string;
    city: string;
    street?: string;
    houseNumber?: string;
    state?: string;
    country: string;
    floorNumber?: number;
    geometry?: { type: 'Point'; coordinates: number[] };
    isAddressShown?: boolean;
    locationNote?: MultiLingualText;
  };
  prices: {
    currency?: string;
    buy?: { price?: Price; parkingPrice?: Price };
    rent?: Partial<Record<'baseRent' | 'totalRent' | 'lease' | 'operatingCosts' | 'heatingCosts' | 'parkingRent' | 'deposit', Price>>;
    compulsoryAuction?: { marketValue?: Price; minimumBid?: Price; overbidSessionStartingPrice?: Price };
    brokerageFee?: {
      hasFee?: boolean;
      amount?: number;
      feePercentage?: number;
      feeFor?: string;
      isVatIncluded?: boolean;
      priceNote?: MultiLingualText;
    };
    isPriceShown?: boolean;
    priceNote?: MultiLingualText;
  };
  spaces?: {
    usableFloorSpace?: number;
    overallSpace?: number;
    plotSpace?: number;
    kitchenSpace?: number;
    additionalSpace?: number;
    residential?: Partial<Record<string, number>>;
  };
  structure?: {
    rooms?: Partial<Record<string, number>>;
    building?: { numberOfFloors?: number; cellar?: string; barrierFree?: string; elevator?: { person?: string; freight?: string } };
    parkingLots?: Partial<Record<string, number>>;
  };
  conditions?: {
    buildState?: string;
    ageState?: string;
    yearOfConstruction?: number;
    lastModernisation?: number;
    buildingStartDate?: string;
  };
  management?: { availableFromDate?: string; isImmediatelyAvailable?: boolean; isRented?: boolean; isForInvestment?: boolean };
  texts?: Partial<Record<'headline' | 'description' | 'features' | 'area' | 'extendedInformation', MultiLingualText>>;
  links?: {
    externalLinks?: { url: string; urlType?: string; title?: string }[];
    virtualTours?: { url: string; provider?: string; title?: string }[];
  };
  externalProjectId?: string;
  projectEstateType?: string;
  projectEstateSubType?: string;
  projectDistributionType?: string;
  projectDistributionSubType?: string;
}

export interface ListingMetadata {
  source?: { offererMarketingKey?: string; offererEstateId?: string; offererEstateGroupId?: string };
  externalId?: string;
  softwareName?: string;
  externalCustomerId?: string;
  isPublished?: boolean;
}

export interface ListingMedia {
  externalMediaId: string;
  mediaType?: string;
  category?: string;
  title?: string;
}

export interface ListingContact {
  salutation?: string;
  firstName?: string;
  lastName?: string;
  company?: string;
  email?: string;
  phone?: string;
  mobilePhone?: string;
  fax?: string;
  homepage?: string;
}

/** An apiRequest as the schema accepts it (the mandatory identifiers of rule 10 are checked by the rules). */
export interface ListingRequest {
  data: ListingData;
  metadata: ListingMetadata;
  media?: ListingMedia[];
  contact?: ListingContact;
}
