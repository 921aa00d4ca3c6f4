/*
 * OpenImmo's vocabularies against the listing model's (model/matrices.ts), as data, so that the
 * documentation and the tests can read them: which objektart is which estateType and sub-type,
 * which country, which condition, which attachment group is which media.
 *
 * A `null` sub-type is a deliberate "no sub-type": the OpenImmo value says where the flat is or
 * that nothing is said (ETAGE, KEINE_ANGABE), not a kind the model has. The test checks every
 * pair against the model's matrices.
 */

export interface ObjektartRule {
  /** The element's attribute that names the kind, e.g. wohnungtyp. */
  attribute: string;
  /** The estateType of the element when the attribute is absent; none: the element alone has no place. */
  estateType?: string;
  /** Attribute value -> [estateType, estateSubType or null]. */
  values: Readonly<Record<string, readonly [string, string | null]>>;
}

function kinds(estateType: string, values: Record<string, string | null>): Record<string, readonly [string, string | null]> {
  return Object.fromEntries(Object.entries(values).map(([value, subType]) => [value, [estateType, subType] as const]));
}

/** `objektart` child element -> the listing's estateType and estateSubType. */
export const OBJEKTART: Readonly<Record<string, ObjektartRule>> = {
  zimmer: { attribute: 'zimmertyp', estateType: 'APARTMENT', values: kinds('APARTMENT', { ZIMMER: 'FLATSHARING_ROOM' }) },
  wohnung: {
    attribute: 'wohnungtyp',
    estateType: 'APARTMENT',
    values: kinds('APARTMENT', {
      DACHGESCHOSS: null,
      MAISONETTE: 'MULTI_STOREY',
      'LOFT-STUDIO-ATELIER': 'LOFT',
      PENTHOUSE: 'PENTHOUSE',
      TERRASSEN: 'TERRACE',
      ETAGE: null,
      ERDGESCHOSS: null,
      SOUTERRAIN: null,
      APARTMENT: 'STUDIO',
      FERIENWOHNUNG: null,
      GALERIE: null,
      ROHDACHBODEN: 'UNFINISHED_ATTIC_SPACE',
      ATTIKAWOHNUNG: 'PENTHOUSE',
      KEINE_ANGABE: null,
    }),
  },
  haus: {
    attribute: 'haustyp',
    estateType: 'HOUSE',
    values: kinds('HOUSE', {
      REIHENHAUS: 'TERRACE_HOUSE',
      REIHENEND: 'END_TERRACE_HOUSE',
      REIHENMITTEL: 'MID_TERRACE_HOUSE',
      REIHENECK: 'CORNER_TERRACE_HOUSE',
      DOPPELHAUSHAELFTE: 'SEMIDETACHED_HOUSE',
      EINFAMILIENHAUS: 'SINGLE_FAMILY_HOUSE',
      STADTHAUS: 'TOWN_HOUSE',
      BUNGALOW: 'BUNGALOW',
      VILLA: 'VILLA',
      RESTHOF: 'FARMHOUSE',
      BAUERNHAUS: 'FARMHOUSE',
      LANDHAUS: null,
      SCHLOSS: 'CASTLE',
      ZWEIFAMILIENHAUS: 'MULTI_FAMILY_HOUSE',
      MEHRFAMILIENHAUS: 'MULTI_FAMILY_HOUSE',
      FERIENHAUS: null,
      BERGHUETTE: 'MOUNTAIN_HUT',
      CHALET: 'CHALET',
      STRANDHAUS: null,
      'LAUBE-DATSCHE-GARTENHAUS': 'GARDEN_HOUSE',
      APARTMENTHAUS: 'APARTMENT_HOUSE',
      BURG: 'CASTLE',
      HERRENHAUS: 'MANOR_HOUSE',
      FINCA: 'FINCA',
      RUSTICO: 'RUSTICO',
      FERTIGHAUS: null,
      KEINE_ANGABE: null,
    }),
  },
  grundstueck: {
    attribute: 'grundst_typ',
    estateType: 'PLOT',
    values: kinds('PLOT', {
      WOHNEN: 'LIVING',
      GEWERBE: 'COMMERCIAL',
      INDUSTRIE: 'INDUSTRY',
      LAND_FORSTWIRSCHAFT: 'AGRICULTURE_FORESTRY',
      FREIZEIT: 'LEISURE_FACILITY',
      GEMISCHT: 'MIXED',
      GEWERBEPARK: 'COMMERCIAL_PARC',
      SONDERNUTZUNG: 'SPECIAL_USE',
      SEELIEGENSCHAFT: 'LAKESIDE_PROPERTY',
    }),
  },
  buero_praxen: {
    attribute: 'buero_typ',
    estateType: 'OFFICE',
    values: kinds('OFFICE', {
      BUEROFLAECHE: 'OFFICE_SPACE',
      BUEROHAUS: 'OFFICE_BUILDING',
      BUEROZENTRUM: 'OFFICE_CENTRE',
      LOFT_ATELIER: 'ATELIER',
      PRAXIS: 'MEDICAL',
      PRAXISFLAECHE: 'MEDICAL_FLOOR',
      PRAXISHAUS: 'MEDICAL_BUILDING',
      AUSSTELLUNGSFLAECHE: null,
      COWORKING: 'COWORKING',
      SHARED_OFFICE: 'SHARED_OFFICE',
    }),
  },
  einzelhandel: {
    attribute: 'handel_typ',
    estateType: 'TRADING',
    values: kinds('TRADING', {
      LADENLOKAL: 'STORE',
      EINZELHANDELSLADEN: 'STORE',
      VERBRAUCHERMARKT: 'SALES_AREA',
      EINKAUFSZENTRUM: 'SHOPPING_CENTRE',
      KAUFHAUS: 'STORE',
      FACTORY_OUTLET: 'STORE',
      KIOSK: 'KIOSK',
      VERKAUFSFLAECHE: 'SALES_AREA',
      AUSSTELLUNGSFLAECHE: 'SHOWROOM_SPACE',
    }),
  },
  gastgewerbe: {
    attribute: 'gastgew_typ',
    estateType: 'GASTRONOMY_HOTEL',
    values: kinds('GASTRONOMY_HOTEL', {
      GASTRONOMIE: 'RESTAURANT',
      GASTRONOMIE_UND_WOHNUNG: 'RESTAURANT',
      PENSIONEN: 'HOTEL',
      HOTELS: 'HOTEL',
      WEITERE_BEHERBERGUNGSBETRIEBE: null,
      BAR: 'CAFE_BAR_PUB',
      CAFE: 'CAFE_BAR_PUB',
      DISCOTHEK: 'CLUB_DISCOTHEQUE',
      RESTAURANT: 'RESTAURANT',
      RAUCHERLOKAL: 'CAFE_BAR_PUB',
      EINRAUMLOKAL: 'CAFE_BAR_PUB',
    }),
  },
  hallen_lager_prod: {
    attribute: 'hallen_typ',
    estateType: 'STORAGE_PRODUCTION',
    values: kinds('STORAGE_PRODUCTION', {
      HALLE: 'WAREHOUSE_HALL',
      INDUSTRIEHALLE: 'PRODUCTION_HALL',
      LAGER: 'WAREHOUSE_HALL',
      LAGERFLAECHEN: 'MISC_STORAGE',
      LAGER_MIT_FREIFLAECHE: 'WAREHOUSE_HALL',
      HOCHREGALLAGER: 'WAREHOUSE_HALL',
      SPEDITIONSLAGER: 'LOGISTICS_CENTER',
      PRODUKTION: 'PRODUCTION_HALL',
      WERKSTATT: 'GARAGE_REPAIR',
      SERVICE: null,
      FREIFLAECHEN: 'OUTDOOR_SPACE',
      KUEHLHAUS: 'MISC_STORAGE',
    }),
  },
  land_und_forstwirtschaft: {
    attribute: 'land_typ',
    estateType: 'AGRICULTURE_FORESTRY',
    values: kinds('AGRICULTURE_FORESTRY', {
      LANDWIRTSCHAFTLICHE_BETRIEBE: 'AGRICULTURE_COMPANY',
      BAUERNHOF: 'FARM_RANCH',
      AUSSIEDLERHOF: 'FARM_RANCH',
      GARTENBAU: 'GARDENING',
      ACKERBAU: 'AGRICULTURE_COMPANY',
      WEINBAU: 'WINERY',
      VIEHWIRTSCHAFT: 'FARM_RANCH',
      JAGD_UND_FORSTWIRTSCHAFT: 'FORESTRY',
      TEICH_UND_FISCHWIRTSCHAFT: 'FISHING',
      SCHEUNEN: 'MISC_AGRICULTURE',
      REITERHOEFE: 'RIDING',
      SONSTIGE_LANDWIRTSCHAFTSIMMOBILIEN: 'MISC_AGRICULTURE',
      ANWESEN: 'MISC_AGRICULTURE',
      JAGDREVIER: 'HUNTING',
    }),
  },
  parken: {
    attribute: 'parken_typ',
    estateType: 'PARKING',
    values: kinds('PARKING', {
      STELLPLATZ: 'OUTSIDE',
      CARPORT: 'CARPORT',
      DOPPELGARAGE: 'DOUBLE_GARAGE',
      DUPLEX: 'DUPLEX',
      TIEFGARAGE: 'UNDERGROUND_GARAGE',
      BOOTSLIEGEPLATZ: 'BOAT_DOCK',
      EINZELGARAGE: 'GARAGE',
      PARKHAUS: 'CAR_PARK',
      TIEFGARAGENSTELLPLATZ: 'UNDERGROUND_PARKING_SPACE',
      PARKPLATZ_STROM: 'OUTSIDE',
    }),
  },
  sonstige: {
    attribute: 'sonstige_typ',
    estateType: 'MISCELLANEOUS',
    values: {
      PARKHAUS: ['PARKING', 'CAR_PARK'],
      ...kinds('MISCELLANEOUS', { TANKSTELLE: null, KRANKENHAUS: null, SONSTIGE: null }),
    },
  },
  // An investment property is a building of some kind; only the kinds the model has are taken.
  zinshaus_renditeobjekt: {
    attribute: 'zins_typ',
    values: {
      MEHRFAMILIENHAUS: ['HOUSE', 'MULTI_FAMILY_HOUSE'],
      WOHN_UND_GESCHAEFTSHAUS: ['HOUSE', 'LIVING_AND_COMMERCIAL'],
      GESCHAEFTSHAUS: ['OFFICE', 'LIVING_AND_COMMERCIAL_BUILDING'],
      BUEROGEBAEUDE: ['OFFICE', 'OFFICE_BUILDING'],
      SB_MAERKTE: ['TRADING', 'SALES_AREA'],
      EINKAUFSCENTREN: ['TRADING', 'SHOPPING_CENTRE'],
      WOHNANLAGEN: ['HOUSE', 'RESIDENTIAL_COMPLEX'],
      VERBRAUCHERMAERKTE: ['TRADING', 'SALES_AREA'],
      PFLEGEHEIM: ['SENIOR', 'MEDICAL_CARE'],
      SENIORENHEIM: ['SENIOR', 'LIVING'],
      'BETREUTES-WOHNEN': ['SENIOR', 'ASSISTED_LIVING'],
    },
  },
  // freizeitimmobilie_gewerblich (sports grounds, amusement parks) has no estateType: absent on purpose.
};

/** ISO 3166-1 alpha-3 (what OpenImmo's iso_land holds) -> the alpha-2 code the listing's country takes. */
export const COUNTRIES: Readonly<Record<string, string>> = {
  DEU: 'DE',
  AUT: 'AT',
  CHE: 'CH',
  LIE: 'LI',
  LUX: 'LU',
  NLD: 'NL',
  BEL: 'BE',
  FRA: 'FR',
  ITA: 'IT',
  ESP: 'ES',
  PRT: 'PT',
  POL: 'PL',
  CZE: 'CZ',
  SVK: 'SK',
  HUN: 'HU',
  SVN: 'SI',
  HRV: 'HR',
  DNK: 'DK',
  SWE: 'SE',
  NOR: 'NO',
  FIN: 'FI',
  ISL: 'IS',
  GBR: 'GB',
  IRL: 'IE',
  GRC: 'GR',
  CYP: 'CY',
  MLT: 'MT',
  BGR: 'BG',
  ROU: 'RO',
  ROM: 'RO',
  EST: 'EE',
  LVA: 'LV',
  LTU: 'LT',
  TUR: 'TR',
  MCO: 'MC',
  AND: 'AD',
  SMR: 'SM',
  USA: 'US',
  CAN: 'CA',
  ARE: 'AE',
};

/** zustand@zustand_art -> conditions.buildState; null: no equivalent (warned). */
export const BUILD_STATE: Readonly<Record<string, string | null>> = {
  ERSTBEZUG: 'FIRST_TIME_USE',
  TEIL_VOLLRENOVIERUNGSBED: 'NEED_OF_RENOVATION',
  NEUWERTIG: 'MINT_CONDITION',
  TEIL_VOLLSANIERT: 'REFURBISHED',
  TEIL_VOLLRENOVIERT: 'PARTLY_RENOVATED',
  TEIL_SANIERT: 'PARTLY_RENOVATED',
  VOLL_SANIERT: 'REFURBISHED',
  SANIERUNGSBEDUERFTIG: 'NEED_OF_RENOVATION',
  BAUFAELLIG: 'RIPE_FOR_DEMOLITION',
  NACH_VEREINBARUNG: 'NEGOTIABLE',
  MODERNISIERT: 'MODERNISED',
  GEPFLEGT: 'WELL_KEPT',
  ROHBAU: null,
  ENTKERNT: null,
  ABRISSOBJEKT: 'RIPE_FOR_DEMOLITION',
  PROJEKTIERT: 'PROJECTED',
};

/** alter@alter_attr -> conditions.ageState. */
export const AGE_STATE: Readonly<Record<string, string>> = { ALTBAU: 'OLD', NEUBAU: 'NEW' };

/** unterkellert@keller -> structure.building.cellar. */
export const CELLAR_STATE: Readonly<Record<string, string>> = { JA: 'YES', NEIN: 'NO', TEIL: 'PART' };

/** What an `anhang` group becomes: a media (type and category) or a link; null: not taken (warned). */
export type AttachmentRule = { media: { mediaType: string; category?: string } } | { link: { urlType?: string } } | null;

export const ATTACHMENT_GROUPS: Readonly<Record<string, AttachmentRule>> = {
  TITELBILD: { media: { mediaType: 'PICTURE', category: 'COVER_PICTURE' } },
  INNENANSICHTEN: { media: { mediaType: 'PICTURE', category: 'INDOOR' } },
  AUSSENANSICHTEN: { media: { mediaType: 'PICTURE', category: 'OUTSIDE_VIEW' } },
  BILD: { media: { mediaType: 'PICTURE' } },
  PANORAMA: { media: { mediaType: 'PANORAMA' } },
  GRUNDRISS: { media: { mediaType: 'PICTURE', category: 'FLOOR_PLAN' } },
  KARTEN_LAGEPLAN: { media: { mediaType: 'PICTURE', category: 'MAP' } },
  ANBIETERLOGO: { media: { mediaType: 'PICTURE', category: 'LOGO' } },
  DOKUMENTE: { media: { mediaType: 'PICTURE', category: 'PROPERTY_INFORMATION' } },
  'EPASS-SKALA': { media: { mediaType: 'PICTURE', category: 'ENERGY_CERTIFICATE' } },
  FILM: { media: { mediaType: 'VIDEO' } },
  FILMLINK: { link: { urlType: 'MOVIE' } },
  LINKS: { link: {} },
  ANBOBJURL: { link: { urlType: 'OFFERER_DETAIL_PAGE' } },
  QRCODE: null,
};

/** preise/stp_* (parking spaces offered with the listing) -> the structure.parkingLots member their @anzahl counts. */
export const PARKING_LOTS: Readonly<Record<string, string>> = {
  stp_carport: 'carport',
  stp_duplex: 'duplex',
  stp_freiplatz: 'outside',
  stp_garage: 'garage',
  stp_tiefgarage: 'underground',
};
