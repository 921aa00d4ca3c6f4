/*
 * Generated from the OpenAPI document immogate serves at /import-listings/v1/openapi.json by
 * `npm run generate -w @immogate/client`: do not edit (a test fails when it drifts from the served document).
 */
export interface paths {
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the event feed (immogate extension)
         * @description What happened to your agency in this environment, oldest first, in commit order: `listing.created`, `listing.updated`, `listing.deleted`, `listing.media_attached`. Pass the `next` of a page as `after` to read on; a follower never misses an event, even of transactions that commit out of order. With `wait` (at most 30 seconds) an empty answer waits until an event exists. Events are kept as long as webhook deliveries (DELIVERY_RETENTION_DAYS of the server); an `after` older than that is answered 410 with the `oldestCursor` to resume from.
         *
         *     Scope: `clim:listings:read`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        get: operations["listListingEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/listings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your listings
         * @description The externalListingIds of the agency's listings, oldest first, a page at a time. Send the `nextPageToken` of an answer to get the next page; it is null on the last one.
         *
         *     Scope: `clim:listings:read`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        get: operations["getListings"];
        put?: never;
        /**
         * Create a listing
         * @description Checks the body (unknown members are refused at every level) and the business rules; a refusal names each failure in `errors`, with its field and reason (a business rule by its number). A stored listing is answered with its listingId, your externalListingId, warnings that did not block it, and its URL in `Location`. A second creation with the same `offererEstateId` is a 400. With `metadata.isPublished` false the listing is stored but not published. Project listings are not supported.
         *
         *     Scope: `clim:listings:create`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        post: operations["createListing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/listings/{externalListingId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a listing
         * @description The listing as last written, with its listingId, whether it is published, and its dates. Another agency's listing, or the other environment's, is a 404.
         *
         *     Scope: `clim:listings:read`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        get: operations["getListing"];
        /**
         * Replace a listing
         * @description Sends the whole listing again: the same checks as a creation, and neither `estateType` (rule 11) nor the `offererEstateId` may change.
         *
         *     Scope: `clim:listings:update`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        put: operations["updateListing"];
        post?: never;
        /**
         * Delete a listing
         * @description Removes the listing; the media only it used are deleted later.
         *
         *     Scope: `clim:listings:delete`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        delete: operations["deleteListing"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/listings/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a listing without storing it (immogate extension)
         * @description Checks a listing as `POST /listings` would and stores nothing: the format, the 21 business rules, an `offererEstateId` already in use and media not uploaded. `valid` is true when a POST would be answered 201; `warnings` are what it would warn of. At most 60 a minute per client and environment by default (VALIDATIONS_PER_MINUTE of the server), the console’s calls included; beyond, 429 with Retry-After.
         *
         *     Scope: `clim:listings:create`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        post: operations["validateListing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/medias": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get an upload URL for a media file
         * @description Answers a presigned URL: PUT the file's bytes there within 60 seconds, once, at most 40 MiB, with the Content-Type of the file name's extension (jpg, jpeg, png, gif, webp, pdf, mp4). Then name `externalMediaId` in a listing's media. A file no listing uses is deleted a while after its URL expired.
         *
         *     Scope: `clim:medias:create`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        post: operations["createMedia"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openimmo-imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List OpenImmo imports (immogate extension)
         * @description The agency's imports in this environment, newest first, 20 a page.
         *
         *     Scope: `clim:listings:read`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        get: operations["listOpenImmoImports"];
        put?: never;
        /**
         * Import an OpenImmo transfer (immogate extension)
         * @description Takes an OpenImmo file as a CRM exports it: a ZIP holding one XML and the files its attachments name (`application/zip`), or the XML alone (`application/xml`). Answered 202 once the file is stored; a worker then applies each `immobilie` as a listing of the agency, keyed by `verwaltung_techn/objektnr_extern` (its externalListingId), checked by the same schema and 21 rules as `POST /listings`: one refused object does not stop the others. `aktion aktionart="DELETE"` deletes; a VOLL transfer also deletes the listings of that provider it no longer names. At most 64 MiB (413 beyond), and 5 imports of an agency still processing (429 beyond). Follow the self link for the outcome of each object.
         *
         *     Scope: `clim:listings:create`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        post: operations["createOpenImmoImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openimmo-imports/{importId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an OpenImmo import (immogate extension)
         * @description PROCESSING until every object is applied, then DONE with one outcome per `immobilie` (created, updated, unchanged, deleted or refused, with the errors that refused it and the warnings of what the listing model has no place for, each naming the element of the file), or FAILED with the problem of a file refused as a whole.
         *
         *     Scope: `clim:listings:read`.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        get: operations["getOpenImmoImport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check the service
         * @description PASS with each component when the service and its database answer, FAIL with 503 otherwise. Needs no token.
         *
         *     User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * apiRequest
         * @description A listing as created or replaced by POST /listings and PUT /listings/{externalListingId}. Additional properties are refused at every level.
         * @example {
         *       "data": {
         *         "estateType": "APARTMENT",
         *         "estateSubType": "MULTI_STOREY",
         *         "distributionType": "RENT",
         *         "distributionSubType": "CLASSIC",
         *         "location": {
         *           "postalcode": "10827",
         *           "city": "Berlin",
         *           "street": "Hauptstraße",
         *           "houseNumber": "12",
         *           "country": "DE",
         *           "floorNumber": 2,
         *           "geometry": {
         *             "type": "Point",
         *             "coordinates": [
         *               13.3525,
         *               52.4862
         *             ]
         *           }
         *         },
         *         "prices": {
         *           "currency": "EUR",
         *           "rent": {
         *             "baseRent": {
         *               "amount": 1250
         *             },
         *             "totalRent": {
         *               "amount": 1530
         *             },
         *             "operatingCosts": {
         *               "amount": 200
         *             },
         *             "heatingCosts": {
         *               "amount": 80
         *             },
         *             "deposit": {
         *               "amount": 3750
         *             }
         *           },
         *           "brokerageFee": {
         *             "hasFee": false
         *           }
         *         },
         *         "spaces": {
         *           "residential": {
         *             "livingSpace": 85,
         *             "balconySpace": 6
         *           }
         *         },
         *         "structure": {
         *           "rooms": {
         *             "numberOfRooms": 3,
         *             "numberOfBedRooms": 2,
         *             "numberOfBathRooms": 1,
         *             "numberOfBalconies": 1
         *           },
         *           "building": {
         *             "numberOfFloors": 5,
         *             "cellar": "YES",
         *             "elevator": {
         *               "person": "YES"
         *             }
         *           }
         *         },
         *         "conditions": {
         *           "buildState": "WELL_KEPT",
         *           "ageState": "OLD",
         *           "yearOfConstruction": 1910
         *         },
         *         "management": {
         *           "availableFromDate": "2027-03-01"
         *         },
         *         "texts": {
         *           "headline": {
         *             "de": "Helle 3-Zimmer-Altbauwohnung mit Balkon in Schöneberg",
         *             "en": "Bright 3-room period apartment with balcony in Schöneberg"
         *           },
         *           "description": {
         *             "de": "3-Zimmer-Wohnung, 85 m², Kaltmiete 1.250 €, ab 01.03.2027, Hauptstraße 12, 10827 Berlin, 2. OG. Dielenböden, Wannenbad mit Fenster, Balkon zum ruhigen Hof."
         *           },
         *           "area": {
         *             "de": "U-Bahn Kleistpark (U7) in 5 Minuten, Einkaufsmöglichkeiten in der Akazienstraße."
         *           }
         *         }
         *       },
         *       "metadata": {
         *         "source": {
         *           "offererMarketingKey": "beispiel-immobilien",
         *           "offererEstateId": "BER-2027-0042"
         *         },
         *         "externalId": "W-0042",
         *         "softwareName": "MaklerCRM 4.2",
         *         "externalCustomerId": "K-100234",
         *         "isPublished": true
         *       },
         *       "contact": {
         *         "salutation": "MS",
         *         "firstName": "Anna",
         *         "lastName": "Schmidt",
         *         "company": "Beispiel Immobilien GmbH",
         *         "email": "anna.schmidt@example.com",
         *         "phone": "+49 30 1234567"
         *       }
         *     }
         */
        ClimApiRequest: {
            /** @description The listing content. */
            data: {
                /**
                 * @description Rule 6: must agree with estateSubType. PROJECT (a project classified) is not supported at present. Allowed pairs: HOUSE: APARTMENT_HOUSE, BUNGALOW, CASTLE, MANOR_HOUSE, CHALET, FARMHOUSE, FINCA, GARDEN_HOUSE, GITE, LIVING_AND_COMMERCIAL, MULTI_FAMILY_HOUSE, MOUNTAIN_HUT, RESIDENTIAL_COMPLEX, RUSTICO, SEMIDETACHED_HOUSE, SINGLE_FAMILY_HOUSE, SPECIAL_REAL_ESTATE, TERRACE_HOUSE, CORNER_TERRACE_HOUSE, END_TERRACE_HOUSE, MID_TERRACE_HOUSE, TOWN_HOUSE, VILLA, MANSION, PROVENCAL_FARMHOUSE; APARTMENT: MULTI_STOREY, FLATSHARING_ROOM, LOFT, PENTHOUSE, STUDIO, TERRACE, UNFINISHED_ATTIC_SPACE; PLOT: LIVING, COMMERCIAL, INDUSTRY, AGRICULTURE_FORESTRY, MIXED, LEISURE_FACILITY, COMMERCIAL_PARC, SPECIAL_USE, LAKESIDE_PROPERTY; OFFICE: SINGLE_OFFICE, OFFICE_SPACE, OFFICE_BUILDING, OFFICE_CENTRE, OFFICE_STORAGE_BUILDING, MEDICAL, MEDICAL_FLOOR, MEDICAL_BUILDING, LIVING_AND_COMMERCIAL_BUILDING, ATELIER, COWORKING, OPEN_SPACE, SHARED_OFFICE; TRADING: STORE, SHOWROOM_SPACE, SHOPPING_CENTRE, KIOSK, SALES_AREA; GASTRONOMY_HOTEL: CAFE_BAR_PUB, RESTAURANT, CLUB_DISCOTHEQUE, HOTEL, APART_HOTEL, LEISURE; STORAGE_PRODUCTION: WAREHOUSE_HALL, LOGISTICS_CENTER, PRODUCTION_HALL, GARAGE_REPAIR, OUTDOOR_SPACE, MISC_STORAGE; AGRICULTURE_FORESTRY: FARM_RANCH, AGRICULTURE_COMPANY, GARDENING, FORESTRY, WINERY, HUNTING, FISHING, RIDING, MISC_AGRICULTURE, ORCHARD; PARKING: OUTSIDE, STREET_PARKING, CARPORT, GARAGE, DOUBLE_GARAGE, DUPLEX, GARAGE_AREA, PARKING_AREA, CAR_PARK, UNDERGROUND_GARAGE, UNDERGROUND_PARKING_SPACE, BOAT_DOCK; SENIOR: LIVING, ASSISTED_LIVING, MEDICAL_CARE; PROJECT: MULTI_FAMILY_HOUSE, HOUSE_PARK, SINGLE_MULTI_HOUSES, MISCELLANEOUS; MISCELLANEOUS: (none).
                 * @enum {string}
                 */
                estateType: "HOUSE" | "APARTMENT" | "PLOT" | "OFFICE" | "TRADING" | "GASTRONOMY_HOTEL" | "STORAGE_PRODUCTION" | "AGRICULTURE_FORESTRY" | "PARKING" | "SENIOR" | "PROJECT" | "MISCELLANEOUS";
                /**
                 * @description Optional; rule 6: one of the sub-types of estateType. Allowed pairs: HOUSE: APARTMENT_HOUSE, BUNGALOW, CASTLE, MANOR_HOUSE, CHALET, FARMHOUSE, FINCA, GARDEN_HOUSE, GITE, LIVING_AND_COMMERCIAL, MULTI_FAMILY_HOUSE, MOUNTAIN_HUT, RESIDENTIAL_COMPLEX, RUSTICO, SEMIDETACHED_HOUSE, SINGLE_FAMILY_HOUSE, SPECIAL_REAL_ESTATE, TERRACE_HOUSE, CORNER_TERRACE_HOUSE, END_TERRACE_HOUSE, MID_TERRACE_HOUSE, TOWN_HOUSE, VILLA, MANSION, PROVENCAL_FARMHOUSE; APARTMENT: MULTI_STOREY, FLATSHARING_ROOM, LOFT, PENTHOUSE, STUDIO, TERRACE, UNFINISHED_ATTIC_SPACE; PLOT: LIVING, COMMERCIAL, INDUSTRY, AGRICULTURE_FORESTRY, MIXED, LEISURE_FACILITY, COMMERCIAL_PARC, SPECIAL_USE, LAKESIDE_PROPERTY; OFFICE: SINGLE_OFFICE, OFFICE_SPACE, OFFICE_BUILDING, OFFICE_CENTRE, OFFICE_STORAGE_BUILDING, MEDICAL, MEDICAL_FLOOR, MEDICAL_BUILDING, LIVING_AND_COMMERCIAL_BUILDING, ATELIER, COWORKING, OPEN_SPACE, SHARED_OFFICE; TRADING: STORE, SHOWROOM_SPACE, SHOPPING_CENTRE, KIOSK, SALES_AREA; GASTRONOMY_HOTEL: CAFE_BAR_PUB, RESTAURANT, CLUB_DISCOTHEQUE, HOTEL, APART_HOTEL, LEISURE; STORAGE_PRODUCTION: WAREHOUSE_HALL, LOGISTICS_CENTER, PRODUCTION_HALL, GARAGE_REPAIR, OUTDOOR_SPACE, MISC_STORAGE; AGRICULTURE_FORESTRY: FARM_RANCH, AGRICULTURE_COMPANY, GARDENING, FORESTRY, WINERY, HUNTING, FISHING, RIDING, MISC_AGRICULTURE, ORCHARD; PARKING: OUTSIDE, STREET_PARKING, CARPORT, GARAGE, DOUBLE_GARAGE, DUPLEX, GARAGE_AREA, PARKING_AREA, CAR_PARK, UNDERGROUND_GARAGE, UNDERGROUND_PARKING_SPACE, BOAT_DOCK; SENIOR: LIVING, ASSISTED_LIVING, MEDICAL_CARE; PROJECT: MULTI_FAMILY_HOUSE, HOUSE_PARK, SINGLE_MULTI_HOUSES, MISCELLANEOUS; MISCELLANEOUS: (none).
                 * @enum {string}
                 */
                estateSubType?: "APARTMENT_HOUSE" | "BUNGALOW" | "CASTLE" | "MANOR_HOUSE" | "CHALET" | "FARMHOUSE" | "FINCA" | "GARDEN_HOUSE" | "GITE" | "LIVING_AND_COMMERCIAL" | "MULTI_FAMILY_HOUSE" | "MOUNTAIN_HUT" | "RESIDENTIAL_COMPLEX" | "RUSTICO" | "SEMIDETACHED_HOUSE" | "SINGLE_FAMILY_HOUSE" | "SPECIAL_REAL_ESTATE" | "TERRACE_HOUSE" | "CORNER_TERRACE_HOUSE" | "END_TERRACE_HOUSE" | "MID_TERRACE_HOUSE" | "TOWN_HOUSE" | "VILLA" | "MANSION" | "PROVENCAL_FARMHOUSE" | "MULTI_STOREY" | "FLATSHARING_ROOM" | "LOFT" | "PENTHOUSE" | "STUDIO" | "TERRACE" | "UNFINISHED_ATTIC_SPACE" | "LIVING" | "COMMERCIAL" | "INDUSTRY" | "AGRICULTURE_FORESTRY" | "MIXED" | "LEISURE_FACILITY" | "COMMERCIAL_PARC" | "SPECIAL_USE" | "LAKESIDE_PROPERTY" | "SINGLE_OFFICE" | "OFFICE_SPACE" | "OFFICE_BUILDING" | "OFFICE_CENTRE" | "OFFICE_STORAGE_BUILDING" | "MEDICAL" | "MEDICAL_FLOOR" | "MEDICAL_BUILDING" | "LIVING_AND_COMMERCIAL_BUILDING" | "ATELIER" | "COWORKING" | "OPEN_SPACE" | "SHARED_OFFICE" | "STORE" | "SHOWROOM_SPACE" | "SHOPPING_CENTRE" | "KIOSK" | "SALES_AREA" | "CAFE_BAR_PUB" | "RESTAURANT" | "CLUB_DISCOTHEQUE" | "HOTEL" | "APART_HOTEL" | "LEISURE" | "WAREHOUSE_HALL" | "LOGISTICS_CENTER" | "PRODUCTION_HALL" | "GARAGE_REPAIR" | "OUTDOOR_SPACE" | "MISC_STORAGE" | "FARM_RANCH" | "AGRICULTURE_COMPANY" | "GARDENING" | "FORESTRY" | "WINERY" | "HUNTING" | "FISHING" | "RIDING" | "MISC_AGRICULTURE" | "ORCHARD" | "OUTSIDE" | "STREET_PARKING" | "CARPORT" | "GARAGE" | "DOUBLE_GARAGE" | "DUPLEX" | "GARAGE_AREA" | "PARKING_AREA" | "CAR_PARK" | "UNDERGROUND_GARAGE" | "UNDERGROUND_PARKING_SPACE" | "BOAT_DOCK" | "ASSISTED_LIVING" | "MEDICAL_CARE" | "HOUSE_PARK" | "SINGLE_MULTI_HOUSES" | "MISCELLANEOUS";
                /**
                 * @description Rule 7: must agree with distributionSubType. Allowed pairs: BUY: CLASSIC, NEW_BUILD_UNIT, NEW_BUILD_INVESTMENT_PRODUCT, LIFE_ANNUITY, BUSINESS_SALE_GOODWILL; RENT: CLASSIC, NEW_BUILD_UNIT, EMPTY, FURNISHED, TEMPORARY, VACATION, BUSINESS; COMPULSORY_AUCTION: CLASSIC, PARTITION_AUCTION; BUY_AUCTION: CLASSIC, ONLINE_AUCTION.
                 * @enum {string}
                 */
                distributionType: "BUY" | "RENT" | "COMPULSORY_AUCTION" | "BUY_AUCTION";
                /**
                 * @description Rule 7: one of the sub-types of distributionType. Allowed pairs: BUY: CLASSIC, NEW_BUILD_UNIT, NEW_BUILD_INVESTMENT_PRODUCT, LIFE_ANNUITY, BUSINESS_SALE_GOODWILL; RENT: CLASSIC, NEW_BUILD_UNIT, EMPTY, FURNISHED, TEMPORARY, VACATION, BUSINESS; COMPULSORY_AUCTION: CLASSIC, PARTITION_AUCTION; BUY_AUCTION: CLASSIC, ONLINE_AUCTION.
                 * @enum {string}
                 */
                distributionSubType: "CLASSIC" | "NEW_BUILD_UNIT" | "NEW_BUILD_INVESTMENT_PRODUCT" | "LIFE_ANNUITY" | "BUSINESS_SALE_GOODWILL" | "EMPTY" | "FURNISHED" | "TEMPORARY" | "VACATION" | "BUSINESS" | "PARTITION_AUCTION" | "ONLINE_AUCTION";
                /** @description Without street and house number the listing is placed by postal code (warning IMPRECISE_LOCATION). */
                location: {
                    postalcode: string;
                    city: string;
                    street?: string;
                    houseNumber?: string;
                    state?: string;
                    /** @description Country code, e.g. DE. */
                    country: string;
                    floorNumber?: number;
                    /** @description A GeoJSON Point. Without it the listing is placed by its address (warning IMPRECISE_LOCATION). */
                    geometry?: {
                        /** @enum {string} */
                        type: "Point";
                        /** @description Longitude, latitude (WGS 84), in this order as in GeoJSON. */
                        coordinates: number[];
                    };
                    /**
                     * @description Whether the street and house number are shown on the portal. Default true.
                     * @default true
                     */
                    isAddressShown?: boolean;
                    locationNote?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                };
                /** @description May be empty in a request; the rules say which amounts a distribution needs. */
                prices: {
                    /**
                     * @default EUR
                     * @enum {string}
                     */
                    currency?: "AED" | "AFN" | "ALL" | "AMD" | "ANG" | "AOA" | "ARS" | "AUD" | "AWG" | "AZN" | "BAM" | "BBD" | "BDT" | "BGN" | "BHD" | "BIF" | "BMD" | "BND" | "BOB" | "BOV" | "BRL" | "BSD" | "BTN" | "BWP" | "BYN" | "BZD" | "CAD" | "CDF" | "CHE" | "CHF" | "CHW" | "CLF" | "CLP" | "CNY" | "COP" | "COU" | "CRC" | "CUC" | "CUP" | "CVE" | "CZK" | "DJF" | "DKK" | "DOP" | "DZD" | "EGP" | "ERN" | "ETB" | "EUR" | "FJD" | "FKP" | "GBP" | "GEL" | "GHS" | "GIP" | "GMD" | "GNF" | "GTQ" | "GYD" | "HKD" | "HNL" | "HRK" | "HTG" | "HUF" | "IDR" | "ILS" | "INR" | "IQD" | "IRR" | "ISK" | "JMD" | "JOD" | "JPY" | "KES" | "KGS" | "KHR" | "KMF" | "KPW" | "KRW" | "KWD" | "KYD" | "KZT" | "LAK" | "LBP" | "LKR" | "LRD" | "LSL" | "LYD" | "MAD" | "MDL" | "MGA" | "MKD" | "MMK" | "MNT" | "MOP" | "MRU" | "MUR" | "MVR" | "MWK" | "MXN" | "MXV" | "MYR" | "MZN" | "NAD" | "NGN" | "NIO" | "NOK" | "NPR" | "NZD" | "OMR" | "PAB" | "PEN" | "PGK" | "PHP" | "PKR" | "PLN" | "PYG" | "QAR" | "RON" | "RSD" | "RUB" | "RWF" | "SAR" | "SBD" | "SCR" | "SDG" | "SEK" | "SGD" | "SHP" | "SLL" | "SOS" | "SRD" | "SSP" | "STN" | "SVC" | "SYP" | "SZL" | "THB" | "TJS" | "TMT" | "TND" | "TOP" | "TRY" | "TTD" | "TWD" | "TZS" | "UAH" | "UGX" | "USD" | "USN" | "UYI" | "UYU" | "UYW" | "UZS" | "VED" | "VES" | "VND" | "VUV" | "WST" | "XAF" | "XAG" | "XAU" | "XBA" | "XBB" | "XBC" | "XBD" | "XCD" | "XDR" | "XOF" | "XPD" | "XPF" | "XPT" | "XSU" | "XTS" | "XUA" | "XXX" | "YER" | "ZAR" | "ZMW" | "ZWL";
                    buy?: {
                        /** @description Purchase price. */
                        price?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Price of the parking space. */
                        parkingPrice?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                    };
                    /** @description Rules 17 and 18: a rent with distributionSubType CLASSIC, NEW_BUILD_UNIT or EMPTY needs baseRent, totalRent or lease amount greater than 0. */
                    rent?: {
                        /** @description Base rent (Kaltmiete) per month. */
                        baseRent?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Total rent (Warmmiete) per month. */
                        totalRent?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Lease (Pacht) per month. */
                        lease?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Operating costs (Nebenkosten) per month. */
                        operatingCosts?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Heating costs per month. */
                        heatingCosts?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Rent of the parking space per month. */
                        parkingRent?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Rental deposit (Kaution). */
                        deposit?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                    };
                    compulsoryAuction?: {
                        /** @description Market value (Verkehrswert). */
                        marketValue?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Minimum bid (geringstes Gebot); rule 19: amount greater than 0 for a COMPULSORY_AUCTION. */
                        minimumBid?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                        /** @description Starting price of the overbid session; rule 19: amount greater than 0 for a COMPULSORY_AUCTION. */
                        overbidSessionStartingPrice?: {
                            /** @description The amount in the listing currency. Rule 14: at least 0, below 9999999999999. */
                            amount?: number;
                            /** @description The VAT included in or added to the amount. Rule 14: at least 0, below 9999999999999. */
                            vatValue?: number;
                            /** @description The VAT rate. Rule 16: 0 to 100. */
                            vatPercent?: number;
                            isVatIncluded?: boolean;
                            /** @enum {string} */
                            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
                        };
                    };
                    brokerageFee?: {
                        /** @description Whether a brokerage fee is due. Rule 20: unless false, a BUY or RENT needs amount or priceNote. */
                        hasFee?: boolean;
                        /** @description The fee amount. Rule 14: at least 0, below 9999999999999. */
                        amount?: number;
                        /** @description The fee as a percentage of the price. Rule 16: 0 to 100. */
                        feePercentage?: number;
                        /** @enum {string} */
                        feeFor?: "BUYER_OR_TENANT" | "SELLER_OR_LANDLORD" | "SHARED";
                        isVatIncluded?: boolean;
                        priceNote?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                    };
                    /** @default true */
                    isPriceShown?: boolean;
                    priceNote?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                };
                /** @description Spaces in square metres (the German market); the residential ones grouped as in the classifieds. */
                spaces?: {
                    /** @description Usable floor space (Nutzfläche). Square metres; rule 12: at least 0, below 99999999. */
                    usableFloorSpace?: number;
                    /** @description Overall space. Square metres; rule 12: at least 0, below 99999999. */
                    overallSpace?: number;
                    /** @description Plot space. Square metres; rule 12: at least 0, below 99999999. */
                    plotSpace?: number;
                    /** @description Kitchen space. Square metres; rule 12: at least 0, below 99999999. */
                    kitchenSpace?: number;
                    /** @description Additional space. Square metres; rule 12: at least 0, below 99999999. */
                    additionalSpace?: number;
                    residential?: {
                        /** @description Living space (Wohnfläche). Square metres; rule 12: at least 0, below 99999999. */
                        livingSpace?: number;
                        /** @description Balcony space. Square metres; rule 12: at least 0, below 99999999. */
                        balconySpace?: number;
                        /** @description Terrace space. Square metres; rule 12: at least 0, below 99999999. */
                        terraceSpace?: number;
                        /** @description Cellar space. Square metres; rule 12: at least 0, below 99999999. */
                        cellarSpace?: number;
                        /** @description Garden space. Square metres; rule 12: at least 0, below 99999999. */
                        gardenSpace?: number;
                        /** @description Attic space. Square metres; rule 12: at least 0, below 99999999. */
                        atticSpace?: number;
                    };
                };
                structure?: {
                    rooms?: {
                        /** @description Rooms; halves allowed (2.5). Rule 13: at least 0, below 999999. */
                        numberOfRooms?: number;
                        /** @description Bedrooms. Rule 13: at least 0, below 999999. */
                        numberOfBedRooms?: number;
                        /** @description Bathrooms. Rule 13: at least 0, below 999999. */
                        numberOfBathRooms?: number;
                        /** @description Toilets. Rule 13: at least 0, below 999999. */
                        numberOfToilets?: number;
                        /** @description Balconies. Rule 13: at least 0, below 999999. */
                        numberOfBalconies?: number;
                        /** @description Terraces. Rule 13: at least 0, below 999999. */
                        numberOfTerraces?: number;
                    };
                    building?: {
                        /** @description Floors of the building. Rule 13: at least 0, below 999999. */
                        numberOfFloors?: number;
                        /** @enum {string} */
                        cellar?: "YES" | "NO" | "PART" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        barrierFree?: "YES" | "NO" | "NOT_APPLICABLE";
                        elevator?: {
                            /** @enum {string} */
                            person?: "YES" | "NO" | "NOT_APPLICABLE";
                            /** @enum {string} */
                            freight?: "YES" | "NO" | "NOT_APPLICABLE";
                        };
                    };
                    /** @description Parking lots (rule 13). */
                    parkingLots?: {
                        /** @description Outside parking lots. Rule 13: at least 0, below 999999. */
                        outside?: number;
                        /** @description Carports. Rule 13: at least 0, below 999999. */
                        carport?: number;
                        /** @description Garages. Rule 13: at least 0, below 999999. */
                        garage?: number;
                        /** @description Duplex parking lots. Rule 13: at least 0, below 999999. */
                        duplex?: number;
                        /** @description Underground parking lots. Rule 13: at least 0, below 999999. */
                        underground?: number;
                    };
                };
                conditions?: {
                    /** @enum {string} */
                    buildState?: "FIRST_TIME_USE" | "FIRST_TIME_USE_AFTER_REFURBISHMENT" | "MINT_CONDITION" | "MODERNISED" | "REFURBISHED" | "FULLY_RENOVATED" | "PARTLY_RENOVATED" | "NEED_OF_RENOVATION" | "WELL_KEPT" | "NEGOTIABLE" | "RIPE_FOR_DEMOLITION" | "PROJECTED" | "NO_INFORMATION" | "RESTRUCTURED";
                    /** @enum {string} */
                    ageState?: "OLD" | "NEW";
                    yearOfConstruction?: number;
                    lastModernisation?: number;
                    /** @description Start of construction; rule 15: after 1900-01-01 for a new build. Full date (rule 4), e.g. 2027-03-01. */
                    buildingStartDate?: string;
                };
                management?: {
                    /** @description Available from; rule 15: after 1900-01-01 for a new build. Full date (rule 4), e.g. 2027-03-01. */
                    availableFromDate?: string;
                    isImmediatelyAvailable?: boolean;
                    isRented?: boolean;
                    isForInvestment?: boolean;
                };
                texts?: {
                    headline?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                    description?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                    features?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                    area?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                    extendedInformation?: components["schemas"]["ClimApiRequest-MultiLingualText"];
                };
                links?: {
                    externalLinks?: {
                        /** @description The link. Rule 5: a valid http(s) URL. */
                        url: string;
                        /** @enum {string} */
                        urlType?: "MAP" | "MOVIE" | "PANORAMA" | "REVOCATION_INSTRUCTION" | "OFFERER_DETAIL_PAGE";
                        /** @description Title of the link. Rule 21: no HTML, URLs, emails or phone numbers. */
                        title?: string;
                    }[];
                    virtualTours?: {
                        /** @description The tour. Rule 5: a valid http(s) URL. */
                        url: string;
                        provider?: string;
                        /** @description Title of the tour. Rule 21: no HTML, URLs, emails or phone numbers. */
                        title?: string;
                    }[];
                };
                /** @description Project classifieds only (not supported at present): the project. Rule 10. */
                externalProjectId?: string;
                /**
                 * @description Project classifieds only (not supported at present); rule 8. Allowed pairs: APARTMENT: MULTI_FAMILY_HOUSE; HOUSE: HOUSE_PARK, SINGLE_MULTI_HOUSES; MISCELLANEOUS: MISCELLANEOUS.
                 * @enum {string}
                 */
                projectEstateType?: "APARTMENT" | "HOUSE" | "MISCELLANEOUS";
                /**
                 * @description Project classifieds only; rule 8. Allowed pairs: APARTMENT: MULTI_FAMILY_HOUSE; HOUSE: HOUSE_PARK, SINGLE_MULTI_HOUSES; MISCELLANEOUS: MISCELLANEOUS.
                 * @enum {string}
                 */
                projectEstateSubType?: "MULTI_FAMILY_HOUSE" | "HOUSE_PARK" | "SINGLE_MULTI_HOUSES" | "MISCELLANEOUS";
                /**
                 * @description Project classifieds only (not supported at present); rule 9. Allowed pairs: BUY: NEW_BUILD_PROJECT, NEW_BUILD_INVESTMENT_PRODUCT; RENT: NEW_BUILD_PROJECT.
                 * @enum {string}
                 */
                projectDistributionType?: "BUY" | "RENT";
                /**
                 * @description Project classifieds only; rule 9. Allowed pairs: BUY: NEW_BUILD_PROJECT, NEW_BUILD_INVESTMENT_PRODUCT; RENT: NEW_BUILD_PROJECT.
                 * @enum {string}
                 */
                projectDistributionSubType?: "NEW_BUILD_PROJECT" | "NEW_BUILD_INVESTMENT_PRODUCT";
            };
            /** @description About the listing rather than the property. The mandatory members are checked by rule 10, which names each missing one. */
            metadata: {
                /** @description Who offers the listing and under which identifier. */
                source?: {
                    /** @description The offerer (agency) key at the portal. Mandatory (rule 10). */
                    offererMarketingKey?: string;
                    /** @description The client's own identifier of the listing: its externalListingId in paths. Mandatory (rule 10); unique per agency and environment. */
                    offererEstateId?: string;
                    /** @description Project classifieds only (not supported at present): the group of units. Rule 10. */
                    offererEstateGroupId?: string;
                };
                /** @description The listing number shown to seekers (Objektnummer). Mandatory (rule 10). */
                externalId?: string;
                /** @description The software that sends the listing (e.g. the CRM), with its version. Mandatory (rule 10). */
                softwareName?: string;
                /** @description The agency's customer number at that software vendor. Mandatory (rule 10). */
                externalCustomerId?: string;
                /**
                 * @description false stores the listing without publishing it: it is served to its agency (marked not published) but not shown on the portal.
                 * @default true
                 */
                isPublished?: boolean;
            };
            /** @description Media uploaded beforehand through POST /medias, in display order. */
            media?: {
                /** @description The externalMediaId given to POST /medias. */
                externalMediaId: string;
                /**
                 * @default PICTURE
                 * @enum {string}
                 */
                mediaType?: "PICTURE" | "VIRTUAL_TOUR" | "PANORAMA" | "VIDEO";
                /** @enum {string} */
                category?: "BALCONY" | "BASEMENT" | "BATHROOM" | "BEDROOM" | "CHILDREN_ROOM" | "CORRIDOR" | "COVER_PICTURE" | "ENERGY_CERTIFICATE" | "ENTRY_HALL" | "FLOOR_PLAN" | "GARAGE" | "GARDEN" | "HOUSE_VIEW" | "INDOOR" | "KITCHEN" | "LIVING_ROOM" | "LOGO" | "MAP" | "MISC" | "OUTDOOR" | "OUTDOOR_BUILDING" | "OUTDOOR_HOUSE" | "OUTSIDE_VIEW" | "POOL" | "PROPERTY_INFORMATION" | "SCHEMA" | "SITE_PLAN" | "STAIRS" | "STORAGE_ROOM" | "SURROUNDING" | "TERRACE" | "TOILETS" | "VERANDA" | "VIEW_FROM_PROPERTY" | "WORK_ROOM";
                /** @description Caption. Rule 21: no HTML, URLs, emails or phone numbers. */
                title?: string;
            }[];
            /** @description The contact person for seekers. */
            contact?: {
                /** @enum {string} */
                salutation?: "MR" | "MS" | "OTHER";
                firstName?: string;
                lastName?: string;
                company?: string;
                /** @description Rule 2: a valid email address. */
                email?: string;
                /** @description Rule 3: e.g. +49 30 1234567. */
                phone?: string;
                /** @description Rule 3: e.g. +49 171 1234567. */
                mobilePhone?: string;
                /** @description Rule 3. */
                fax?: string;
                /** @description The contact person or agency homepage. Rule 5: a valid http(s) URL. */
                homepage?: string;
            };
        };
        /** @description Text keyed by ISO 639-1 language code, e.g. {"de": "...", "en": "..."}. Rule 1: each at most 3999 characters; rule 21: no HTML, URLs, emails or phone numbers. */
        "ClimApiRequest-MultiLingualText": {
            aa?: string;
            ab?: string;
            ae?: string;
            af?: string;
            ak?: string;
            am?: string;
            an?: string;
            ar?: string;
            as?: string;
            av?: string;
            ay?: string;
            az?: string;
            ba?: string;
            be?: string;
            bg?: string;
            bh?: string;
            bi?: string;
            bm?: string;
            bn?: string;
            bo?: string;
            br?: string;
            bs?: string;
            ca?: string;
            ce?: string;
            ch?: string;
            co?: string;
            cr?: string;
            cs?: string;
            cu?: string;
            cv?: string;
            cy?: string;
            da?: string;
            de?: string;
            dv?: string;
            dz?: string;
            ee?: string;
            el?: string;
            en?: string;
            eo?: string;
            es?: string;
            et?: string;
            eu?: string;
            fa?: string;
            ff?: string;
            fi?: string;
            fj?: string;
            fo?: string;
            fr?: string;
            fy?: string;
            ga?: string;
            gd?: string;
            gl?: string;
            gn?: string;
            gu?: string;
            gv?: string;
            ha?: string;
            he?: string;
            hi?: string;
            ho?: string;
            hr?: string;
            ht?: string;
            hu?: string;
            hy?: string;
            hz?: string;
            ia?: string;
            id?: string;
            ie?: string;
            ig?: string;
            ii?: string;
            ik?: string;
            io?: string;
            is?: string;
            it?: string;
            iu?: string;
            ja?: string;
            jv?: string;
            ka?: string;
            kg?: string;
            ki?: string;
            kj?: string;
            kk?: string;
            kl?: string;
            km?: string;
            kn?: string;
            ko?: string;
            kr?: string;
            ks?: string;
            ku?: string;
            kv?: string;
            kw?: string;
            ky?: string;
            la?: string;
            lb?: string;
            lg?: string;
            li?: string;
            ln?: string;
            lo?: string;
            lt?: string;
            lu?: string;
            lv?: string;
            mg?: string;
            mh?: string;
            mi?: string;
            mk?: string;
            ml?: string;
            mn?: string;
            mr?: string;
            ms?: string;
            mt?: string;
            my?: string;
            na?: string;
            nb?: string;
            nd?: string;
            ne?: string;
            ng?: string;
            nl?: string;
            nn?: string;
            no?: string;
            nr?: string;
            nv?: string;
            ny?: string;
            oc?: string;
            oj?: string;
            om?: string;
            or?: string;
            os?: string;
            pa?: string;
            pi?: string;
            pl?: string;
            ps?: string;
            pt?: string;
            qu?: string;
            rm?: string;
            rn?: string;
            ro?: string;
            ru?: string;
            rw?: string;
            sa?: string;
            sc?: string;
            sd?: string;
            se?: string;
            sg?: string;
            si?: string;
            sk?: string;
            sl?: string;
            sm?: string;
            sn?: string;
            so?: string;
            sq?: string;
            sr?: string;
            ss?: string;
            st?: string;
            su?: string;
            sv?: string;
            sw?: string;
            ta?: string;
            te?: string;
            tg?: string;
            th?: string;
            ti?: string;
            tk?: string;
            tl?: string;
            tn?: string;
            to?: string;
            tr?: string;
            ts?: string;
            tt?: string;
            tw?: string;
            ty?: string;
            ug?: string;
            uk?: string;
            ur?: string;
            uz?: string;
            ve?: string;
            vi?: string;
            vo?: string;
            wa?: string;
            wo?: string;
            xh?: string;
            yi?: string;
            yo?: string;
            za?: string;
            zh?: string;
            zu?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listListingEvents: {
        parameters: {
            query?: {
                /** @description A `cursor` or `next` this feed returned; absent: from the oldest event kept. */
                after?: string;
                /** @description Events per page. */
                limit?: number;
                /** @description Comma-separated event types to keep; absent: all. */
                types?: string;
                /** @description Seconds to wait for an event when there is none yet (long polling); 0 answers at once. */
                wait?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events, possibly empty. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: {
                            /**
                             * Format: uuid
                             * @description The event id; also the webhook-id of the webhooks that announce it.
                             */
                            id: string;
                            type: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description What the event is about: a classifiedId, a leadId or an externalListingId. */
                            subject: string;
                            data: {
                                [key: string]: unknown;
                            };
                            /** @description Opaque: `after` resumes just after this event. */
                            cursor: string;
                        }[];
                        /** @description The cursor to read on from: the last event’s, or the `after` given when there was none. */
                        next: string;
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    getListings: {
        parameters: {
            query?: {
                /** @description The nextPageToken of the previous page; omit it for the first page */
                nextPageToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of externalListingIds. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Oldest first, at most 100 a page */
                        externalListingIds: string[];
                        /** @description Send it as nextPageToken for the next page; null on the last page */
                        nextPageToken: string | null;
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    createListing: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClimApiRequest"];
            };
        };
        responses: {
            /** @description Stored (the contract calls this answer Created; accept any 2xx). */
            201: {
                headers: {
                    /** @description The listing */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description Identifies this write request
                         */
                        requestId: string;
                        /**
                         * Format: uuid
                         * @description The portal identifier of the listing
                         */
                        listingId: string;
                        /** @description The offererEstateId the listing was created with */
                        externalListingId: string;
                        /** @description Non-blocking findings: the listing was stored all the same */
                        warnings: {
                            type: string;
                            message: string;
                        }[];
                        links: {
                            /** @enum {string} */
                            rel: "self";
                            /**
                             * Format: uri
                             * @description GET it to read the listing back
                             */
                            href: string;
                        }[];
                    };
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    getListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The offererEstateId the listing was created with */
                externalListingId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The listing. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The last accepted apiRequest plus the service-side members */
                        listing: {
                            data: components["schemas"]["ClimApiRequest"]["data"];
                            metadata: components["schemas"]["ClimApiRequest"]["metadata"];
                            media?: components["schemas"]["ClimApiRequest"]["media"];
                            contact?: components["schemas"]["ClimApiRequest"]["contact"];
                            /**
                             * Format: uuid
                             * @description The portal identifier of the listing
                             */
                            listingId: string;
                            /** @description The offererEstateId the listing was created with */
                            externalListingId: string;
                            /** @description false: stored and served to its agency, not published on the portal */
                            isPublished: boolean;
                            /** Format: date-time */
                            creationDate: string;
                            /**
                             * Format: date-time
                             * @description The last write (create or update); sandbox listings are deleted 90 days after it
                             */
                            lastUpdateDate: string;
                        };
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    updateListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The offererEstateId the listing was created with */
                externalListingId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClimApiRequest"];
            };
        };
        responses: {
            /** @description Stored. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description Identifies this write request
                         */
                        requestId: string;
                        /**
                         * Format: uuid
                         * @description The portal identifier of the listing
                         */
                        listingId: string;
                        /** @description The offererEstateId the listing was created with */
                        externalListingId: string;
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    deleteListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The offererEstateId the listing was created with */
                externalListingId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description Identifies this write request
                         */
                        requestId: string;
                        /**
                         * Format: uuid
                         * @description The portal identifier of the listing
                         */
                        listingId: string;
                        /** @description The offererEstateId the listing was created with */
                        externalListingId: string;
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    validateListing: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClimApiRequest"];
            };
        };
        responses: {
            /** @description The report: errors and warnings. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A POST of this body would be answered 201 */
                        valid: boolean;
                        /** @description What a POST would be refused for (400): the schema, the 21 rules, an externalListingId in use */
                        errors: {
                            name: string;
                            reason: string;
                        }[];
                        /** @description What a POST would warn of */
                        warnings: {
                            type: string;
                            message: string;
                        }[];
                    };
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    createMedia: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Your identifier of the media, unique per agency and environment; a listing references the media by it (media[].externalMediaId) */
                    externalMediaId: string;
                    /** @description The file's name; its extension gives the Content-Type the upload must carry: jpg image/jpeg, jpeg image/jpeg, png image/png, gif image/gif, webp image/webp, pdf application/pdf, mp4 video/mp4 */
                    fileName: string;
                };
            };
        };
        responses: {
            /** @description The upload URL. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        externalMediaId: string;
                        /**
                         * Format: uri
                         * @description PUT the file's bytes here within 60 seconds, with the Content-Type of its extension; one upload, at most 41943040 bytes
                         */
                        presignedURL: string;
                    };
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    listOpenImmoImports: {
        parameters: {
            query?: {
                /** @description The nextPageToken of the previous page; omit it for the first page */
                nextPageToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of imports. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        imports: {
                            /**
                             * Format: uuid
                             * @description Identifies the import: GET it at the self link
                             */
                            importId: string;
                            /**
                             * @description PROCESSING until the worker has applied every object; FAILED when the file was refused as a whole
                             * @enum {string}
                             */
                            status: "PROCESSING" | "DONE" | "FAILED";
                            /**
                             * @description uebertragung/@umfang, once read
                             * @enum {string}
                             */
                            umfang?: "VOLL" | "TEIL";
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            finishedAt?: string;
                            sizeBytes: number;
                            /** @description One outcome per immobilie, in document order, then the listings a VOLL transfer deleted */
                            objects: {
                                /** @description verwaltung_techn/objektnr_extern: the listing’s externalListingId */
                                objektnrExtern: string | null;
                                /** @description The immobilie element, or the listing a VOLL transfer deleted */
                                path: string;
                                /** @enum {string} */
                                action: "created" | "updated" | "unchanged" | "deleted" | "refused";
                                /** @description The listing written or deleted: GET {root}/listings/{externalListingId} */
                                externalListingId?: string;
                                /** Format: uuid */
                                listingId?: string;
                                /** @description Why the object was refused */
                                errors?: {
                                    /** @description The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz */
                                    path: string;
                                    /** @description What is wrong, in the words of the listing API */
                                    reason: string;
                                }[];
                                /** @description What was kept out: elements the listing model has no place for, attachments not stored */
                                warnings?: {
                                    /** @description The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz */
                                    path: string;
                                    /** @description What is wrong, in the words of the listing API */
                                    reason: string;
                                }[];
                            }[];
                            /** @description What the file carries outside its objects that the listings have no place for (the provider’s logo, imprint, …) */
                            warnings?: {
                                /** @description The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz */
                                path: string;
                                /** @description What is wrong, in the words of the listing API */
                                reason: string;
                            }[];
                            problem?: {
                                status: number;
                                title: string;
                                detail: string;
                            };
                        }[];
                        nextPageToken: string | null;
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    createOpenImmoImport: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/zip": string;
                "application/xml": string;
            };
        };
        responses: {
            /** @description Stored: the import runs; GET its self link. */
            202: {
                headers: {
                    /** @description The import */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description Identifies the import: GET it at the self link
                         */
                        importId: string;
                        links: {
                            /** @enum {string} */
                            rel: "self";
                            /**
                             * Format: uri
                             * @description GET it to follow the import
                             */
                            href: string;
                        }[];
                    };
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    getOpenImmoImport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The importId the POST answered */
                importId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The import. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description Identifies the import: GET it at the self link
                         */
                        importId: string;
                        /**
                         * @description PROCESSING until the worker has applied every object; FAILED when the file was refused as a whole
                         * @enum {string}
                         */
                        status: "PROCESSING" | "DONE" | "FAILED";
                        /**
                         * @description uebertragung/@umfang, once read
                         * @enum {string}
                         */
                        umfang?: "VOLL" | "TEIL";
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        finishedAt?: string;
                        sizeBytes: number;
                        /** @description One outcome per immobilie, in document order, then the listings a VOLL transfer deleted */
                        objects: {
                            /** @description verwaltung_techn/objektnr_extern: the listing’s externalListingId */
                            objektnrExtern: string | null;
                            /** @description The immobilie element, or the listing a VOLL transfer deleted */
                            path: string;
                            /** @enum {string} */
                            action: "created" | "updated" | "unchanged" | "deleted" | "refused";
                            /** @description The listing written or deleted: GET {root}/listings/{externalListingId} */
                            externalListingId?: string;
                            /** Format: uuid */
                            listingId?: string;
                            /** @description Why the object was refused */
                            errors?: {
                                /** @description The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz */
                                path: string;
                                /** @description What is wrong, in the words of the listing API */
                                reason: string;
                            }[];
                            /** @description What was kept out: elements the listing model has no place for, attachments not stored */
                            warnings?: {
                                /** @description The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz */
                                path: string;
                                /** @description What is wrong, in the words of the listing API */
                                reason: string;
                            }[];
                        }[];
                        /** @description What the file carries outside its objects that the listings have no place for (the provider’s logo, imprint, …) */
                        warnings?: {
                            /** @description The element (or attribute, after @) of the file, e.g. /openimmo/anbieter[1]/immobilie[2]/geo/plz */
                            path: string;
                            /** @description What is wrong, in the words of the listing API */
                            reason: string;
                        }[];
                        problem?: {
                            status: number;
                            title: string;
                            detail: string;
                        };
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every component passes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description PASS when every component passes
                         * @enum {string}
                         */
                        status: "PASS" | "FAIL";
                        components: {
                            name: string;
                            /** @enum {string} */
                            status: "PASS" | "FAIL";
                        }[];
                    };
                };
            };
            /** @description A component fails. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description PASS when every component passes
                         * @enum {string}
                         */
                        status: "PASS" | "FAIL";
                        components: {
                            name: string;
                            /** @enum {string} */
                            status: "PASS" | "FAIL";
                        }[];
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
            /** @description A problem (RFC 7807) */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": {
                        type: string;
                        title: string;
                        status: number;
                        detail: string;
                        /** @description The traceparent of the request */
                        instance: string;
                        errors?: {
                            name: string;
                            reason: string;
                        }[];
                        /** @enum {string} */
                        errorSource?: "body" | "requestParameter" | "header" | "contentType";
                    };
                };
            };
        };
    };
}
