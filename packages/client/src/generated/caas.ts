/*
 * Generated from the OpenAPI document immogate serves at /caas/v4/openapi.json by
 * `npm run generate -w @immogate/client`: do not edit (a test fails when it drifts from the served document).
 */
export interface paths {
    "/classifieds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List classifieds
         * @description The live classifieds of the agency, newest first, each with its media and classifiedId, at most 250 a page: pass the `nextToken` of an answer to continue. `offererEstateId` finds the classified with your identifier.
         *
         *     Scope: `caas:classifieds:read`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        get: operations["getClassifieds"];
        put?: never;
        /**
         * Create a classified
         * @description Submits a classified with its media. The body is checked at once: format (unknown members are refused), an `offererEstateId` already used by a live classified of the agency, a media URL already sent for another classified, contact details given both in `data.contact` and under `specific`. A refusal names every failing field. An accepted body is answered 202 with the new classifiedId, the link to its statuses and an ETag; the media are downloaded and the portals decide afterwards.
         *
         *     Scope: `caas:classifieds:create`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        post: operations["createClassified"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/classifieds/{classifiedId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a classified
         * @description The classified as last written, with its media and classifiedId. Its `ETag` is the current revision: send it as `If-Match` with a PUT to replace only what you read, or as `If-None-Match` to be answered 304 while nothing changed. A deleted classified, another agency's or the other environment's, is a 404.
         *
         *     Scope: `caas:classifieds:read`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        get: operations["GetClassified"];
        /**
         * Replace a classified
         * @description Sends the whole classified again (a PUT replaces, it does not merge), checked as a creation is. Media are matched by URL: a URL kept is not downloaded again, a new one is, a missing one is removed; their order is the display order. With `If-Match`, a revision other than the current one is answered 412 and nothing changes. A body equal to the current one is acknowledged and recorded as UPDATED without processing.
         *
         *     Scope: `caas:classifieds:update`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        put: operations["updateClassified"];
        post?: never;
        /**
         * Delete a classified
         * @description Withdraws the classified and its media from every portal. Acknowledged with 202; once its DELETED status is recorded, reading it is a 404.
         *
         *     Scope: `caas:classifieds:delete`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        delete: operations["deleteClassified"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/classifieds/{classifiedId}/statuses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a classified's statuses
         * @description Every step of every write, newest first: RECEIVED when it was acknowledged, CREATING, UPDATING or DELETING while it is checked, then for the portals the outcome: CREATED, UPDATED or DELETED (`_WITH_MEDIA_ERROR` when some media could not be used, each named in mediaStatuses with a reason) or `_FAILED` with the broken rules in subStatusDetails. `filter=latest` keeps the latest revision; `status` and `portal` may be repeated.
         *
         *     Scope: `caas:classifieds:read`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        get: operations["getClassifiedStatuses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Subscribe to status webhooks
         * @description Registers where each new status of the agency's classifieds is POSTed, optionally for some statuses only (CREATED and UPDATED include their `_WITH_MEDIA_ERROR` forms). It replaces an earlier subscription of the same client; statuses not delivered yet follow it to the new URL and key. Give a `secret` to verify the signatures: without one, immogate signs with a key of its own. The callback documents the request and how to verify it.
         *
         *     Scope: `caas:classifieds:*`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        put: operations["createSubscriptionToWebhook"];
        post?: never;
        /**
         * Unsubscribe from status webhooks
         * @description Ends the calling client's subscription; 404 when it has none.
         *
         *     Scope: `caas:classifieds:*`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        delete: operations["deleteSubscriptionToWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/classifieds/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a classified without sending it (immogate extension)
         * @description Checks a classified as `POST /classifieds` and processing would, and writes nothing: the format (every error, as a 400 would list it), a classified or media URL that is already there, and the business rules of every portal, those the body lists (`requested`) and the others. `valid` is true when a POST would be acknowledged and accepted on every portal it asks for. The console’s Try a payload calls it. At most 60 a minute per client and environment by default (VALIDATIONS_PER_MINUTE of the server), the console’s calls included; beyond, 429 with Retry-After.
         *
         *     Scope: `caas:classifieds:create`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        post: operations["validateClassified"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the event feed (immogate extension)
         * @description What happened to your agency in this environment, oldest first, in commit order: `classified.status`. Pass the `next` of a page as `after` to read on; a follower never misses an event, even of transactions that commit out of order. With `wait` (at most 30 seconds) an empty answer waits until an event exists. Events are kept as long as webhook deliveries (DELIVERY_RETENTION_DAYS of the server); an `after` older than that is answered 410 with the `oldestCursor` to resume from.
         *
         *     Scope: `caas:classifieds:read`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        get: operations["listClassifiedEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/test-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to the status webhook (immogate extension)
         * @description POSTs a realistic status of a made-up classified to `{url}/classifieds/{classifiedId}/statuses` of your subscription, signed with its secret, as any status is; its delivery, marked as a test, shows every attempt in the console. At most 10 a minute per subscription by default (TEST_EVENTS_PER_MINUTE of the server); beyond, 429 with Retry-After.
         *
         *     Scope: `caas:classifieds:*`.
         *
         *     User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl.
         */
        post: operations["sendWebhookTestEvent"];
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
        Webhook: {
            /** Format: url */
            url: string;
            statuses?: ("RECEIVED" | "RECEIVING" | "RECEIVING_FAILED" | "CREATING" | "CREATED" | "CREATING_FAILED" | "UPDATING" | "UPDATED" | "UPDATING_FAILED" | "DELETING" | "DELETED" | "DELETING_FAILED")[];
            /** @description immogate extension: the key of the Standard Webhooks signature of each delivery. Generated when absent. */
            secret?: string;
        };
        ClassifiedStatus: {
            portals: ("SL" | "BUCOM" | "BD" | "SLC" | "SLN")[];
            /** @enum {string} */
            status: "RECEIVING" | "RECEIVED" | "RECEIVING_FAILED" | "CREATING" | "CREATED" | "CREATED_WITH_MEDIA_ERROR" | "CREATING_FAILED" | "UPDATING" | "UPDATED" | "UPDATED_WITH_MEDIA_ERROR" | "UPDATING_FAILED" | "DELETING" | "DELETED" | "DELETING_FAILED";
            message: string;
            /** @enum {string} */
            subStatus?: "RECEIVING_POST" | "RECEIVED_POST" | "RECEIVING_FAILED_POST" | "RECEIVING_PUT" | "RECEIVED_PUT" | "RECEIVING_FAILED_PUT" | "RECEIVING_DELETE" | "RECEIVED_DELETE" | "RECEIVING_FAILED_DELETE";
            subStatusDetails?: string;
            /** Format: date-time */
            statusDate: string;
            mediaStatuses?: {
                url: string;
                /** @enum {string} */
                status: "CREATED" | "UPDATED" | "CREATING_FAILED" | "DOWNLOADING_FAILED";
                /** @description Why a failed media could not be used: DNS, address policy, timeout, HTTP status, content type, size */
                reason?: string;
            }[];
            /**
             * @description The status's stage of the lifecycle: processed (received), analyzed (being checked), accepted or rejected
             * @enum {string}
             */
            stage?: "processed" | "analyzed" | "accepted" | "rejected";
        };
        ClassifiedStatusInternal: {
            statusId: string;
            classifiedId: string;
            customerId: string;
            /** Format: date-time */
            creationDate: string;
            revision: number;
        } & components["schemas"]["ClassifiedStatus"];
        AvivClassified: {
            portals: ("SL" | "BUCOM" | "BD" | "SLC" | "SLN")[];
            data: components["schemas"]["RealEstate"];
            specific?: components["schemas"]["Specific"];
            media?: components["schemas"]["MediaArray"];
        };
        RealEstate: {
            estateType: components["schemas"]["EstateType"];
            estateSubType?: {
                /** @enum {string} */
                house?: "APARTMENT_HOUSE" | "BUNGALOW" | "CASTLE" | "MANOR_HOUSE" | "CHALET" | "FARMHOUSE" | "FINCA" | "GARDEN_HOUSE" | "GITE" | "LIVING_AND_COMMERCIAL" | "MULTI_FAMILY_HOUSE" | "MOUNTAIN_HUT" | "RESIDENTIAL_COMPLEX" | "RUSTICO" | "SEMIDETACHED_HOUSE" | "SINGLE_FAMILY_HOUSE" | "SPECIAL_REAL_ESTATE" | "TERRACE_HOUSE" | "CORNER_TERRACE_HOUSE" | "END_TERRACE_HOUSE" | "MID_TERRACE_HOUSE" | "TOWN_HOUSE" | "VILLA" | "MANSION" | "PROVENCAL_FARMHOUSE";
                /** @enum {string} */
                apartment?: "MULTI_STOREY" | "FLATSHARING_ROOM" | "LOFT" | "PENTHOUSE" | "STUDIO" | "TERRACE" | "UNFINISHED_ATTIC_SPACE";
                /** @enum {string} */
                plot?: "LIVING" | "COMMERCIAL" | "INDUSTRY" | "AGRICULTURE_FORESTRY" | "MIXED" | "LEISURE_FACILITY" | "COMMERCIAL_PARC" | "SPECIAL_USE" | "LAKESIDE_PROPERTY";
                /** @enum {string} */
                office?: "SINGLE_OFFICE" | "OFFICE_SPACE" | "OFFICE_BUILDING" | "OFFICE_CENTRE" | "OFFICE_STORAGE_BUILDING" | "MEDICAL" | "MEDICAL_FLOOR" | "MEDICAL_BUILDING" | "LIVING_AND_COMMERCIAL_BUILDING" | "ATELIER" | "COWORKING" | "OPEN_SPACE" | "SHARED_OFFICE";
                /** @enum {string} */
                trading?: "STORE" | "SHOWROOM_SPACE" | "SHOPPING_CENTRE" | "KIOSK" | "SALES_AREA";
                /** @enum {string} */
                gastronomyHotel?: "CAFE_BAR_PUB" | "RESTAURANT" | "CLUB_DISCOTHEQUE" | "HOTEL" | "APART_HOTEL" | "LEISURE";
                /** @enum {string} */
                storageProduction?: "WAREHOUSE_HALL" | "LOGISTICS_CENTER" | "PRODUCTION_HALL" | "GARAGE_REPAIR" | "OUTDOOR_SPACE" | "MISC_STORAGE";
                /** @enum {string} */
                agricultureForestry?: "FARM_RANCH" | "AGRICULTURE_COMPANY" | "GARDENING" | "FORESTRY" | "WINERY" | "HUNTING" | "FISHING" | "RIDING" | "MISC_AGRICULTURE" | "ORCHARD";
                /** @enum {string} */
                parking?: "OUTSIDE" | "STREET_PARKING" | "CARPORT" | "GARAGE" | "DOUBLE_GARAGE" | "DUPLEX" | "GARAGE_AREA" | "PARKING_AREA" | "CAR_PARK" | "UNDERGROUND_GARAGE" | "UNDERGROUND_PARKING_SPACE" | "BOAT_DOCK";
                /** @enum {string} */
                senior?: "LIVING" | "ASSISTED_LIVING" | "MEDICAL_CARE";
                /** @enum {string} */
                project?: "MULTI_FAMILY_HOUSE" | "HOUSE_PARK" | "SINGLE_MULTI_HOUSES" | "MISCELLANEOUS";
            };
            /** @enum {string} */
            distributionType: "BUY" | "RENT" | "COMPULSORY_AUCTION" | "BUY_AUCTION";
            location: {
                postalcode: string;
                city: string;
                street: string;
                houseNumber: string;
                unit?: string;
                staircase?: string;
                floorNumber?: number;
                entrance?: string;
                state?: string;
                country: string;
                geometry?: {
                    /** @enum {string} */
                    type?: "Point";
                    coordinates?: number[];
                } | {
                    /** @enum {string} */
                    type?: "LineString";
                    coordinates?: number[][];
                } | {
                    /** @enum {string} */
                    type?: "Polygon";
                    coordinates?: number[][][];
                } | {
                    /** @enum {string} */
                    type?: "MultiPoint";
                    coordinates?: number[][];
                } | {
                    /** @enum {string} */
                    type?: "MultiLineString";
                    coordinates?: number[][][];
                } | {
                    /** @enum {string} */
                    type?: "MultiPolygon";
                    coordinates?: number[][][][];
                };
                locationNote?: components["schemas"]["MultiLingualText"];
                /** @deprecated */
                showAddress?: boolean;
                countrySpecific?: {
                    de?: {
                        govMapNo?: string;
                        govMapPart?: string;
                        govRegisterPlace?: string;
                        govRegisterNo?: string;
                    };
                    fr?: {
                        inseeCode?: string;
                    };
                };
            };
            prices: {
                currency?: components["schemas"]["CurrencyCodes"];
                buy?: {
                    price?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    minBuy?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    housePrice?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    plotPrice?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    isLeaseBuyCombi?: boolean;
                    leasehold?: {
                        isLeasehold?: boolean;
                        amount: number;
                        /** @enum {string} */
                        priceTimeUnit: "MONTH" | "YEAR";
                        duration?: number;
                        /** Format: date */
                        endDate?: string;
                    };
                    operatingCosts?: {
                        /** @enum {string} */
                        priceTimeUnit?: "DAY" | "WEEK" | "MONTH" | "YEAR";
                    } & (components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"] & components["schemas"]["Accounting"]);
                    rentalIncome?: {
                        /** @enum {string} */
                        priceTimeUnit?: "MONTH" | "YEAR";
                        /** @deprecated */
                        priceInformation?: string;
                    } & components["schemas"]["PriceCommon"];
                    rentalIncomeExpect?: {
                        /** @enum {string} */
                        priceTimeUnit?: "MONTH" | "YEAR";
                        /** @deprecated */
                        priceInformation?: string;
                    } & components["schemas"]["PriceCommon"];
                    parkingPrice?: {
                        isOperatingCostsIncluded?: boolean;
                    } & (components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"] & components["schemas"]["ParkingStyle"]);
                    pricePerSqUnit?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    yieldFactor?: number;
                    countrySpecific?: {
                        be?: {
                            isSubjectToVat?: boolean;
                            cadastralIncome?: components["schemas"]["PriceCommon"];
                            lifeAnnuity?: {
                                estimatedPropertyValue?: number;
                                lumpSum: number;
                                monthlyAmount: number;
                            };
                        };
                        fr?: {
                            isReducedNotaryFees?: boolean;
                            /** @enum {string} */
                            notaryFeesFor?: "BUYER" | "SELLER" | "SHARED";
                            lifeAnnuity?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                        };
                        at?: {
                            operatingCostsNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            heatingCostsNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            miscCostsNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            vatCostsPerMonth?: number;
                            costsPerMonthGross?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                        };
                    };
                };
                rent?: {
                    baseRent?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    minRent?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    baseRentPerYear?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    totalRent?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    lease?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    operatingCosts?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"] & components["schemas"]["Accounting"];
                    heatingCosts?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"] & components["schemas"]["Accounting"];
                    isHeatingIncludedInOC?: boolean;
                    isHeatingIncludedInTR?: boolean;
                    pricePerSqUnit?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    pricePerSqUnitPerYear?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                    /**
                     * @default MONTH
                     * @enum {string}
                     */
                    priceTimeUnit?: "DAY" | "WEEK" | "MONTH" | "YEAR";
                    isParkingPriceIncluded?: boolean;
                    parkingRent?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"] & components["schemas"]["ParkingStyle"];
                    depositNote?: components["schemas"]["MultiLingualText"];
                    countrySpecific?: {
                        fr?: {
                            leaseRight?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                            accessPrice?: components["schemas"]["PriceCommon"] & components["schemas"]["PriceInformation"];
                            maxRegulatedRent?: number;
                            overRegulatedRent?: number;
                        };
                        at?: {
                            heatingCostsNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            miscCostsNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            operatingCostsNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            overallLoadGross?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            overallLoadVat?: number;
                            overallRentGross?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                            rentNet?: {
                                amount?: number;
                            } & components["schemas"]["PriceInformation"];
                        };
                    };
                };
                compulsoryAuction?: {
                    auctionProceeds?: {
                        /** @deprecated */
                        priceInformation?: string;
                    } & components["schemas"]["PriceCommon"];
                    biddingGuarantee?: {
                        /** @deprecated */
                        priceInformation?: string;
                    } & components["schemas"]["PriceCommon"];
                    marketValue: {
                        /** @deprecated */
                        priceInformation?: string;
                    } & components["schemas"]["PriceCommon"];
                    minimumBid?: {
                        /** @deprecated */
                        priceInformation?: string;
                    } & components["schemas"]["PriceCommon"];
                };
                buyAuction?: {
                    minPrice?: {
                        amount?: number;
                        vatValue?: number;
                        vatPercent?: number;
                        isVatIncluded?: boolean;
                    };
                    /** Format: date */
                    startOfferPhase?: string;
                    /** Format: date */
                    endOfferPhase?: string;
                };
                brokerageFee?: {
                    isFeeIncluded?: boolean;
                    /** @enum {string} */
                    feeFor?: "BUYER_OR_TENANT" | "SELLER_OR_LANDLORD" | "SHARED";
                    feePercentage?: number;
                    /** @enum {string} */
                    hasFee?: "YES" | "NO" | "NOT_APPLICABLE";
                    feeNote?: components["schemas"]["MultiLingualText"];
                    countrySpecific?: {
                        fr?: {
                            /** Format: url */
                            feeScheduleLink?: string;
                            inventoryFee?: string;
                        };
                    };
                    /** @deprecated */
                    priceInformation?: string;
                } & components["schemas"]["PriceCommon"];
                showPrice?: boolean;
                priceNote?: components["schemas"]["MultiLingualText"];
                countrySpecific?: {
                    fr?: {
                        taxRegime?: string;
                        residentialLeaseType?: string;
                        isPTZeligible?: boolean;
                        /** @enum {string} */
                        taxReductionZone?: "A" | "A_BIS" | "B1" | "B2" | "C";
                    };
                    be?: {
                        commercial?: {
                            isBusinessSold?: boolean;
                            downPayment?: number;
                        };
                    };
                };
            };
            spaces?: {
                /**
                 * @default SQUARE_METER
                 * @enum {string}
                 */
                spaceMeasureUnit: "SQUARE_METER" | "SQUARE_INCH" | "SQUARE_FOOT" | "SQUARE_YARD" | "HECTARE" | "ACRE";
                buildingFront?: number;
                overallSpace?: number;
                usableFloorSpace?: number;
                spaceMax?: number;
                spaceMin?: number;
                plotSpace?: number;
                plotFront?: number;
                additionalSpace?: number;
                kitchenSpace?: number;
                residential?: {
                    livingSpace?: number;
                    livingRoomSpace?: number;
                    atticSpace?: number;
                    balconySpace?: number;
                    cellarSpace?: number;
                    gardenSpace?: number;
                    terraceSpace?: number;
                    bathRoomSpace?: number;
                    showerRoomSpace?: number;
                    diningRoomSpace?: number;
                };
                commercial?: {
                    maxDivisible?: number;
                    minDivisible?: number;
                    commercialSpace?: number;
                    shopSpace?: number;
                    storageSpace?: number;
                    sellSpace?: number;
                    officeSpace?: number;
                    officePartSpace?: number;
                    managementSpace?: number;
                    restaurantSpace?: number;
                    complementarySpaces?: {
                        complementarySpaceType?: components["schemas"]["EstateType"];
                        complementarySpaceSubType?: string;
                        complementarySpaceArea?: number;
                    }[];
                };
            };
            conditions?: {
                /** @enum {string} */
                buildState?: "FIRST_TIME_USE" | "FIRST_TIME_USE_AFTER_REFURBISHMENT" | "MINT_CONDITION" | "MODERNISED" | "REFURBISHED" | "FULLY_RENOVATED" | "PARTLY_RENOVATED" | "NEED_OF_RENOVATION" | "WELL_KEPT" | "NEGOTIABLE" | "RIPE_FOR_DEMOLITION" | "PROJECTED" | "NO_INFORMATION" | "RESTRUCTURED";
                /** @enum {string} */
                ageState?: "OLD" | "NEW";
                yearOfConstruction?: number;
                lastModernisation?: number;
                /** @enum {string} */
                constructionStyle?: "PREFABRICATED" | "SOLID" | "SOLID_PREFABRICATED" | "TIMBERHOUSE" | "WOOD_PREFABRICATED" | "UNSPECIFIED";
            };
            energy?: {
                energyType?: {
                    /** @enum {string} */
                    heatMethod?: "CENTRAL" | "INDIVIDUAL" | "STOREY";
                    heatForm?: {
                        air?: boolean;
                        radiator?: boolean;
                        stove?: boolean;
                        underfloor?: boolean;
                        wallCeiling?: boolean;
                    };
                    energySource?: {
                        coal?: boolean;
                        districtHeating?: boolean;
                        electric?: boolean;
                        gas?: boolean;
                        geothermal?: boolean;
                        liquidGas?: boolean;
                        oil?: boolean;
                        solarHeat?: boolean;
                        solarPower?: boolean;
                        wind?: boolean;
                        wood?: boolean;
                        woodPellet?: boolean;
                    };
                    energyGeneration?: {
                        fossilburning?: boolean;
                        heatpump?: boolean;
                        combinedHeatAndPowerPlant?: boolean;
                    };
                    maxElectricalPower?: number;
                };
                countrySpecific?: {
                    de?: {
                        energyCertificates?: {
                            nameOfCertificate?: string;
                            /** @enum {string} */
                            certificateType: "ENEV2008" | "ENEV2014" | "NOT_AVAILABLE" | "NOT_NECESSARY" | "AT_VISIT";
                            /** @enum {string} */
                            certificateBasedOn?: "NEED" | "CONSUMPTION";
                            isResidentialBuilding?: boolean;
                            /** @enum {string} */
                            primaryEnergySource?: "NO_INFORMATION" | "SOLAR" | "WIND" | "COAL" | "GAS" | "OIL" | "WOOD" | "DISTRICT_HEATING" | "ELECTRICITY";
                            /** @enum {string} */
                            efficiencyClass?: "A_PLUS" | "A" | "B" | "C" | "D" | "E" | "F" | "G" | "H";
                            /** Format: date */
                            releaseDate?: string;
                            /** Format: date */
                            validUntil?: string;
                            yearOfConstructionBuilding?: number;
                            yearOfConstructionHeating?: number;
                            overallEnergyNeed?: number;
                            primaryEnergyNeed?: number;
                            electricityNeed?: number;
                            heatingNeed?: number;
                            overallEnergyConsumption?: number;
                            primaryEnergyConsumption?: number;
                            isWaterHeatingIncluded?: boolean;
                            electricityConsumption?: number;
                            heatingConsumption?: number;
                            energyConsumptionIndicator?: number;
                        }[];
                        /** @enum {string} */
                        houseEnergyStandardType?: "UNSPECIFIED" | "LOW_ENERGY_40" | "LOW_ENERGY_60" | "PASSIVE_HOUSE" | "ENERGY_EFFICIENT_40" | "ENERGY_EFFICIENT_55" | "ENERGY_EFFICIENT_70" | "LOW_ENERGY_HOUSE" | "NULL_ENERGY_HOUSE" | "PLUS_ENERGY_HOUSE";
                    };
                    fr?: {
                        energyCertificate?: {
                            /** @enum {string} */
                            certificateType?: "DPE_V01_2011" | "DPE_V07_2021" | "NOT_APPLICABLE" | "EMPTY";
                            overallEnergyNeed?: number;
                            /** @enum {string} */
                            efficiencyClass?: "A" | "B" | "C" | "D" | "E" | "F" | "G";
                            GHGEmission?: number;
                            /** @enum {string} */
                            GHGEmissionClass?: "A" | "B" | "C" | "D" | "E" | "F" | "G";
                            /** Format: date */
                            releaseDate?: string;
                            energyConsumptionCostMin?: number;
                            energyConsumptionCostMax?: number;
                            /** @deprecated */
                            yearOfConsumptionCostEstimation?: number;
                            /** Format: date */
                            dateOfConsumptionCostEstimation?: string;
                            finalConsumption?: number;
                        };
                        /** @enum {string} */
                        tarificationEDF?: "BLEU" | "JAUNE" | "VERT";
                        /**
                         * @deprecated
                         * @enum {string}
                         */
                        houseEnergyStandardType?: "RT2012" | "RT2020" | "HIGH_PERFORMANCE" | "BBC" | "MINERGIE" | "EFFINERGIE_PLUS" | "HQE" | "THQE";
                        houseEnergyStandardTypes?: ("GAZ" | "LABELHPE" | "LABELPRO" | "LABELQUA" | "NUMERI" | "QUALIGAZ" | "VIVRELEC" | "FPC" | "NFLOG" | "DOLCEVIT" | "HABENV" | "HQE" | "CERQUAL" | "CERQTEL" | "SNAL" | "EFFINER" | "GRDF" | "GDFDOLVI" | "CERFTEL" | "VIVREL" | "EVIE" | "EDFBLEU" | "RT2005" | "NFLOHQE" | "BBC" | "THPENR" | "QUALIPRO" | "FPCALPES" | "HAVBBC" | "NFBBC" | "UCI" | "CERQBBC" | "RT2012" | "NFQUAL" | "NFHQ" | "NF" | "BEPOSEFFINERGIE" | "EFFINERGIE_PLUS" | "HPEBBC" | "ECOARTISAN" | "FFCMI" | "UMF" | "CCMI" | "LCAFFB" | "CNOA" | "MAISONQUALIT" | "RE2020" | "POLEHABITAT" | "RE2025")[];
                    };
                    at?: {
                        energyCertificate?: {
                            nameOfCertificate?: string;
                            heatingNeed?: number;
                            /** @enum {string} */
                            heatingNeedClass?: "A_PLUS_PLUS" | "A_PLUS" | "A" | "B" | "C" | "D" | "E" | "F" | "G";
                            overallEnergyEfficiencyFactor?: number;
                            /** @enum {string} */
                            overallEnergyEfficiencyFactorClass?: "A_PLUS_PLUS" | "A_PLUS" | "A" | "B" | "C" | "D" | "E" | "F" | "G";
                        }[];
                    };
                    ch?: {
                        isMinergieConstruction?: boolean;
                        isMinergieCertified?: boolean;
                    };
                    be?: {
                        /** @enum {string} */
                        oilTankCertificateStatus?: "YES_CONFORM" | "YES_NOT_CONFORM" | "NO" | "NOT_SPECIFIED";
                        hasElectricalInstallationComplianceCertificate?: boolean;
                        primaryEnergyConsumptionLevel?: number;
                        globalThermalInsulationLevel?: number;
                        energyCertificate?: {
                            certificateNumber?: string;
                            primaryEnergyConsumption?: number;
                            /** @enum {string} */
                            efficiencyClass?: "A++" | "A+" | "A" | "B" | "C" | "D" | "E" | "F" | "G" | "A+_A++" | "A_A++" | "A_A+" | "B_A++" | "B_A+" | "B_A" | "C_A++" | "C_A+" | "C_A" | "C_B" | "D_A++" | "D_A+" | "D_A" | "D_B" | "D_C" | "E_A++" | "E_A+" | "E_A" | "E_B" | "E_C" | "E_D" | "F_A++" | "F_A+" | "F_A" | "F_B" | "F_C" | "F_D" | "F_E" | "G_A++" | "G_A+" | "G_A" | "G_B" | "G_C" | "G_D" | "G_E";
                            GHGEmission?: number;
                            /** Format: date */
                            releaseDate?: string;
                            /** Format: date */
                            validUntil?: string;
                            theoreticalEnergyConsumption?: number;
                        };
                        energyCertificateNote?: components["schemas"]["MultiLingualText"];
                    };
                };
            };
            features?: {
                /** @enum {string} */
                accessibleFromStreet?: "YES" | "NO" | "NOT_APPLICABLE";
                /** @enum {string} */
                aircondition?: "YES" | "PART" | "NO" | "NOT_APPLICABLE";
                /** @enum {string} */
                entranceHall?: "YES" | "NO" | "NOT_APPLICABLE";
                floorCovering?: {
                    /** @enum {string} */
                    tiles?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    stone?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    carpet?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    parquet?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    laminate?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    synthetic?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    screed?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    linoleum?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    marble?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    terracotta?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    granite?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    raisedFloor?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    quartz?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    concrete?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    antiDustConcrete?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    woodenPlank?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    antiStatic?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    vinyl?: "YES" | "NO" | "NOT_APPLICABLE";
                };
                /** @enum {string} */
                furnished?: "PART" | "FULL" | "NO" | "NOT_APPLICABLE";
                garden?: {
                    part?: boolean;
                    private?: boolean;
                    shared?: boolean;
                };
                /** @enum {string} */
                gym?: "YES" | "NO" | "NOT_APPLICABLE";
                internet?: {
                    internetSpeedMbit?: number;
                    internetAvailability?: {
                        opticalFiber?: boolean;
                        dsl?: boolean;
                        cable?: boolean;
                        satellite?: boolean;
                    };
                    propertyInternetAccess?: {
                        ethernet?: boolean;
                        wireless?: boolean;
                    };
                };
                lighting?: {
                    /** @enum {string} */
                    ceiling?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    led?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    window?: "YES" | "NO" | "NOT_APPLICABLE";
                };
                /** @enum {string} */
                mezzanine?: "YES" | "NO" | "NOT_APPLICABLE";
                propertyOrientation?: components["schemas"]["Orientation"];
                /** @enum {string} */
                receptionist?: "YES" | "NO" | "NOT_APPLICABLE";
                security?: {
                    /** @enum {string} */
                    buildingIntercom?: "YES" | "NO" | "NOT_APPLICABLE" | "VIDEO";
                    /** @enum {string} */
                    cam?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    custodian?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    custodianRoom?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    digitalLock?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    emergencyCall?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    fireSprinkler?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    fireAlarm?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    intruderAlarm?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    reinforcedDoor?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    safe?: "YES" | "NO" | "NOT_APPLICABLE";
                };
                /** @enum {string} */
                wheelchairUse?: "YES" | "NO" | "NOT_APPLICABLE";
                /** @enum {string} */
                wineCellar?: "YES" | "NO" | "NOT_APPLICABLE";
                residential?: {
                    /** @enum {string} */
                    assistedLiving?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    chimney?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    flatSharePossible?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    hammam?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    houseCleaningService?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    jacuzzi?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    loggia?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    sauna?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    swimmingPool?: "YES" | "NO" | "INSIDE" | "OUTSIDE" | "INSIDE_AND_OUTSIDE" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    tennisField?: "YES" | "NO" | "NOT_APPLICABLE" | "PRIVATE" | "SHARED";
                    /** @enum {string} */
                    tv?: "SAT" | "CABLE" | "OTHER";
                    /**
                     * @deprecated
                     * @enum {string}
                     */
                    veranda?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    laundryRoom?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    closet?: "YES" | "NO" | "NOT_APPLICABLE";
                    countrySpecific?: {
                        fr?: {
                            /** @enum {string} */
                            evacuation?: "ALL_SEWER" | "SEPTIC_TANK";
                        };
                    };
                };
                commercial?: {
                    /** @enum {string} */
                    accessibleByTrucks?: "YES" | "NO" | "NOT_APPLICABLE" | "SEPARATED_TRUCK_ACCESS";
                    /** @enum {string} */
                    auditorium?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    bar?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    buildingVentilation?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    cafeteria?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    coldStore?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    companyRestaurant?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    droppedCeiling?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    engineGenerator?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    exhaustHood?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    flexibleRoomLayout?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    heatedTerrace?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    liftingPlatform?: "YES" | "NO" | "NOT_APPLICABLE";
                    numberOfStorageCells?: number;
                    /** @enum {string} */
                    overheadCrane?: "YES" | "NO" | "NOT_APPLICABLE";
                    restaurantSeats?: number;
                    restaurantSeatsOutside?: number;
                    /** @enum {string} */
                    teaKitchen?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    truckManeuveringArea?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    verticalSlidingDoor?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    wallSiding?: "YES" | "NO" | "NOT_APPLICABLE" | "DOUBLE" | "DECORATIVE";
                    countrySpecific?: {
                        fr?: {
                            /** @enum {string} */
                            licenseType?: "PETITE_LICENCE_RESTAURANT" | "LICENCE_RESTAURANT" | "LICENCE_III" | "LICENCE_IV";
                        };
                    };
                };
                parking?: {
                    /** @enum {string} */
                    chargingStation?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    bikeParking?: "YES" | "NO" | "NOT_APPLICABLE";
                };
                plot?: {
                    usageFor?: {
                        /** @enum {string} */
                        futureDevelopmentLand?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        twinhouse?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        singleFamilyHouse?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        terraceHouse?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        apartmentBuilding?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        orchard?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        farmland?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        parkingSpace?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        garage?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        noDevelopment?: "YES" | "NO" | "NOT_APPLICABLE";
                    };
                    developmentInfrastructure?: {
                        /** @enum {string} */
                        districtHeating?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        electric?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        gas?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        telco?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        water?: "YES" | "NO" | "NOT_APPLICABLE";
                    };
                    /** @enum {string} */
                    shortTermConstructible?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    brownfield?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    buildingPermission?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    demolitionSuggested?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    fencedPlot?: "YES" | "NO" | "NOT_APPLICABLE";
                    isTerracedArea?: boolean;
                    /** @enum {string} */
                    tilt?: "NONE" | "MINOR" | "SIGNIFICANT" | "STEEP";
                    countrySpecific?: {
                        de?: {
                            /** @enum {string} */
                            buildingRules?: "NEIGHBORHOOD_34" | "EXTERNALAREA_35" | "B_PLAN" | "NO_BUILDINGAREA" | "DEVELOPMENTAREA" | "BUILDINGAREA_WITHOUT_PLAN" | "COUNTRYSPECIFIC";
                            /** @enum {string} */
                            siteDevelopmentState?: "UNDEVELOPED" | "PARTLY_DEVELOPED" | "FULLY_DEVELOPED" | "NO_INFORMATION";
                        };
                    };
                };
            };
            structure?: {
                building?: {
                    /** @enum {string} */
                    attic?: "CONVERTED" | "PART_CONVERTED" | "CONVERTIBLE";
                    balconyDirection?: components["schemas"]["Orientation"];
                    gardenOrientation?: components["schemas"]["Orientation"];
                    /** @enum {string} */
                    barrierFree?: "YES" | "NO" | "NOT_APPLICABLE";
                    bath?: {
                        /** @enum {string} */
                        shower?: "YES" | "NO" | "NOT_APPLICABLE" | "ROMAN_SHOWER";
                        /** @enum {string} */
                        bathtub?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        window?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        bidet?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        urinal?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        guestToilet?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        separateBathAndToilet?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        toilet?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        bathroomSink?: "YES" | "NO" | "NOT_APPLICABLE";
                    };
                    /** @enum {string} */
                    cellar?: "YES" | "NO" | "PART" | "NOT_APPLICABLE";
                    elevator?: {
                        /** @enum {string} */
                        person?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        freight?: "YES" | "NO" | "NOT_APPLICABLE";
                    };
                    kitchen?: {
                        kitchenType?: {
                            builtIn?: boolean;
                            kitchenette?: boolean;
                            open?: boolean;
                            separated?: boolean;
                        };
                        /** @enum {string} */
                        kitchenEquipment?: "NONE" | "STORAGE" | "FULLY_EQUIPPED";
                        /** @enum {string} */
                        pantry?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        singleStorey?: "YES" | "NO" | "NOT_APPLICABLE";
                    };
                    numberOfFloors?: number;
                    numberOfFacades?: number;
                    roomHeight?: number;
                    offeredFloors?: number;
                    /** @enum {string} */
                    roofStyle?: "HALF_HIPPED_ROOF" | "GAMBREL" | "MONO_PITCHED_ROOF" | "GABLE" | "HIP_ROOF" | "FLAT_ROOF" | "PYRAMIDAL_ROOF" | "OTHER";
                    /** @enum {string} */
                    locationInBuilding?: "GROUNDFLOOR" | "HALF_BASEMENT" | "ROOF_STOREY";
                    /** @enum {string} */
                    locationAtCorner?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    calm?: "YES" | "NO" | "NOT_APPLICABLE";
                    withView?: {
                        courtyardView?: boolean;
                        lakeView?: boolean;
                        mountainView?: boolean;
                        overlooking?: boolean;
                        seaView?: boolean;
                        skiView?: boolean;
                    };
                    /** @enum {string} */
                    luminous?: "YES" | "NO" | "NOT_APPLICABLE";
                    window?: {
                        /** @enum {string} */
                        bayWindow?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        blinds?: "YES" | "NO" | "NOT_APPLICABLE" | "ELECTRIC" | "MANUAL";
                        windowMaterial?: {
                            /** @enum {string} */
                            woodenWindows?: "YES" | "NO" | "NOT_APPLICABLE";
                            /** @enum {string} */
                            aluminiumWindows?: "YES" | "NO" | "NOT_APPLICABLE";
                            /** @enum {string} */
                            muntinWindows?: "YES" | "NO" | "NOT_APPLICABLE";
                            /** @enum {string} */
                            plasticWindows?: "YES" | "NO" | "NOT_APPLICABLE";
                            /** @enum {string} */
                            insulatedGlazing?: "YES" | "NO" | "NOT_APPLICABLE" | "SIMPLE" | "DOUBLE" | "TRIPLE";
                        };
                    };
                    /** @enum {string} */
                    shape?: "L_SHAPE" | "U_SHAPE" | "V_SHAPE" | "RECTANGULAR" | "SQUARE" | "OTHER";
                    hasSplitFloor?: boolean;
                    wallConstructionMaterial?: ("MASSIVE_WOOD" | "CINDER_BLOCK" | "INSULATING_CINDER_BLOCK" | "CELLULAR_CONCRETE" | "BRICK" | "HONEYCOMB_BRICK" | "LIMESTONE" | "WOOD_FRAME" | "METAL_FRAME")[];
                };
                rooms?: {
                    numberOfRooms?: number;
                    numberOfBedRooms?: number;
                    numberOfBathRooms?: number;
                    numberOfToilets?: number;
                    numberOfPowderRooms?: number;
                    numberOfBalconies?: number;
                    numberOfTerraces?: number;
                    numberOfKitchens?: number;
                    numberOfUnits?: number;
                    hasDiningRoom?: boolean;
                };
                commercial?: {
                    floorLoad?: number;
                    floorLoadUpperFloors?: number;
                    hallHeight?: number;
                    numberOfBeds?: number;
                    numberOfLoadingDocks?: number;
                    numberOfDesks?: number;
                    numberOfMeetingRooms?: number;
                    numberOfOfficeRooms?: number;
                    windowFront?: number;
                    numberOfDesksMax?: number;
                };
                parkingLots?: {
                    outside?: number;
                    streetParking?: number;
                    carport?: number;
                    garage?: number;
                    doubleGarage?: number;
                    duplex?: number;
                    garageArea?: number;
                    parkingArea?: number;
                    carPark?: number;
                    underground?: number;
                    boatDock?: number;
                };
                countrySpecific?: {
                    fr?: {
                        maximalCapacityOfPersons?: number;
                        coefficientOccupationDesSols?: number;
                        coefficientEmpriseAuSol?: number;
                        heightUnderDoor?: number;
                    };
                };
            };
            texts?: {
                headline?: components["schemas"]["MultiLingualText"];
                description?: components["schemas"]["MultiLingualText"];
                features?: components["schemas"]["MultiLingualText"];
                extendedInformation?: components["schemas"]["MultiLingualText"];
                area?: components["schemas"]["MultiLingualText"];
                transportation?: {
                    metro?: components["schemas"]["MultiLingualText"];
                    bus?: components["schemas"]["MultiLingualText"];
                    tramway?: components["schemas"]["MultiLingualText"];
                    road?: components["schemas"]["MultiLingualText"];
                    highway?: components["schemas"]["MultiLingualText"];
                    publicBikeSystem?: components["schemas"]["MultiLingualText"];
                    publicParking?: components["schemas"]["MultiLingualText"];
                    countrySpecific?: {
                        fr?: {
                            RER?: components["schemas"]["MultiLingualText"];
                            SNCF?: components["schemas"]["MultiLingualText"];
                            SNCFFret?: components["schemas"]["MultiLingualText"];
                            noctilien?: components["schemas"]["MultiLingualText"];
                            airportShuttle?: components["schemas"]["MultiLingualText"];
                        };
                    };
                };
            };
            management?: {
                isImmediatelyAvailable?: boolean;
                /** Format: date-time */
                availableFrom?: string;
                /** Format: date-time */
                availableUntil?: string;
                isForInvestment?: boolean;
                /** @enum {string} */
                heritageProtected?: "YES" | "NO" | "NOT_APPLICABLE";
                /** @enum {string} */
                marketStatus?: "SOLD" | "RENTED" | "REFERENCE" | "RESERVED" | "UNDER_OFFER";
                /** @enum {string} */
                projectStatus?: "COMMERCIAL_LAUNCH" | "UNDER_CONSTRUCTION" | "FINISHING_WORKS" | "SHELL_WORKS" | "PROJECT_ENDED" | "LAST_CHANCE" | "BUILDING_PERMISSION";
                marketLabel?: string;
                isRented?: boolean;
                /** @enum {string} */
                useFor?: "LIVING" | "COMMERCIAL" | "MIXED" | "OFFICE" | "INDUSTRIAL";
                isForHolidayRental?: boolean;
                rent?: {
                    /** @enum {string} */
                    favouredGender?: "MALE" | "FEMALE" | "OTHER";
                    minRentalTime?: number;
                    maxRentalTime?: number;
                    /** @enum {string} */
                    rentalTimeUnit?: "DAY" | "WEEK" | "MONTH" | "YEAR";
                    /** @enum {string} */
                    certificateOfEligibilityNeeded?: "YES" | "NO" | "NOT_APPLICABLE";
                    maxPersons?: number;
                    /** @enum {string} */
                    nonSmoker?: "YES" | "NO" | "NOT_APPLICABLE";
                    /** @enum {string} */
                    petsAllowed?: "YES" | "NO" | "NOT_APPLICABLE";
                    isShortTimeRental?: boolean;
                };
                compulsoryAuction?: {
                    auctionLocation?: string;
                    auctionSpace?: string;
                    /** Format: date */
                    cancellationDate?: string;
                    coOwnership?: string;
                    countyCourt?: string;
                    /** Format: date-time */
                    dateOfAuction?: string;
                    isDiscretionarySale?: boolean;
                    distributionPlanNumber?: string;
                    fileReferenceAtCountyCourt?: string;
                    /** Format: date-time */
                    lastChangeDate?: string;
                    insolvencyAdministrator?: string;
                    owner?: string;
                    /** Format: date-time */
                    recordationDate?: string;
                    /** Format: date-time */
                    additionalDate?: string;
                    isWithoutValueLimits?: boolean;
                    isSplittingAuction?: boolean;
                };
                countrySpecific?: {
                    be?: {
                        isAsBuiltPlanCertificate?: boolean;
                        urbanPlanningInformation?: components["schemas"]["MultiLingualText"];
                        buildingPermission?: {
                            /** @enum {string} */
                            constructionType?: "ALL_KIND" | "APARTMENT_BUILDING" | "BEL_ETAGE" | "BUNGALOW" | "HOUSE" | "VILLA";
                            /** @enum {string} */
                            floodZoneType?: "RECOGNIZED_FLOOD_ZONE" | "RECOGNIZED_N_CIRCUMSCRIBED_FLOOD_ZONE" | "RECOGNIZED_N_CIRCUMSCRIBED_WATERSIDE_FLOOD_ZONE" | "POSSIBLE_FLOOD_ZONE" | "POSSIBLE_N_CIRCUMSCRIBED_FLOOD_ZONE" | "POSSIBLE_N_CIRCUMSCRIBED_WATERSIDE_ZONE" | "CIRCUMSCRIBED_FLOOD_ZONE" | "CIRCUMSCRIBED_WATERSIDE_ZONE" | "NON_FLOOD_ZONE";
                            hasObligationToConstruct?: boolean;
                            hasPlotDivisionAuthorization?: boolean;
                            hasPossiblePriorityPurchaseRight?: boolean;
                            isBreachingUrbanPlanningRegulation?: boolean;
                        };
                        lifeAnnuity?: {
                            isIndexed?: boolean;
                            isJointAndSurvivorContract?: boolean;
                            isBareOwnership?: boolean;
                            contractMaximumDurationDescription?: components["schemas"]["MultiLingualText"];
                            annuitants?: {
                                count?: number;
                                ages?: number[];
                            };
                        };
                    };
                    fr?: {
                        isUsageChange?: boolean;
                        isDestinationChange?: boolean;
                        isCondo?: boolean;
                        numberOfUnits?: number;
                        unitDescription?: string;
                        operatingCostsPerYear?: number;
                        isSyndicProcedure?: boolean;
                        procedureDetails?: string;
                        /** @enum {string} */
                        commercialLease?: "LEASE_3_6_9_YEARS" | "DEROGATORY" | "SHORT_TERM_LEASE" | "SERVICE_CONTRACT";
                        /** Format: date */
                        commercialLeaseEndDate?: string;
                        /** @enum {string} */
                        leaseBack?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        certificationERP?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        certificationDGNB?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        certificationBREEAM?: "YES" | "NO" | "NOT_APPLICABLE";
                        /** @enum {string} */
                        ICPE?: "YES" | "NO" | "NOT_APPLICABLE";
                        unoccupiedLifeAnnuity?: boolean;
                        legalNotes?: ("LOIDUFLOTOUTRE" | "LOILMP" | "LOILMNP" | "PLSINVESTISSEUR" | "LOITVA55" | "DEMEMBREMENT" | "LOITVA7" | "LOIEHPAD" | "AUCUNELOI" | "LOIPINEL" | "ANRU" | "BRS" | "LOIPINELPLUS" | "LLI" | "PTZ")[];
                    };
                };
            };
            countrySpecific?: {
                fr?: {
                    business?: {
                        isBusinessSold?: boolean;
                        /** @enum {string} */
                        businessType?: "FOOD" | "TRANSPORT" | "GASTRONOMY_HOTEL" | "LOCAL_SHOP" | "WELLNESS_HEALTHCARE" | "HOUSE_EQUIPMENT" | "COMPUTER_TELECOM" | "LEISURE" | "FASHION" | "HEALTH" | "LOCAL";
                        /** @enum {string} */
                        businessSubType?: "MEAT_SHOP" | "BAKERY" | "CHOCOLATES_CANDIES" | "GREENGROCERY" | "GROCERY" | "DAIRY" | "FISH_STORE" | "CATERING" | "WINE" | "WINEWINE" | "MINI_MARKET" | "SUPERMARKET" | "DRIVING_SCHOOL" | "CAR_MOTORCYCLE_DEALER" | "GARAGE_SERVICE_STATION" | "CAFE_BAR_PUB" | "CAMPING" | "CREPERIE" | "ICECREAM" | "HOTEL" | "PIZZERIA" | "RESTAURANT" | "FASTFOOD" | "TEAROOM" | "GIFT_SHOP" | "FLORIST" | "HABERDASHERY" | "KIOSK" | "HAIRDRESSING" | "BEAUTY" | "PERFUMERY" | "FURNISHING" | "HOUSEHOLD_APPLIANCES" | "COMPUTER_SHOP_OFFICE_SUPPLY" | "PHONES" | "TRAVEL_AGENCY" | "ARTS_MUSIC" | "SPORTS_CLUB" | "CLUB_DISCOTHEQUE" | "ARTS_GALLERY" | "COMPUTER_SHOP" | "BOOKS" | "TOYS" | "JEWELLERY" | "SHOES" | "LEATHER" | "CLOTHES" | "TAXI_AMBULANCE" | "DENTAL" | "PHYSIOTHERAPIST" | "RETIREMENT_HOME" | "OPTIC" | "PHARMACY" | "REAL_ESTATE" | "PETS" | "DIY" | "SHOE_REPAIR" | "RELOCATION" | "ELECTRICITY" | "GARDENER" | "LAUNDROMAT" | "CARPENTRY" | "PHOTO" | "PLUMBING_HEATING" | "LAUNDRY" | "LOCKSMITH" | "GLASSMAKING";
                        revenue?: number;
                        revenueOneYearAgo?: number;
                        revenueTwoYearsAgo?: number;
                        revenueDetails?: string;
                        netIncome?: number;
                        netIncomeOneYearAgo?: number;
                        netIncomeTwoYearsAgo?: number;
                        isPartOfNetwork?: boolean;
                        downPayment?: number;
                        isNoNuisance?: boolean;
                        isDivisible?: boolean;
                    };
                    subdivisions?: {
                        currency?: components["schemas"]["CurrencyCodes"];
                        buildings?: {
                            buildingName?: string;
                            parts?: {
                                partName?: string;
                                partLevel?: number;
                                partArea?: number;
                                partType?: components["schemas"]["EstateType"];
                                isPartImmediatelyAvailable?: boolean;
                                /** Format: date-time */
                                partFromDate?: string;
                                partRentPrice?: number;
                                /** @enum {string} */
                                partRentPeriod?: "YEARLY" | "MONTHLY" | "WEEKLY" | "DAILY";
                                partOperatingCosts?: number;
                                partBuyPrice?: number;
                                /** @enum {string} */
                                isVatIncluded?: "YES" | "NO" | "NOT_APPLICABLE";
                                isPricePerSqUnit?: boolean;
                                isOperatingCostsIncluded?: boolean;
                                partNumberOfParkingSpaces?: number;
                            }[];
                        }[];
                    };
                    agentMandate?: {
                        mandateNumber?: string;
                        /** @enum {string} */
                        mandateType?: "SIMPLE" | "EXCLUSIVE";
                        /** Format: date */
                        startDate?: string;
                        /** Format: date */
                        endDate?: string;
                        mandateCoOwnerId1?: string;
                        mandateCoOwnerId2?: string;
                        mandateCoOwnerId3?: string;
                    };
                    risk?: {
                        isPolluting?: boolean;
                        /** Format: date */
                        dateOfStatementOfRisksAndPollution?: string;
                    };
                    commercial?: {
                        offer?: "PC"[];
                        specialOffer?: {
                            /** Format: date */
                            startDate?: string;
                            /** Format: date */
                            endDate?: string;
                            commercialText?: string;
                            legalNotice?: string;
                        };
                    };
                };
            };
            metaData: {
                source: {
                    sourceSystem: string;
                    sourceSystemVersion: string;
                    offererMarketingKey: string;
                    offererEstateId: string;
                    offererEstateGroupId?: string;
                };
                projectId?: string;
                /** Format: date-time */
                createDate?: string;
                /** Format: date-time */
                changeDate?: string;
                /** Format: uuid */
                classifiedId?: string;
                portalWebKey?: string;
                /** @deprecated */
                changeLog?: {
                    system?: string;
                    version?: string;
                    /** Format: date-time */
                    timestamp?: string;
                    /** @enum {string} */
                    operation?: "CREATE" | "UPDATE" | "DELETE";
                    note?: string;
                }[];
                nbMedias?: number;
            };
            contact?: {
                /** Format: url */
                userHomepage?: string;
                mainContactPersonId?: string;
                additionalContactPersonId?: string;
                /** @enum {string} */
                preferredContactType?: "ANONYMOUS" | "BY_PHONE" | "BY_EMAIL" | "OWN_WEBSITE";
                contactNote?: components["schemas"]["MultiLingualText"];
                displayedInformation?: {
                    mainContactPerson?: {
                        name?: boolean;
                        phone?: boolean;
                        mobilePhone?: boolean;
                        email?: boolean;
                        address?: boolean;
                        companyName?: boolean;
                        fax?: boolean;
                    };
                    additionalContactPerson?: {
                        name?: boolean;
                        phone?: boolean;
                        mobilePhone?: boolean;
                        email?: boolean;
                        address?: boolean;
                        companyName?: boolean;
                        fax?: boolean;
                    };
                };
            };
            links?: {
                externalLinks?: {
                    /** Format: url */
                    url: string;
                    /** @enum {string} */
                    urlType?: "MAP" | "MOVIE" | "PANORAMA" | "REVOCATION_INSTRUCTION" | "OFFERER_DETAIL_PAGE";
                    title?: string;
                }[];
                virtualTours?: {
                    /** Format: url */
                    url: string;
                    provider?: string;
                    title?: string;
                }[];
            };
            buildingProperty?: {
                units?: {
                    propertyType?: components["schemas"]["EstateType"];
                    propertySubType?: string;
                    number?: number;
                    unitDescription?: {
                        spaceMin?: number;
                        spaceMax?: number;
                        unitPriceMin?: number;
                        unitPriceMax?: number;
                        numberOfRoomsMin?: number;
                        numberOfRoomsMax?: number;
                        "description?"?: string;
                        "furnishingLevel?"?: string;
                        "provisionType?"?: string;
                        "provisionAmount?"?: number;
                        "provisionPercent?"?: number;
                        "unitParkingPriceMin?"?: number;
                        "unitParkingPriceMax?"?: number;
                        "isDuplex?"?: boolean;
                    };
                }[];
                program?: {
                    salesOffice?: {
                        postalcode?: string;
                        city?: string;
                        street?: string;
                        houseNumber?: string;
                        country?: string;
                    };
                    coPromotion?: {
                        promoter?: {
                            name?: string;
                            address?: {
                                street?: string;
                                houseNumber?: string;
                                postalcode?: string;
                                city?: string;
                                country?: string;
                            };
                            urlLogo?: string;
                        };
                        coPromoter?: {
                            name?: string;
                            address?: {
                                street?: string;
                                houseNumber?: string;
                                postalcode?: string;
                                city?: string;
                                country?: string;
                            };
                            urlLogo?: string;
                        };
                    };
                };
            };
        };
        MultiLingualText: {
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
        /**
         * @default EUR
         * @enum {string}
         */
        CurrencyCodes: "AED" | "AFN" | "ALL" | "AMD" | "ANG" | "AOA" | "ARS" | "AUD" | "AWG" | "AZN" | "BAM" | "BBD" | "BDT" | "BGN" | "BHD" | "BIF" | "BMD" | "BND" | "BOB" | "BOV" | "BRL" | "BSD" | "BTN" | "BWP" | "BYN" | "BZD" | "CAD" | "CDF" | "CHE" | "CHF" | "CHW" | "CLF" | "CLP" | "CNY" | "COP" | "COU" | "CRC" | "CUC" | "CUP" | "CVE" | "CZK" | "DJF" | "DKK" | "DOP" | "DZD" | "EGP" | "ERN" | "ETB" | "EUR" | "FJD" | "FKP" | "GBP" | "GEL" | "GHS" | "GIP" | "GMD" | "GNF" | "GTQ" | "GYD" | "HKD" | "HNL" | "HRK" | "HTG" | "HUF" | "IDR" | "ILS" | "INR" | "IQD" | "IRR" | "ISK" | "JMD" | "JOD" | "JPY" | "KES" | "KGS" | "KHR" | "KMF" | "KPW" | "KRW" | "KWD" | "KYD" | "KZT" | "LAK" | "LBP" | "LKR" | "LRD" | "LSL" | "LYD" | "MAD" | "MDL" | "MGA" | "MKD" | "MMK" | "MNT" | "MOP" | "MRU" | "MUR" | "MVR" | "MWK" | "MXN" | "MXV" | "MYR" | "MZN" | "NAD" | "NGN" | "NIO" | "NOK" | "NPR" | "NZD" | "OMR" | "PAB" | "PEN" | "PGK" | "PHP" | "PKR" | "PLN" | "PYG" | "QAR" | "RON" | "RSD" | "RUB" | "RWF" | "SAR" | "SBD" | "SCR" | "SDG" | "SEK" | "SGD" | "SHP" | "SLL" | "SOS" | "SRD" | "SSP" | "STN" | "SVC" | "SYP" | "SZL" | "THB" | "TJS" | "TMT" | "TND" | "TOP" | "TRY" | "TTD" | "TWD" | "TZS" | "UAH" | "UGX" | "USD" | "USN" | "UYI" | "UYU" | "UYW" | "UZS" | "VED" | "VES" | "VND" | "VUV" | "WST" | "XAF" | "XAG" | "XAU" | "XBA" | "XBB" | "XBC" | "XBD" | "XCD" | "XDR" | "XOF" | "XPD" | "XPF" | "XPT" | "XSU" | "XTS" | "XUA" | "XXX" | "YER" | "ZAR" | "ZMW" | "ZWL";
        PriceCommon: {
            amount?: number;
            vatValue?: number;
            vatPercent?: number;
            isVatIncluded?: boolean;
        };
        PriceInformation: {
            /** @enum {string} */
            priceInformation?: "PRICE_ON_DEMAND" | "BASIS_FOR_NEGOTIATION";
        };
        /** @enum {string} */
        Orientation: "NORTH" | "EAST" | "SOUTH" | "WEST" | "NORTH_EAST" | "SOUTH_EAST" | "NORTH_WEST" | "SOUTH_WEST" | "EAST_WEST" | "SOUTH_NORTH";
        /** @enum {string} */
        EstateType: "HOUSE" | "APARTMENT" | "PLOT" | "OFFICE" | "TRADING" | "GASTRONOMY_HOTEL" | "STORAGE_PRODUCTION" | "AGRICULTURE_FORESTRY" | "PARKING" | "SENIOR" | "PROJECT" | "MISCELLANEOUS";
        Accounting: {
            /** @enum {string} */
            accounting?: "FIXED" | "REAL_USAGE" | "ADJUSTMENT";
        };
        ParkingStyle: {
            /** @enum {string} */
            parkingStyle?: "OUTSIDE" | "STREET_PARKING" | "CARPORT" | "GARAGE" | "DOUBLE_GARAGE" | "DUPLEX" | "GARAGE_AREA" | "PARKING_AREA" | "CAR_PARK" | "UNDERGROUND" | "BOAT_DOCK";
        };
        Specific: {
            gsl?: {
                /** @deprecated */
                mainContactPerson?: components["schemas"]["ContactInformation"];
                /** @deprecated */
                additionalContactPerson?: components["schemas"]["ContactInformation"];
                mandateCoOwner1?: components["schemas"]["ContactInformation"];
                mandateCoOwner2?: components["schemas"]["ContactInformation"];
                mandateCoOwner3?: components["schemas"]["ContactInformation"];
            };
            iwt?: Record<string, never>;
        };
        ContactInformation: {
            name?: string;
            phoneNumber?: string;
            mobilePhoneNumber?: string;
            faxNumber?: string;
            /** Format: email */
            email?: string;
            companyName?: string;
            address?: {
                street?: string;
                houseNumber?: string;
                postalcode?: string;
                city?: string;
            };
        };
        MediaArray: components["schemas"]["Media"][];
        Media: {
            category?: components["schemas"]["MediaCategory"];
            mediaType: components["schemas"]["MediaType"];
            tags?: ("BALCONY" | "BASEMENT" | "BATHROOM" | "BEDROOM" | "CHILDREN_ROOM" | "CORRIDOR" | "COVER_PICTURE" | "ENERGY_CERTIFICATE" | "ENTRY_HALL" | "FLOOR_PLAN" | "GARAGE" | "GARDEN" | "HOUSE_VIEW" | "INDOOR" | "KITCHEN" | "LIVING_ROOM" | "LOGO" | "MAP" | "MISC" | "OUTDOOR" | "OUTDOOR_BUILDING" | "OUTDOOR_HOUSE" | "OUTSIDE_VIEW" | "POOL" | "PROPERTY_INFORMATION" | "SCHEMA" | "SITE_PLAN" | "STAIRS" | "STORAGE_ROOM" | "SURROUNDING" | "TERRACE" | "TOILETS" | "VERANDA" | "VIEW_FROM_PROPERTY" | "WORK_ROOM")[];
            title?: components["schemas"]["MediaTitle"];
            /** Format: url */
            url: string;
        };
        MediaPatch: ({
            /** @enum {string} */
            op: "add";
            /** @enum {string} */
            path: "/title";
            value: components["schemas"]["MediaTitle"];
        } | {
            /** @enum {string} */
            op: "add";
            /** @enum {string} */
            path: "/displayOrder";
            value: components["schemas"]["MediaDisplayOrder"];
        } | {
            /** @enum {string} */
            op: "add";
            /** @enum {string} */
            path: "/category";
            value: components["schemas"]["MediaCategory"];
        } | {
            /** @enum {string} */
            op: "remove";
            /** @enum {string} */
            path: "/category" | "/displayOrder" | "/title";
        })[];
        /** @enum {string} */
        MediaCategory: "BALCONY" | "BASEMENT" | "BATHROOM" | "BEDROOM" | "CHILDREN_ROOM" | "CORRIDOR" | "COVER_PICTURE" | "ENERGY_CERTIFICATE" | "ENTRY_HALL" | "FLOOR_PLAN" | "GARAGE" | "GARDEN" | "HOUSE_VIEW" | "INDOOR" | "KITCHEN" | "LIVING_ROOM" | "LOGO" | "MAP" | "MISC" | "OUTDOOR" | "OUTDOOR_BUILDING" | "OUTDOOR_HOUSE" | "OUTSIDE_VIEW" | "POOL" | "PROPERTY_INFORMATION" | "SCHEMA" | "SITE_PLAN" | "STAIRS" | "STORAGE_ROOM" | "SURROUNDING" | "TERRACE" | "TOILETS" | "VERANDA" | "VIEW_FROM_PROPERTY" | "WORK_ROOM";
        /** @enum {string} */
        MediaType: "PICTURE" | "VIRTUAL_TOUR" | "PANORAMA" | "VIDEO";
        MediaDisplayOrder: number;
        MediaTitle: string;
        UnauthorizedError: components["schemas"]["ErrorResponse"];
        InternalServerErrorResponse: components["schemas"]["ErrorResponse"];
        BadRequestErrorResponse: components["schemas"]["ErrorResponse"];
        ParsingErrorResponse: components["schemas"]["ErrorResponse"];
        RessourceNotFoundError: components["schemas"]["ErrorResponse"];
        ResourceAccessForbiddenError: components["schemas"]["ErrorResponse"];
        ContactsCollidingError: components["schemas"]["ErrorResponse"] & {
            errors: {
                name: string;
                reason: string;
            }[];
            /** @enum {string} */
            errorSource: "body";
        };
        ClassifiedAlreadyExistsError: components["schemas"]["ErrorResponse"];
        MediaAlreadyExistsError: components["schemas"]["ErrorResponse"];
        PreconditionFailedError: components["schemas"]["ErrorResponse"];
        ValidationErrorResponse: components["schemas"]["ErrorResponse"] & {
            errors: {
                name: string;
                reason: string;
            }[];
            /** @enum {string} */
            errorSource: "body" | "requestParameter" | "contentType" | "header";
        };
        ResourceAccessScopeForbiddenError: components["schemas"]["ErrorResponse"];
        ErrorResponse: {
            type: string;
            title: string;
            detail: string;
            instance: string;
            status: number;
        };
        classifiedsPatch: ({
            /** @enum {string} */
            op: "add";
            path: string;
            value: string | number | boolean;
        } | {
            /** @enum {string} */
            op: "remove";
            path: string;
        })[];
    };
    responses: never;
    parameters: {
        traceparentHeader: string;
        /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
        userAgentHeader: string;
    };
    requestBodies: never;
    headers: {
        traceparent: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getClassifieds: {
        parameters: {
            query?: {
                offererEstateId?: string;
                /** @description At most 250 items come in a page whatever is asked; nextToken continues */
                limit?: number;
                nextToken?: string;
            };
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of classifieds. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: (components["schemas"]["AvivClassified"] & {
                            /** Format: uuid */
                            classifiedId: string;
                        })[];
                        nextToken?: string;
                    };
                };
            };
            /** @description A parameter or the User-Agent header fails validation */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    createClassified: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AvivClassified"];
            };
        };
        responses: {
            /** @description Acknowledged: stored and queued for processing. */
            202: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    /** @description The revision this write creates, as GET /classifieds/{classifiedId} will show it */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        classifiedId?: string;
                        links?: {
                            statuses?: string;
                        }[];
                    };
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"] | components["schemas"]["ContactsCollidingError"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"] | components["schemas"]["ContactsCollidingError"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Listed by the real document; immogate does not answer this operation with 404. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the server accepts (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    GetClassified: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
                /** @description An ETag of an earlier answer: the answer is a 304 without a body while the classified is at that revision */
                "If-None-Match"?: string;
            };
            path: {
                classifiedId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The classified. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AvivClassified"] & {
                        /** Format: uuid */
                        classifiedId: string;
                    };
                };
            };
            /** @description Not modified: If-None-Match names the current ETag */
            304: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A parameter or the User-Agent header fails validation */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Not found for the agency of the token: unknown, deleted, another agency's or the other environment's. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    updateClassified: {
        parameters: {
            query?: never;
            header: {
                "If-Match"?: string;
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path: {
                classifiedId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AvivClassified"];
            };
        };
        responses: {
            /** @description Acknowledged: stored and queued for processing. */
            202: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    /** @description The revision this write creates, as GET /classifieds/{classifiedId} will show it */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        classifiedId?: string;
                        links?: {
                            statuses?: string;
                        }[];
                    };
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"] | components["schemas"]["ContactsCollidingError"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"] | components["schemas"]["ContactsCollidingError"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Not found for the agency of the token: unknown, deleted, another agency's or the other environment's. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description `If-Match` names a revision other than the current one: nothing changed. */
            412: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["PreconditionFailedError"];
                    "application/problem+json": components["schemas"]["PreconditionFailedError"];
                };
            };
            /** @description The body is larger than the server accepts (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    deleteClassified: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path: {
                classifiedId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Acknowledged: queued for deletion. */
            202: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    /** @description The revision this write creates, as GET /classifieds/{classifiedId} will show it */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        classifiedId?: string;
                        links?: {
                            statuses?: string;
                        }[];
                    };
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Not found for the agency of the token: unknown, deleted, another agency's or the other environment's. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    getClassifiedStatuses: {
        parameters: {
            query?: {
                /**
                 * @deprecated
                 * @description Deprecated: accepted and ignored
                 */
                current?: string;
                filter?: "latest";
                status?: ("RECEIVED" | "RECEIVING" | "RECEIVING_FAILED" | "CREATING" | "CREATED" | "CREATED_WITH_MEDIA_ERROR" | "CREATING_FAILED" | "UPDATING" | "UPDATED" | "UPDATED_WITH_MEDIA_ERROR" | "UPDATING_FAILED" | "DELETING" | "DELETED" | "DELETING_FAILED")[];
                portal?: ("SL" | "BUCOM" | "BD" | "SLC" | "SLN")[];
                /** @description At most 250 items come in a page whatever is asked; nextToken continues */
                limit?: number;
                nextToken?: string;
            };
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path: {
                classifiedId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of statuses. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ClassifiedStatusInternal"][];
                        nextToken?: string;
                    };
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Not found for the agency of the token: unknown, deleted, another agency's or the other environment's. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    createSubscriptionToWebhook: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Webhook"];
            };
        };
        responses: {
            /** @description Subscribed. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Listed by the real document; immogate does not answer this operation with 404. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description The body is larger than the server accepts (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteSubscriptionToWebhook: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unsubscribed. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope */
            403: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description This client has no subscription. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    validateClassified: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AvivClassified"];
            };
        };
        responses: {
            /** @description The report: errors, and each portal with the rules it would refuse the classified for. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A POST of this body would be acknowledged and accepted on every portal it asks for */
                        valid: boolean;
                        /** @description What a POST would be refused for (400): schema, body rules, duplicates */
                        errors: {
                            name: string;
                            reason: string;
                        }[];
                        /** @description false: the body fails its schema, so the business rules were not applied */
                        rulesChecked: boolean;
                        /** @description Every portal, each with the rules it would refuse the classified for */
                        portals: {
                            /** @enum {string} */
                            portal: "SL" | "BUCOM" | "BD" | "SLC" | "SLN";
                            /** @description The body lists this portal */
                            requested: boolean;
                            accepted: boolean;
                            violations: {
                                rule: string;
                                name: string;
                                reason: string;
                            }[];
                        }[];
                    };
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"] | components["schemas"]["ContactsCollidingError"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"] | components["schemas"]["ClassifiedAlreadyExistsError"] | components["schemas"]["ContactsCollidingError"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Listed by the real document; immogate does not answer this operation with 404. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the server accepts (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    listClassifiedEvents: {
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
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events, possibly empty. */
            200: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
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
            /** @description A parameter or the User-Agent header fails validation */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description Events after this cursor were removed by retention: resume from `oldestCursor`. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": Record<string, never>;
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
        };
    };
    sendWebhookTestEvent: {
        parameters: {
            query?: never;
            header: {
                traceparent?: components["parameters"]["traceparentHeader"];
                /** @description User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call the API from your code or curl. */
                "User-Agent": components["parameters"]["userAgentHeader"];
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test delivery, queued. */
            202: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uuid
                         * @description The delivery; redelivery names it by this id. Also the webhook-id header the receiver sees when eventId is null
                         */
                        id: string;
                        /**
                         * Format: uuid
                         * @description The event of the feed (GET /events) the message announces, whose id is then the webhook-id header; null when there is none
                         */
                        eventId: string | null;
                        source: string;
                        /** @enum {string} */
                        environment: "production" | "sandbox";
                        agency: string;
                        subscriptionId: string;
                        url: string;
                        /** @enum {string} */
                        state: "PENDING" | "DELIVERED" | "FAILED" | "CANCELLED";
                        attempts: number;
                        /** @description A sample sent on request (Send test event) */
                        test: boolean;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        deliveredAt: string | null;
                        /** Format: date-time */
                        nextAttemptAt: string | null;
                        lastStatusCode: number | null;
                        /** @description Why the latest attempt failed, e.g. a refused connection; null when it did not */
                        lastError: string | null;
                        /** @description What the delivery carries; null when its payload does not say */
                        event: {
                            /** @description The status sent (e.g. CREATED), or lead */
                            name: string;
                            /** @description classified or lead */
                            subjectType: string;
                            /** @description The classifiedId or the leadId */
                            subjectId: string;
                        } | null;
                        request: {
                            body: string;
                            headers: {
                                [key: string]: string;
                            };
                        };
                        attemptList: {
                            attempt: number;
                            /** Format: date-time */
                            attemptedAt: string;
                            statusCode: number | null;
                            latencyMs: number | null;
                            error: string | null;
                            requestHeaders: {
                                [key: string]: string;
                            };
                            /** @description The first 4 KiB of the answer */
                            responseBody: string | null;
                            responseTruncated: boolean;
                        }[];
                    };
                };
            };
            /** @description Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in `errors` and `errorSource` saying where; or the problem says which other rule the request breaks. */
            400: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                    "application/problem+json": components["schemas"]["ValidationErrorResponse"] | components["schemas"]["ParsingErrorResponse"] | components["schemas"]["BadRequestErrorResponse"];
                };
            };
            /** @description No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnauthorizedError"];
                    "application/problem+json": components["schemas"]["UnauthorizedError"];
                };
            };
            /** @description The token lacks the scope of the operation. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessScopeForbiddenError"];
                    "application/problem+json": components["schemas"]["ResourceAccessScopeForbiddenError"];
                };
            };
            /** @description This client has no subscription: PUT /webhooks first. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                    "application/problem+json": components["schemas"]["ResourceAccessForbiddenError"] | components["schemas"]["RessourceNotFoundError"];
                };
            };
            /** @description A request with this Idempotency-Key is still being processed: retry after Retry-After */
            409: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the server accepts (BODY_LIMIT_BYTES) */
            413: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description This Idempotency-Key was used for another request (another body or path) */
            422: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it. */
            500: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json+problem": components["schemas"]["InternalServerErrorResponse"];
                    "application/problem+json": components["schemas"]["InternalServerErrorResponse"];
                };
            };
            /** @description Any other error, as a problem. */
            default: {
                headers: {
                    traceparent: components["headers"]["traceparent"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                    "application/problem+json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
