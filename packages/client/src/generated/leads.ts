/*
 * Generated from the OpenAPI document immogate serves at /seeker-leads/v1/openapi.json by
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
         * @description What happened to your agency in this environment, oldest first, in commit order: `lead.received`. Pass the `next` of a page as `after` to read on; a follower never misses an event, even of transactions that commit out of order. With `wait` (at most 30 seconds) an empty answer waits until an event exists. Events are kept as long as webhook deliveries (DELIVERY_RETENTION_DAYS of the server); an `after` older than that is answered 410 with the `oldestCursor` to resume from.
         *
         *     Scope: `leads:read`.
         */
        get: operations["listLeadEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/leads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search leads by the date they arrived
         * @description The leads that arrived from `minDate` (included) to `maxDate` (excluded), both Unix seconds at most 7 days apart, in the order they arrived, `limit` (1 to 100) at a time. Follow `links.next` for the next page: no lead is lost or repeated, even while new ones arrive. At most 10 requests per 200 ms per caller (429 with Retry-After).
         *
         *     Scope: `leads:read`.
         */
        get: operations["getLeads"];
        put?: never;
        /**
         * Submit a lead
         * @description Records a home seeker's contact request about a classified, for the agency of the token. Unknown members are refused; `language` is FR when left out; `submittedDate` without a time zone is read as UTC. The answer comes once the lead and a notification for every ACTIVE subscription of the agency are stored.
         *
         *     Scope: `leads:create`.
         */
        post: operations["createLead"];
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
        /**
         * Read a lead
         * @description One lead: its metadata, the contact request and the property. After its author asked for their data to be erased, the personal fields are null and phoneNumbers is empty. Another agency's lead is a 404. At most 10 requests per 200 ms per caller.
         *
         *     Scope: `leads:read`.
         */
        get: operations["getLead"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/leads/{leadId}/openimmo-feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a lead as OpenImmo-Feedback XML (immogate extension)
         * @description The lead of `GET /leads/{leadId}` as an OpenImmo-Feedback document (version 1.2.7, UTF-8), for a CRM that imports portal enquiries in that format: `sender` (name `immogate`, `datum` the day the lead was submitted, UTC, `makler_id` the agency of the token), one `objekt` with the classifiedId as `portal_obj_id`, and its `interessent`: `int_id` the leadId, `anrede` (Herr or Frau from gender MALE or FEMALE), `vorname`, `nachname`, `tel` (the first LANDLINE number, else the first without a type), `mobil` (the first MOBILE number), `email`, `anfrage` the message. An element without a value is left out; characters XML 1.0 cannot carry (control characters but tab, line feed and carriage return) are dropped. After its author's erasure the `interessent` keeps `int_id` and `email` only, as the JSON keeps the email. Another agency's lead is a 404; the scope and limit are those of `GET /leads/{leadId}`.
         *
         *     Scope: `leads:read`.
         */
        get: operations["getLeadOpenImmoFeedback"];
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
        /**
         * List subscriptions
         * @description The subscriptions of the agency, `limit` at a time; pass the `metadata.nextToken` of an answer as `nextToken` for the next page.
         *
         *     Scope: `leads:webhooks`.
         */
        get: operations["getWebhookSubscriptions"];
        put?: never;
        /**
         * Subscribe to new leads
         * @description Registers a url where every new lead of the agency is POSTed (see the callback for the request and how to verify it). The subscription is ACTIVE unless `status` says INACTIVE. `apiKey` travels with each notification and keys its signature; it is never returned. An agency may have several subscriptions. At most 10 requests per 200 ms per caller.
         *
         *     Scope: `leads:webhooks`.
         */
        post: operations["createWebhookSubscription"];
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
        /**
         * Change a subscription
         * @description Sets `status` (ACTIVE or INACTIVE), a new `apiKey`, or both; `updatedAt` moves. A new apiKey also signs the retries still pending; turning INACTIVE cancels the notifications not delivered yet.
         *
         *     Scope: `leads:webhooks`.
         */
        put: operations["updateWebhookSubscription"];
        post?: never;
        /**
         * Delete a subscription
         * @description Removes the subscription; notifications not delivered yet are dropped.
         *
         *     Scope: `leads:webhooks`.
         */
        delete: operations["deleteWebhookSubscription"];
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
        /**
         * Audit a subscription's notifications
         * @description When a notification last succeeded, and the latest attempts (`limit`, 1 to 100, default 10), newest first: when, the receiver's status code, the latency, the error, the webhook-id and the leadId.
         *
         *     Scope: `leads:webhooks`.
         */
        get: operations["getWebhookSubscriptionAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook/subscriptions/{id}/test-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to a subscription (immogate extension)
         * @description POSTs a realistic made-up lead to the subscription’s url, whatever its status, signed with its apiKey and carrying it in `X-Api-Key`, as a notification goes; its delivery, marked as a test, shows every attempt in the console. At most 10 a minute per subscription by default (TEST_EVENTS_PER_MINUTE of the server); beyond, 429 with Retry-After.
         *
         *     Scope: `leads:webhooks`.
         */
        post: operations["sendWebhookSubscriptionTestEvent"];
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
export interface operations {
    listLeadEvents: {
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
    getLeads: {
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
            /** @description A page of leads, with the query in metadata and the links to this page and the next. */
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
    createLead: {
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
            /** @description The lead is stored; requestId identifies this submission. */
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
    getLead: {
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
            /** @description The lead. */
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
    getLeadOpenImmoFeedback: {
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
            /** @description The OpenImmo-Feedback document of the lead. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/xml": string;
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
    getWebhookSubscriptions: {
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
            /** @description A page of subscriptions. */
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
    createWebhookSubscription: {
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
            /** @description The new subscription (its key is never returned). */
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
    updateWebhookSubscription: {
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
            /** @description The subscription as it now is. */
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
    deleteWebhookSubscription: {
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
            /** @description The subscription as it last was, and a message. */
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
    getWebhookSubscriptionAudit: {
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
            /** @description The subscription with lastSuccessTimestamp and recentEvents. */
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
                            /** @description The notification (one per lead and subscription), the same on each of its attempts; its webhook-id header is the lead's id, the id of the lead.received event of GET /events */
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
    sendWebhookSubscriptionTestEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry of this POST safe: the first answer (status, headers, body) is kept with the key for 24 h, per client, environment and agency. The same key with the same body gets that answer again, with `Idempotent-Replayed: true`, and nothing is done twice; with another body (or path) it gets 422; while the first request still runs, 409 with Retry-After. 5xx and 429 answers are not kept: the same key may be sent again. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The subscriptionId */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test delivery, queued. */
            202: {
                headers: {
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
}
