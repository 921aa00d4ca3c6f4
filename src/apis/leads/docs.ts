/*
 * What the lead API's OpenAPI document says besides its schemas: the prose of each operation, its
 * tags and scopes, and the new-lead notification (a callback of the subscribing operation).
 */
import { deliveryAnswers, signatureHeaderParameters, verifyingSignatures } from '../../platform/delivery/index.js';
import type { ApiDocs } from '../../platform/http/openapiDocs.js';
import { EVENTS_TAG, eventFeedDocs } from '../../platform/events/routes.js';
import { Lead, MAX_LEAD_PAGE_SIZE } from './model/lead.js';
import { API_KEY_HEADER } from './model/subscription.js';

const answers = deliveryAnswers('the subscription is set INACTIVE and gets no more notifications until it is made ACTIVE again');

/** The notification every ACTIVE subscription of the agency receives for a new lead. */
const newLead = {
  '{$request.body#/url}': {
    post: {
      summary: 'A new lead (sent to your url)',
      description: [
        'For every new lead of your agency, immogate POSTs the lead, as `GET /leads/{leadId}` returns it, to the url of each ' +
          'ACTIVE subscription, with the apiKey in `X-Api-Key` and a Standard Webhooks signature keyed with the same apiKey. ' +
          'Every attempt shows in the audit of the subscription.',
        verifyingSignatures('the apiKey'),
      ].join('\n\n'),
      parameters: [
        {
          name: API_KEY_HEADER,
          in: 'header',
          required: true,
          schema: { type: 'string' },
          description: "The subscription's apiKey, as it was last set.",
        },
        ...signatureHeaderParameters(),
      ],
      // The document's schemes (a token of the token service) are not how a notification authenticates: X-Api-Key above is.
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: JSON.parse(JSON.stringify(Lead)) } } },
      responses: {
        '2XX': { description: answers.success },
        '410': { description: answers.gone },
        default: { description: answers.other },
      },
    },
  },
};

export const leadDocs: ApiDocs = {
  description:
    'Leads are the contact requests that home seekers send to an agency about its classifieds. Read them by date, ' +
    'one by one, or have each new one POSTed to your server by a webhook subscription (see `POST /webhook/subscriptions`, ' +
    'its callback documents the notification). Everything here belongs to the agency of the token (`intermediary_id`).',
  tags: [
    { name: 'Leads', description: 'Submit leads, search them by the date they arrived, read one.' },
    { name: 'Subscriptions', description: 'Webhook subscriptions: where new leads are POSTed, and what became of each notification.' },
    EVENTS_TAG,
  ],
  scopes: {
    'leads:*': 'Every operation of the lead API',
    'leads:read': 'Search and read leads',
    'leads:create': 'Submit leads',
    'leads:webhooks': 'Manage webhook subscriptions and read their audit',
  },
  operations: {
    listLeadEvents: eventFeedDocs('leads'),
    sendWebhookSubscriptionTestEvent: {
      tags: ['Subscriptions'],
      summary: 'Send a test event to a subscription (immogate extension)',
      description:
        'POSTs a realistic made-up lead to the subscription’s url, whatever its status, signed with its apiKey and carrying it ' +
        'in `X-Api-Key`, as a notification goes; its delivery, marked as a test, shows every attempt in the console. At most 10 ' +
        'a minute per subscription by default (TEST_EVENTS_PER_MINUTE of the server); beyond, 429 with Retry-After.',
      responses: { '202': 'The test delivery, queued.' },
    },
    createLead: {
      tags: ['Leads'],
      summary: 'Submit a lead',
      description:
        "Records a home seeker's contact request about a classified, for the agency of the token. Unknown members are refused; " +
        '`language` is FR when left out; `submittedDate` without a time zone is read as UTC. The answer comes once the lead and a ' +
        'notification for every ACTIVE subscription of the agency are stored.',
      responses: { '200': 'The lead is stored; requestId identifies this submission.' },
    },
    getLeads: {
      tags: ['Leads'],
      summary: 'Search leads by the date they arrived',
      description:
        'The leads that arrived from `minDate` (included) to `maxDate` (excluded), both Unix seconds at most 7 days apart, in the ' +
        `order they arrived, \`limit\` (1 to ${MAX_LEAD_PAGE_SIZE}) at a time. Follow \`links.next\` for the next page: ` +
        'no lead is lost or repeated, even while new ones arrive. At most 10 requests per 200 ms per caller (429 with Retry-After).',
      responses: { '200': 'A page of leads, with the query in metadata and the links to this page and the next.' },
    },
    getLead: {
      tags: ['Leads'],
      summary: 'Read a lead',
      description:
        'One lead: its metadata, the contact request and the property. After its author asked for their data to be erased, the ' +
        "personal fields are null and phoneNumbers is empty. Another agency's lead is a 404. At most 10 requests per 200 ms per caller.",
      responses: { '200': 'The lead.' },
    },
    getLeadOpenImmoFeedback: {
      tags: ['Leads'],
      summary: 'Read a lead as OpenImmo-Feedback XML (immogate extension)',
      description:
        'The lead of `GET /leads/{leadId}` as an OpenImmo-Feedback document (version 1.2.7, UTF-8), for a CRM that imports ' +
        'portal enquiries in that format: `sender` (name `immogate`, `datum` the day the lead was submitted, UTC, ' +
        '`makler_id` the agency of the token), one `objekt` with the classifiedId as `portal_obj_id`, and its `interessent`: ' +
        '`int_id` the leadId, `anrede` (Herr or Frau from gender MALE or FEMALE), `vorname`, `nachname`, `tel` (the first ' +
        'LANDLINE number, else the first without a type), `mobil` (the first MOBILE number), `email`, `anfrage` the message. ' +
        'An element without a value is left out; characters XML 1.0 cannot carry (control characters but tab, line feed and ' +
        "carriage return) are dropped. After its author's erasure the `interessent` keeps `int_id` and `email` only, as the " +
        "JSON keeps the email. Another agency's lead is a 404; the scope and limit are those of `GET /leads/{leadId}`.",
      responses: { '200': 'The OpenImmo-Feedback document of the lead.' },
    },
    createWebhookSubscription: {
      tags: ['Subscriptions'],
      summary: 'Subscribe to new leads',
      description:
        'Registers a url where every new lead of the agency is POSTed (see the callback for the request and how to verify it). ' +
        'The subscription is ACTIVE unless `status` says INACTIVE. `apiKey` travels with each notification and keys its signature; ' +
        'it is never returned. An agency may have several subscriptions. At most 10 requests per 200 ms per caller.',
      responses: { '201': 'The new subscription (its key is never returned).' },
      callbacks: { 'New lead': newLead },
    },
    getWebhookSubscriptions: {
      tags: ['Subscriptions'],
      summary: 'List subscriptions',
      description:
        'The subscriptions of the agency, `limit` at a time; pass the `metadata.nextToken` of an answer as `nextToken` for the next page.',
      responses: { '200': 'A page of subscriptions.' },
    },
    updateWebhookSubscription: {
      tags: ['Subscriptions'],
      summary: 'Change a subscription',
      description:
        'Sets `status` (ACTIVE or INACTIVE), a new `apiKey`, or both; `updatedAt` moves. A new apiKey also signs the retries still ' +
        'pending; turning INACTIVE cancels the notifications not delivered yet.',
      responses: { '200': 'The subscription as it now is.' },
    },
    deleteWebhookSubscription: {
      tags: ['Subscriptions'],
      summary: 'Delete a subscription',
      description: 'Removes the subscription; notifications not delivered yet are dropped.',
      responses: { '200': 'The subscription as it last was, and a message.' },
    },
    getWebhookSubscriptionAudit: {
      tags: ['Subscriptions'],
      summary: "Audit a subscription's notifications",
      description:
        'When a notification last succeeded, and the latest attempts (`limit`, 1 to 100, default 10), newest first: when, the ' +
        "receiver's status code, the latency, the error, the webhook-id and the leadId.",
      responses: { '200': 'The subscription with lastSuccessTimestamp and recentEvents.' },
    },
  },
};
