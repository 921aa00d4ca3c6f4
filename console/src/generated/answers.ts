/*
 * Generated from the route schemas of the answers the console reads (scripts/console-types.ts) by
 * `npm run generate:console-types`: do not edit (test/console/types.test.ts fails when it drifts).
 */
export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Problem: {
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
        Session: {
            /** @enum {string} */
            kind: "integrator" | "operator";
            clientId?: string;
            clientName?: string;
            agency?: string;
            /** @enum {string} */
            environment?: "production" | "sandbox";
            apis: {
                id: string;
                title: string;
                scopes: string[];
            }[];
            /** @description Send it as x-csrf-token with every POST, PUT and DELETE */
            csrfToken: string;
            /** Format: date-time */
            expiresAt: string;
        };
        SummaryPage: {
            items: {
                /** Format: uuid */
                classifiedId: string;
                offererEstateId: string;
                revision: number;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
                deleted: boolean;
                latest: {
                    /** @enum {string} */
                    status: "RECEIVING" | "RECEIVED" | "RECEIVING_FAILED" | "CREATING" | "CREATED" | "CREATED_WITH_MEDIA_ERROR" | "CREATING_FAILED" | "UPDATING" | "UPDATED" | "UPDATED_WITH_MEDIA_ERROR" | "UPDATING_FAILED" | "DELETING" | "DELETED" | "DELETING_FAILED";
                    subStatus: string | null;
                    /** @enum {string} */
                    stage: "processed" | "analyzed" | "accepted" | "rejected";
                    /** Format: date-time */
                    statusDate: string;
                } | null;
            }[];
            nextCursor?: string;
        };
        StatusPage: {
            items: {
                /** Format: uuid */
                statusId: string;
                /** Format: uuid */
                classifiedId: string;
                customerId: string;
                /**
                 * Format: date-time
                 * @description When the write of this revision was received
                 */
                creationDate: string;
                revision: number;
                portals: ("SL" | "BUCOM" | "BD" | "SLC" | "SLN")[];
                /** @enum {string} */
                status: "RECEIVING" | "RECEIVED" | "RECEIVING_FAILED" | "CREATING" | "CREATED" | "CREATED_WITH_MEDIA_ERROR" | "CREATING_FAILED" | "UPDATING" | "UPDATED" | "UPDATED_WITH_MEDIA_ERROR" | "UPDATING_FAILED" | "DELETING" | "DELETED" | "DELETING_FAILED";
                subStatus?: string;
                subStatusDetails?: string;
                message: string;
                /** Format: date-time */
                statusDate: string;
                mediaStatuses?: {
                    url: string;
                    /** @enum {string} */
                    status: "CREATED" | "UPDATED" | "CREATING_FAILED" | "DOWNLOADING_FAILED";
                    /** @description immogate extension: why a failed media could not be used (DNS, address policy, timeout, HTTP status, content type, size) */
                    reason?: string;
                }[];
                /**
                 * @description immogate extension: the lifecycle stage of the status
                 * @enum {string}
                 */
                stage: "processed" | "analyzed" | "accepted" | "rejected";
            }[];
            nextToken?: string;
        };
        RevisionPage: {
            items: {
                revision: number;
                /** @enum {string} */
                operation: "POST" | "PUT" | "DELETE";
                /** Format: date-time */
                receivedAt: string;
                /** Format: date-time */
                processedAt: string | null;
                /** @description A PUT of the payload already stored */
                unchanged: boolean;
            }[];
            nextCursor?: string;
        };
        Revision: {
            revision: number;
            /** @enum {string} */
            operation: "POST" | "PUT" | "DELETE";
            /** Format: date-time */
            receivedAt: string;
            /** Format: date-time */
            processedAt: string | null;
            /** @description A PUT of the payload already stored */
            unchanged: boolean;
            /** @description The classified as that write sent it; null for a DELETE */
            payload: unknown;
        };
        Changes: {
            from: number;
            to: number;
            changes: {
                /** @description JSON pointer into the payload */
                path: string;
                /** @enum {string} */
                change: "added" | "removed" | "changed";
                before?: unknown;
                after?: unknown;
            }[];
        };
        ClassifiedValidation: {
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
        CaasWebhook: {
            url: string;
            statuses: ("RECEIVING" | "RECEIVED" | "RECEIVING_FAILED" | "CREATING" | "CREATED" | "CREATED_WITH_MEDIA_ERROR" | "CREATING_FAILED" | "UPDATING" | "UPDATED" | "UPDATED_WITH_MEDIA_ERROR" | "UPDATING_FAILED" | "DELETING" | "DELETED" | "DELETING_FAILED")[] | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        } | null;
        ListingPage: {
            /** @description Oldest first, at most 100 a page */
            externalListingIds: string[];
            /** @description Send it as nextPageToken for the next page; null on the last page */
            nextPageToken: string | null;
        };
        ListingDetails: {
            /** Format: uuid */
            listingId: string;
            externalListingId: string;
            isPublished: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            lastWriteAt: string;
            /**
             * Format: date-time
             * @description Sandbox: when retention removes it (90 days after the last write); production: null
             */
            expiresAt: string | null;
            /** @description What the rules find in the stored listing, without blocking it */
            warnings: {
                type: string;
                message: string;
            }[];
            media: {
                externalMediaId: string;
                fileName: string;
                state: string;
                contentType: string;
                sizeBytes: number | null;
            }[];
        };
        ListingValidation: {
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
        OpenImmoImport: {
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
        ImportPage: {
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
        ImportAccepted: {
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
        LeadPage: {
            metadata: {
                count: number;
                limit: number;
                minDate: number;
                maxDate: number;
                start?: string;
            };
            links: {
                /** Format: uri */
                self: string;
                /**
                 * Format: uri
                 * @description The next page; absent when no more leads follow yet (continue later with start set to the last leadId)
                 */
                next?: string;
            };
            items: {
                metadata: {
                    /** Format: uuid */
                    leadId: string;
                    /** @enum {string} */
                    category: "CLASSIFIED" | "AGENCY" | "PROPERTY_SEARCH";
                    /**
                     * Format: date-time
                     * @description When immogate received the lead; what minDate and maxDate bound
                     */
                    ingestionDate: string;
                    /** Format: date-time */
                    submittedDate: string;
                    /** Format: uuid */
                    requestId: string;
                    agencyId: string;
                };
                /** @description After the author asked for erasure: firstName, lastName, name, gender, language and message null, phoneNumbers empty */
                contactRequest: {
                    firstName: string | null;
                    lastName: string | null;
                    name: string | null;
                    gender: string | null;
                    email: string;
                    language: string | null;
                    phoneNumbers: {
                        /** @enum {string} */
                        type?: "MOBILE" | "LANDLINE";
                        number: string;
                        verified?: boolean;
                    }[];
                    message: string | null;
                };
                property: {
                    classifiedId: string | null;
                };
            }[];
        };
        RecentLeads: {
            items: {
                metadata: {
                    /** Format: uuid */
                    leadId: string;
                    /** @enum {string} */
                    category: "CLASSIFIED" | "AGENCY" | "PROPERTY_SEARCH";
                    /**
                     * Format: date-time
                     * @description When immogate received the lead; what minDate and maxDate bound
                     */
                    ingestionDate: string;
                    /** Format: date-time */
                    submittedDate: string;
                    /** Format: uuid */
                    requestId: string;
                    agencyId: string;
                };
                /** @description After the author asked for erasure: firstName, lastName, name, gender, language and message null, phoneNumbers empty */
                contactRequest: {
                    firstName: string | null;
                    lastName: string | null;
                    name: string | null;
                    gender: string | null;
                    email: string;
                    language: string | null;
                    phoneNumbers: {
                        /** @enum {string} */
                        type?: "MOBILE" | "LANDLINE";
                        number: string;
                        verified?: boolean;
                    }[];
                    message: string | null;
                };
                property: {
                    classifiedId: string | null;
                };
            }[];
            /** @description The leadId to continue after (start) */
            nextCursor?: string;
        };
        SubscriptionPage: {
            metadata: {
                /** @description Items in this page */
                count: number;
                limit: number;
                /** @description Present when another page follows: pass it as nextToken */
                nextToken?: string;
            };
            items: {
                /** Format: uuid */
                subscriptionId: string;
                /** Format: uri */
                url: string;
                /** @enum {string} */
                status: "ACTIVE" | "INACTIVE";
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
            }[];
        };
        DeliverySummary: {
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
        };
        Delivery: {
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
        Redelivery: {
            redelivered: string[];
            skipped: {
                deliveryId: string;
                reason: string;
            }[];
        };
        TokenUsage: {
            clientId: string;
            days: number;
            threshold: number;
            rows: {
                clientId: string;
                name: string;
                /** Format: date */
                day: string;
                tokens: number;
                /** @description Audience and intermediary pairs tokens were issued for */
                targets: number;
                /** @description Most tokens issued for one pair that day */
                maxPerTarget: number;
                /** @description false: more than the threshold for one pair in a day */
                reusesTokens: boolean;
                failedAuthentications: number;
            }[];
            /** @description What the review says, in a sentence */
            verdict: string;
        };
        Client: {
            clientId: string;
            name: string;
            intermediaries: string[];
            scopes: string[];
            environments: ("production" | "sandbox")[];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            secretRotatedAt: string | null;
            /** Format: date-time */
            disabledAt: string | null;
        };
        ClientWithSecret: {
            client: {
                clientId: string;
                name: string;
                intermediaries: string[];
                scopes: string[];
                environments: ("production" | "sandbox")[];
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                secretRotatedAt: string | null;
                /** Format: date-time */
                disabledAt: string | null;
            };
            /** @description Shown once: only its hash is kept */
            clientSecret: string;
        };
        TokenReport: {
            days: number;
            threshold: number;
            rows: {
                clientId: string;
                name: string;
                /** Format: date */
                day: string;
                tokens: number;
                /** @description Audience and intermediary pairs tokens were issued for */
                targets: number;
                /** @description Most tokens issued for one pair that day */
                maxPerTarget: number;
                /** @description false: more than the threshold for one pair in a day */
                reusesTokens: boolean;
                failedAuthentications: number;
            }[];
        };
        Pipeline: {
            streams: {
                name: string;
                /** @description Claimable now */
                ready: number;
                /** @description Waiting for a retry after a failed run */
                scheduled: number;
                /** @description Held by a worker */
                locked: number;
            }[];
            deliveries: {
                pending: number;
                /** Format: date-time */
                oldestPendingAt: string | null;
                /** @description Retries used up; redeliver them once the receiver is fixed */
                failed: number;
                /** @description Since midnight UTC */
                deliveredToday: number;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
