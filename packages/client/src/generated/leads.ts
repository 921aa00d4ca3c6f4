/*
 * Generated from the OpenAPI document immogate serves at /seeker-leads/v1/openapi.json by
 * `npm run generate -w @immogate/client`: do not edit (a test fails when it drifts from the served document).
 */
export interface paths {
    "/leads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query: {
                    /** @description Unix seconds: the earliest ingestion date, inclusive */
                    minDate: number;
                    /** @description Unix seconds: the end of the period, exclusive; at most 7 days after minDate */
                    maxDate: number;
                    limit?: number;
                    /** @description The leadId after which to continue (links.next sets it) */
                    start?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        firstName?: string;
                        lastName: string;
                        /** @enum {string} */
                        gender?: "MALE" | "FEMALE" | "OTHER" | "PREFER_NOT_TO_DISCLOSE";
                        /** Format: email */
                        email: string;
                        /**
                         * @description FR when omitted
                         * @default FR
                         * @enum {string}
                         */
                        language?: "DE" | "EN" | "ES" | "FR" | "HE" | "IT" | "NL" | "PT" | "RU";
                        phoneNumbers: {
                            /** @enum {string} */
                            type?: "MOBILE" | "LANDLINE";
                            number: string;
                            verified?: boolean;
                        }[];
                        message: string;
                        classifiedId: string;
                        /**
                         * Format: iso-date-time
                         * @description ISO 8601 date-time; without a time zone (2026-11-22T08:00:00) it is read as UTC
                         */
                        submittedDate: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            title: string;
                            /** Format: uuid */
                            requestId: string;
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
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/leads/{leadId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    leadId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description metadata.nextToken of the previous page */
                    nextToken?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Where new leads are POSTed
                         */
                        url: string;
                        /** @description Write-only: sent as X-Api-Key with every notification and the key of its Standard Webhooks signature (HMAC-SHA256 of its ASCII bytes) */
                        apiKey: string;
                        /**
                         * @description ACTIVE when omitted
                         * @default ACTIVE
                         * @enum {string}
                         */
                        status?: "ACTIVE" | "INACTIVE";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook/subscriptions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The subscriptionId */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Write-only: sent as X-Api-Key with every notification and the key of its Standard Webhooks signature (HMAC-SHA256 of its ASCII bytes) */
                        apiKey?: string;
                        /** @enum {string} */
                        status?: "ACTIVE" | "INACTIVE";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
        post?: never;
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The subscriptionId */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
                            message: string;
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
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook/subscriptions/{id}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    /** @description How many recent events to return */
                    limit?: number;
                };
                header?: never;
                path: {
                    /** @description The subscriptionId */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
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
                            /** Format: date-time */
                            lastSuccessTimestamp: string | null;
                            /** @description Notification attempts, most recent first */
                            recentEvents: {
                                /** Format: date-time */
                                timestamp: string;
                                /** @description The webhook-id header of the notification, the same on each of its attempts */
                                deliveryId: string;
                                leadId: string | null;
                                attempt: number;
                                /** @description The receiver's HTTP status; null when none came */
                                statusCode: number | null;
                                latencyMs: number | null;
                                /** @description Why the attempt failed; null on success */
                                error: string | null;
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
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
