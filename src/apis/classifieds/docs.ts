/*
 * What the classifieds API's OpenAPI document says besides the real document's facts: the prose of
 * each operation (by the real operationIds), its tags and scopes. The status webhook is the real
 * document's callback; openapi.ts describes it.
 */
import type { ApiDocs } from '../../platform/http/openapiDocs.js';
import { EVENTS_TAG, eventFeedDocs } from '../../platform/events/routes.js';
import { MAX_PAGE_SIZE } from './model/pages.js';

/** The real document lists a 404 for the creating operations too; immogate has nothing to find there. */
const NO_NOT_FOUND = 'Listed by the real document; immogate does not answer this operation with 404.';

export const classifiedDocs: ApiDocs = {
  description:
    'Agencies send their classifieds (property advertisements, with their media) here as soon as they change. A write is ' +
    'checked for format at once and acknowledged with 202; the portals then take or refuse it, which its statuses tell ' +
    '(poll them, or subscribe to the status webhook). Everything here belongs to the agency of the token (`intermediary_id`).\n\n' +
    "This is the real classifieds ingestion API 4.0.2 as immogate serves it. immogate's additions are marked " +
    '`x-immogate-extension`: `true` on what it added, or the list of the keys it added to a node of the real document.',
  tags: [
    {
      name: 'Classifieds',
      description: 'Create, read, replace and delete classifieds. Writes answer 202 at once; their outcome comes as statuses.',
    },
    { name: 'Statuses', description: 'What became of each write, portal by portal: the processing history of a classified.' },
    { name: 'Webhooks', description: 'Have every new status POSTed to your server instead of polling for it.' },
    EVENTS_TAG,
  ],
  scopes: {
    'caas:*': 'Every operation of the classifieds API',
    'caas:classifieds:*': 'Every classified operation and the status webhook',
    'caas:classifieds:read': 'List and read classifieds and their statuses',
    'caas:classifieds:create': 'Create classifieds',
    'caas:classifieds:update': 'Replace classifieds',
    'caas:classifieds:delete': 'Delete classifieds',
  },
  operations: {
    listClassifiedEvents: eventFeedDocs('caas'),
    validateClassified: {
      tags: ['Classifieds'],
      summary: 'Validate a classified without sending it (immogate extension)',
      description:
        'Checks a classified as `POST /classifieds` and processing would, and writes nothing: the format (every error, as a 400 ' +
        'would list it), a classified or media URL that is already there, and the business rules of every portal, those the ' +
        'body lists (`requested`) and the others. `valid` is true when a POST would be acknowledged and accepted on every ' +
        'portal it asks for. The console’s Try a payload calls it. At most 60 a minute per client and environment by default ' +
        '(VALIDATIONS_PER_MINUTE of the server), the console’s calls included; beyond, 429 with Retry-After.',
      responses: {
        '200': 'The report: errors, and each portal with the rules it would refuse the classified for.',
        '404': NO_NOT_FOUND,
      },
    },
    sendWebhookTestEvent: {
      tags: ['Webhooks'],
      summary: 'Send a test event to the status webhook (immogate extension)',
      description:
        'POSTs a realistic status of a made-up classified to `{url}/classifieds/{classifiedId}/statuses` of your subscription, ' +
        'signed with its secret, as any status is; its delivery, marked as a test, shows every attempt in the console. At most ' +
        '10 a minute per subscription by default (TEST_EVENTS_PER_MINUTE of the server); beyond, 429 with Retry-After.',
      responses: { '202': 'The test delivery, queued.', '404': 'This client has no subscription: PUT /webhooks first.' },
    },
    createClassified: {
      tags: ['Classifieds'],
      summary: 'Create a classified',
      description:
        'Submits a classified with its media. The body is checked at once: format (unknown members are refused), an ' +
        '`offererEstateId` already used by a live classified of the agency, a media URL already sent for another classified, ' +
        'contact details given both in `data.contact` and under `specific`. A refusal names every failing field. An accepted ' +
        'body is answered 202 with the new classifiedId, the link to its statuses and an ETag; the media are downloaded and ' +
        'the portals decide afterwards.',
      responses: { '202': 'Acknowledged: stored and queued for processing.', '404': NO_NOT_FOUND },
    },
    getClassifieds: {
      tags: ['Classifieds'],
      summary: 'List classifieds',
      description:
        `The live classifieds of the agency, newest first, each with its media and classifiedId, at most ${MAX_PAGE_SIZE} a ` +
        'page: pass the `nextToken` of an answer to continue. `offererEstateId` finds the classified with your identifier.',
      responses: { '200': 'A page of classifieds.' },
    },
    GetClassified: {
      tags: ['Classifieds'],
      summary: 'Read a classified',
      description:
        'The classified as last written, with its media and classifiedId. Its `ETag` is the current revision: send it as ' +
        '`If-Match` with a PUT to replace only what you read, or as `If-None-Match` to be answered 304 while nothing changed. ' +
        "A deleted classified, another agency's or the other environment's, is a 404.",
      responses: { '200': 'The classified.' },
    },
    updateClassified: {
      tags: ['Classifieds'],
      summary: 'Replace a classified',
      description:
        'Sends the whole classified again (a PUT replaces, it does not merge), checked as a creation is. Media are matched by ' +
        'URL: a URL kept is not downloaded again, a new one is, a missing one is removed; their order is the display order. ' +
        'With `If-Match`, a revision other than the current one is answered 412 and nothing changes. A body equal to the ' +
        'current one is acknowledged and recorded as UPDATED without processing.',
      responses: { '202': 'Acknowledged: stored and queued for processing.' },
    },
    deleteClassified: {
      tags: ['Classifieds'],
      summary: 'Delete a classified',
      description:
        'Withdraws the classified and its media from every portal. Acknowledged with 202; once its DELETED status is ' +
        'recorded, reading it is a 404.',
      responses: { '202': 'Acknowledged: queued for deletion.' },
    },
    getClassifiedStatuses: {
      tags: ['Statuses'],
      summary: "List a classified's statuses",
      description:
        'Every step of every write, newest first: RECEIVED when it was acknowledged, CREATING, UPDATING or DELETING while it ' +
        'is checked, then for the portals the outcome: CREATED, UPDATED or DELETED (`_WITH_MEDIA_ERROR` when some media could ' +
        'not be used, each named in mediaStatuses with a reason) or `_FAILED` with the broken rules in subStatusDetails. ' +
        '`filter=latest` keeps the latest revision; `status` and `portal` may be repeated.',
      responses: { '200': 'A page of statuses.' },
    },
    createSubscriptionToWebhook: {
      tags: ['Webhooks'],
      summary: 'Subscribe to status webhooks',
      description:
        "Registers where each new status of the agency's classifieds is POSTed, optionally for some statuses only (CREATED " +
        'and UPDATED include their `_WITH_MEDIA_ERROR` forms). It replaces an earlier subscription of the same client; ' +
        'statuses not delivered yet follow it to the new URL and key. Give a `secret` to verify the signatures: without one, ' +
        'immogate signs with a key of its own. The callback documents the request and how to verify it.',
      responses: { '200': 'Subscribed.', '404': NO_NOT_FOUND },
    },
    deleteSubscriptionToWebhook: {
      tags: ['Webhooks'],
      summary: 'Unsubscribe from status webhooks',
      description: "Ends the calling client's subscription; 404 when it has none.",
      responses: { '200': 'Unsubscribed.', '404': 'This client has no subscription.' },
    },
  },
  // The error answers of the real document, which the facts document keeps without their prose.
  answers: {
    '400':
      'Refused: the body, a parameter, a header (User-Agent) or the content type fails validation, each error named in ' +
      '`errors` and `errorSource` saying where; or the problem says which other rule the request breaks.',
    '401': 'No token, or one that is not valid: expired, revoked, or for another API or environment (the `audience`).',
    '403': 'The token lacks the scope of the operation.',
    '404': "Not found for the agency of the token: unknown, deleted, another agency's or the other environment's.",
    '412': '`If-Match` names a revision other than the current one: nothing changed.',
    '500': "A fault of the server: quote the problem's `instance` (the traceparent of the request) when reporting it.",
    default: 'Any other error, as a problem.',
  },
};
