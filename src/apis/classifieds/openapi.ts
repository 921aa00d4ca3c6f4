/*
 * The OpenAPI document served at {root}/openapi.json: the real classifieds document 4.0.2
 * (reference/caas-v4-openapi.facts.json) as it is, with immogate's servers and every addition of
 * ours marked `x-immogate-extension`: `true` on an object immogate added (a property, parameter,
 * response or media type), or the list of the keys immogate added to (or appended to) in a node
 * of the real document. Nothing of the real document is removed or changed; the test that diffs
 * the two holds us to that. Every addition names the node it goes to, and a node the reference no
 * longer has throws, so a new reference version cannot be overlaid half-understood. The prose and
 * tags of docs.ts (which the facts document was stripped of) go on as in every other document.
 */
import reference from '../../../reference/caas-v4-openapi.facts.json' with { type: 'json' };
import { apiById } from '../../platform/catalogue.js';
import { Delivery, deliveryAnswers, signatureHeaderParameters, verifyingSignatures } from '../../platform/delivery/index.js';
import { documentIdempotency } from '../../platform/http/idempotency.js';
import { eventTypesPattern } from '../../platform/openapi.js';
import {
  BEARER_SCHEME,
  OAUTH_SCHEME,
  bearerScheme,
  describeOperations,
  documentDescription,
  documentServers,
  documentTags,
  oauthScheme,
  userAgentNote,
} from '../../platform/http/openapiDocs.js';
import { EVENT_OPERATION_IDS, EventPage, EventsQuery } from '../../platform/events/routes.js';
import { FEEDS } from '../../platform/events/types.js';
import { classifiedDocs } from './docs.js';
import { BOUND_MARK, BOUND_NOTE } from './model/bounds.js';
import { classifiedSchema } from './model/classified.js';
import { MAX_PAGE_SIZE } from './model/pages.js';
import { SCOPES } from './model/scopes.js';
import { PORTALS, STAGES, STATUSES } from './model/statuses.js';
import { ClassifiedValidation } from './model/validation.js';
import { STATUS_FILTER_MAX_ITEMS, SubscriptionSecret, URL_MAX_LENGTH } from './model/webhooks.js';

export const EXTENSION_MARK = 'x-immogate-extension';
/** What immogate answers problems with; the real document names `application/json+problem`. */
const PROBLEM_TYPE = 'application/problem+json';

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function ours<T extends Node>(node: T): T & { [EXTENSION_MARK]: true } {
  return { ...node, [EXTENSION_MARK]: true };
}

function resolve(root: Node, ref: string): Node {
  return at(root, ref.slice(1));
}

/** The node at a JSON pointer; a missing one means the reference changed under us. */
function at(root: Node, pointer: string): Node {
  let node: unknown = root;
  for (const step of pointer.split('/').slice(1)) {
    const key = step.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isNode(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    if (node === undefined) throw new Error(`caas OpenAPI overlay: the reference has no ${pointer}`);
  }
  if (!isNode(node)) throw new Error(`caas OpenAPI overlay: ${pointer} is not an object`);
  return node;
}

/** The objects of the array at `key` (none when absent). */
function list(node: Node, key: string): Node[] {
  const value = node[key];
  return Array.isArray(value) ? value.filter(isNode) : [];
}

/** The object members of the object at `key` (none when absent). */
function members(node: Node, key: string): [string, Node][] {
  const value = node[key];
  return isNode(value) ? Object.entries(value).filter((entry): entry is [string, Node] => isNode(entry[1])) : [];
}

/** Adds a member of ours to a node of the reference (never replacing one of its members). */
function add(node: Node, key: string, value: Node): void {
  if (key in node) throw new Error(`caas OpenAPI overlay: ${key} is already in the reference`);
  node[key] = ours(value);
}

/**
 * Adds keywords to a node of the reference, or values at the end of one of its arrays (an enum),
 * and lists those keys in the node's mark; a value of the reference is never replaced.
 */
function extend(node: Node, additions: Node): void {
  const mark = node[EXTENSION_MARK];
  const marked = Array.isArray(mark) ? mark.filter((key) => typeof key === 'string') : [];
  for (const [key, value] of Object.entries(additions)) {
    const existing = node[key];
    if (existing === undefined) node[key] = value;
    else if (Array.isArray(existing) && Array.isArray(value))
      node[key] = [...existing, ...value.filter((item) => !existing.includes(item))];
    else if (existing !== value) throw new Error(`caas OpenAPI overlay: would change ${key} of the reference`);
    if (!marked.includes(key)) marked.push(key);
  }
  node[EXTENSION_MARK] = marked;
}

/** Sets prose: the facts document carries none, so a description never replaces a contract fact. */
function describe(node: Node, description: string): void {
  if (node.description !== undefined) throw new Error('caas OpenAPI overlay: the reference already describes this node');
  node.description = description;
}

type Operations = Record<string, Node>;

function operationsOf(document: Node): Operations {
  const operations: Operations = {};
  for (const [, methods] of members(document, 'paths')) {
    for (const operation of Object.values(methods).filter(isNode)) operations[String(operation.operationId)] = operation;
  }
  return operations;
}

const TRACEPARENT = { $ref: '#/components/headers/traceparent' };
const ETAG = { type: 'string', pattern: '^"\\d+"$' };

function problemResponse(description: string, schemaName: string): Node {
  return {
    description,
    headers: { traceparent: TRACEPARENT },
    content: { [PROBLEM_TYPE]: { schema: { $ref: `#/components/schemas/${schemaName}` } } },
  };
}

function overlayOperations(document: Node): void {
  const operations = operationsOf(document);
  for (const [operationId, scope] of Object.entries(SCOPES)) {
    const operation = operations[operationId];
    if (!operation) throw new Error(`caas OpenAPI overlay: the reference has no operation ${operationId}`);
    operation['x-immogate-scope'] = scope;
  }
  const operation = (operationId: keyof typeof SCOPES): Node => at(operations, `/${operationId}`);
  const responses = (operationId: keyof typeof SCOPES): Node => at(operation(operationId), '/responses');

  const getOne = operation('GetClassified');
  if (!Array.isArray(getOne.parameters)) throw new Error('caas OpenAPI overlay: GetClassified has no parameters in the reference');
  getOne.parameters.push(
    ours({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'An ETag of an earlier answer: the answer is a 304 without a body while the classified is at that revision',
    }),
  );
  add(responses('GetClassified'), '304', {
    description: 'Not modified: If-None-Match names the current ETag',
    headers: { traceparent: TRACEPARENT, ETag: { schema: ETAG } },
  });
  for (const operationId of ['createClassified', 'updateClassified', 'deleteClassified'] as const) {
    const accepted = at(responses(operationId), '/202/headers');
    add(accepted, 'ETag', {
      schema: ETAG,
      description: 'The revision this write creates, as GET /classifieds/{classifiedId} will show it',
    });
  }

  // Answers immogate gives where the reference lists none: a bad parameter or User-Agent, a token
  // without the scope, a body over the size limit.
  const badParameter = 'A parameter or the User-Agent header fails validation';
  add(responses('getClassifieds'), '400', problemResponse(badParameter, 'ValidationErrorResponse'));
  add(responses('GetClassified'), '400', problemResponse(badParameter, 'ValidationErrorResponse'));
  add(responses('deleteSubscriptionToWebhook'), '403', problemResponse('The token lacks the scope', 'ResourceAccessScopeForbiddenError'));
  for (const operationId of ['createClassified', 'updateClassified', 'createSubscriptionToWebhook'] as const) {
    add(responses(operationId), '413', problemResponse('The body is larger than the server accepts (BODY_LIMIT_BYTES)', 'ErrorResponse'));
  }

  const pageNote = `At most ${MAX_PAGE_SIZE} items come in a page whatever is asked; nextToken continues`;
  const parameter = (operationId: keyof typeof SCOPES, name: string): Node => {
    const found = list(operation(operationId), 'parameters').find((candidate) => candidate.name === name);
    if (!found) throw new Error(`caas OpenAPI overlay: ${operationId} has no parameter ${name} in the reference`);
    return found;
  };
  const listLimit = parameter('getClassifieds', 'limit');
  extend(at(listLimit, '/schema'), { minimum: 1 });
  describe(listLimit, pageNote);
  const statusLimit = parameter('getClassifiedStatuses', 'limit');
  extend(at(statusLimit, '/schema'), { minimum: 1, default: MAX_PAGE_SIZE });
  describe(statusLimit, pageNote);
  describe(parameter('getClassifiedStatuses', 'current'), 'Deprecated: accepted and ignored');
  extend(at(parameter('getClassifiedStatuses', 'classifiedId'), '/schema'), { format: 'uuid' });
}

/** Every error answer documented also under the content type immogate sends, beside the real one. */
function overlayProblemTypes(document: Node): void {
  for (const operation of Object.values(operationsOf(document))) {
    for (const [status, response] of members(operation, 'responses')) {
      const content = Object.fromEntries(members(response, 'content'));
      if (!(status === 'default' || Number(status) >= 400) || content[PROBLEM_TYPE]) continue;
      const documented = content['application/json+problem'] ?? content['application/json'];
      if (documented) add(at(response, '/content'), PROBLEM_TYPE, { schema: structuredClone(documented.schema) });
    }
  }
}

/**
 * The parameters' bounds the server enforces (the route schemas): a classifiedId is a UUID, and
 * the statuses filters repeat at most once per value.
 */
function overlayParameterBounds(document: Node): void {
  for (const [, item] of members(document, 'paths')) {
    for (const [, operation] of Object.entries(item)) {
      if (!isNode(operation) || !Array.isArray(operation.parameters)) continue;
      for (const parameter of operation.parameters) {
        if (!isNode(parameter) || parameter.in !== 'path' || parameter.name !== 'classifiedId' || !isNode(parameter.schema)) continue;
        extend(parameter.schema, { format: 'uuid', maxLength: 36 });
      }
    }
  }
  const statusesQuery = at(document, '/paths/~1classifieds~1{classifiedId}~1statuses/get');
  const bounds: Record<string, number> = { status: STATUSES.length, portal: PORTALS.length };
  for (const parameter of Array.isArray(statusesQuery.parameters) ? statusesQuery.parameters : []) {
    if (!isNode(parameter) || parameter.in !== 'query' || !isNode(parameter.schema)) continue;
    const bound = bounds[String(parameter.name)];
    if (bound === undefined) continue;
    extend(parameter.schema, { maxItems: bound });
    parameter.schema[BOUND_MARK] = BOUND_NOTE;
  }
}

function overlaySchemas(document: Node): void {
  overlayParameterBounds(document);
  const schemas = at(document, '/components/schemas');
  const webhook = at(schemas, '/Webhook/properties');
  add(webhook, 'secret', { ...SubscriptionSecret });
  extend(at(webhook, '/url'), { maxLength: URL_MAX_LENGTH });
  const statuses = at(webhook, '/statuses');
  extend(statuses, { maxItems: STATUS_FILTER_MAX_ITEMS });
  statuses[BOUND_MARK] = BOUND_NOTE;

  const status = at(schemas, '/ClassifiedStatus/properties');
  add(status, 'stage', {
    type: 'string',
    enum: [...STAGES],
    description: "The status's stage of the lifecycle: processed (received), analyzed (being checked), accepted or rejected",
  });
  add(at(status, '/mediaStatuses/items/properties'), 'reason', {
    type: 'string',
    description: 'Why a failed media could not be used: DNS, address policy, timeout, HTTP status, content type, size',
  });

  // The classifieds spec answers a header failing validation (User-Agent) with errorSource "header".
  extend(at(schemas, '/ValidationErrorResponse/allOf/1/properties/errorSource'), { enum: ['header'] });
  overlayArrayBounds(document);
}

/**
 * Calls `visit` with every array schema under `schema` and its path (`/media/[]/tags`, and
 * `/data/location/geometry<2>/coordinates` in the third of several alternatives: the GeoJSON
 * variants nest their coordinates differently). `$ref`s are followed within `root`; the parts of
 * an allOf, and a lone alternative, add nothing to the path.
 */
function eachArray(root: Node, schema: Node, visit: (array: Node, path: string) => void, path = '', open = new Set<Node>()): void {
  if (open.has(schema)) return;
  open.add(schema);
  if (typeof schema.$ref === 'string') eachArray(root, resolve(root, schema.$ref), visit, path, open);
  for (const member of list(schema, 'allOf')) eachArray(root, member, visit, path, open);
  for (const combinator of ['anyOf', 'oneOf']) {
    const alternatives = list(schema, combinator);
    for (const [i, member] of alternatives.entries())
      eachArray(root, member, visit, alternatives.length > 1 ? `${path}<${i}>` : path, open);
  }
  for (const [name, property] of members(schema, 'properties')) {
    eachArray(root, property, visit, `${path}/${name}`, open);
  }
  if (isNode(schema.items)) {
    visit(schema, path);
    eachArray(root, schema.items, visit, `${path}/[]`, open);
  }
  open.delete(schema);
}

/**
 * The arrays the reference leaves unbounded carry a maxItems of ours in the request schema
 * (scripts/generate-caas-schema.ts); the same bound goes onto the reference's array at the same data path.
 */
function overlayArrayBounds(document: Node): void {
  // Read only; JSON imported as a module is typed readonly by its wrapper, not by what it is.
  const generated = classifiedSchema as Node;
  const bounds = new Map<string, Node>();
  eachArray(generated, generated, (array, path) => {
    if (array[BOUND_MARK] !== undefined) bounds.set(path, array);
  });
  const met = new Set<string>();
  const classified = at(document, '/components/schemas/AvivClassified');
  eachArray(document, classified, (array, path) => {
    const bound = bounds.get(path);
    if (!bound) return;
    met.add(path);
    // A component reached along two paths takes both bounds, so they must agree.
    if (array.maxItems !== undefined && array.maxItems !== bound.maxItems) throw new Error(`caas OpenAPI overlay: two bounds for ${path}`);
    extend(array, { maxItems: bound.maxItems });
    array[BOUND_MARK] = bound[BOUND_MARK];
  });
  const unmet = [...bounds.keys()].filter((path) => !met.has(path));
  if (unmet.length > 0) throw new Error(`caas OpenAPI overlay: the reference has no array at ${unmet.join(', ')}`);
}

/**
 * What the docs page needs beyond the facts: prose on operations, tags, the token service's
 * client-credentials scheme (ours, beside the real bearer scheme, as an alternative of the real
 * security requirement), the status webhook's headers and answers, and the User-Agent rule.
 */
function overlayDocs(document: Node, publicUrl: string): void {
  const api = apiById('caas');
  const info = at(document, '/info');
  info.title = 'Classifieds ingestion API';
  info.description = documentDescription(api, classifiedDocs, publicUrl);
  // Navigation, not contract: the diff lets the top-level and operation tags through like prose.
  document.tags = documentTags(classifiedDocs);
  describeOperations(document, api, classifiedDocs, 'x-immogate-scope');

  const schemes = at(document, '/components/securitySchemes');
  add(schemes, OAUTH_SCHEME, { ...oauthScheme(api, publicUrl, classifiedDocs) });
  describe(at(schemes, `/${BEARER_SCHEME}`), bearerScheme().description);
  extend(document, { security: [{ [OAUTH_SCHEME]: [] }] });

  const userAgent = userAgentNote(api);
  if (userAgent) describe(at(document, '/components/parameters/userAgentHeader'), userAgent);

  const callback = at(
    document,
    '/paths/~1webhooks/put/callbacks/New status/{$request.body#~1url}~1classifieds~1classifiedId~1statuses/post',
  );
  const answers = deliveryAnswers('the subscription ends');
  callback.summary = 'A new status (sent to your url)';
  describe(
    callback,
    [
      "Each new status of the agency's classifieds (of the statuses subscribed to) is POSTed to " +
        '`{url}/classifieds/{classifiedId}/statuses`, the body a status as `GET /classifieds/{classifiedId}/statuses` lists ' +
        'it, with a Standard Webhooks signature keyed with the `secret` of the subscription.',
      verifyingSignatures('the `secret` of the subscription'),
    ].join('\n\n'),
  );
  if (!Array.isArray(callback.parameters)) throw new Error('caas OpenAPI overlay: the status callback has no parameters in the reference');
  callback.parameters.push(...signatureHeaderParameters().map((parameter) => ours(parameter)));
  const responses = at(callback, '/responses');
  describe(at(responses, '/201'), answers.success);
  add(responses, '410', { description: answers.gone });
  add(responses, 'default', { description: answers.other });
}

/**
 * Operations of immogate's own, marked whole: POST /classifieds/validate (what a POST would meet,
 * nothing written), POST /webhooks/test-events (a sample status sent to the subscription) and GET
 * /events (the event feed, with the header parameters and error answers of GET /classifieds).
 * They take the create and subscribe operations' parameters (User-Agent, traceparent) and answers
 * to errors, and their scopes.
 */
function overlayExtensionOperations(document: Node): void {
  const paths = at(document, '/paths');
  const create = at(document, '/paths/~1classifieds/post');
  const subscribe = at(document, '/paths/~1webhooks/put');
  const errorsOf = (operation: Node) =>
    Object.fromEntries(members(operation, 'responses').filter(([status]) => status === 'default' || Number(status) >= 400));
  const plain = (schema: unknown): Node => JSON.parse(JSON.stringify(schema));
  add(
    paths,
    '/classifieds/validate',
    ours({
      post: ours({
        operationId: 'validateClassified',
        'x-immogate-scope': SCOPES.createClassified,
        parameters: structuredClone(create.parameters),
        requestBody: structuredClone(create.requestBody),
        responses: {
          '200': {
            headers: { traceparent: TRACEPARENT },
            content: { 'application/json': { schema: plain(ClassifiedValidation) } },
          },
          ...structuredClone(errorsOf(create)),
        },
      }),
    }),
  );
  const read = at(document, '/paths/~1classifieds/get');
  add(
    paths,
    '/events',
    ours({
      get: ours({
        operationId: EVENT_OPERATION_IDS.caas,
        'x-immogate-scope': FEEDS.caas.scope,
        parameters: [
          ...structuredClone(
            list(read, 'parameters').filter(
              (parameter) => (typeof parameter.$ref === 'string' ? resolve(document, parameter.$ref) : parameter).in === 'header',
            ),
          ),
          ...Object.entries(plain(EventsQuery).properties as Record<string, Node>).map(([name, schema]) => ({
            name,
            in: 'query',
            required: false,
            description: schema.description,
            schema: { ...schema, description: undefined, ...(name === 'types' ? { pattern: eventTypesPattern(FEEDS.caas.types) } : {}) },
          })),
        ],
        responses: {
          '200': {
            headers: { traceparent: TRACEPARENT },
            content: { 'application/json': { schema: plain(EventPage) } },
          },
          '410': { content: { [PROBLEM_TYPE]: { schema: { type: 'object' } } } },
          ...structuredClone(errorsOf(read)),
        },
      }),
    }),
  );
  add(
    paths,
    '/webhooks/test-events',
    ours({
      post: ours({
        operationId: 'sendWebhookTestEvent',
        'x-immogate-scope': SCOPES.createSubscriptionToWebhook,
        parameters: structuredClone(subscribe.parameters),
        responses: {
          '202': {
            headers: { traceparent: TRACEPARENT },
            content: { 'application/json': { schema: plain(Delivery) } },
          },
          ...structuredClone(errorsOf(subscribe)),
        },
      }),
    }),
  );
}

/** The served document for a server reachable at `publicUrl`. */
export function classifiedsOpenApi(publicUrl: string): Node {
  // The JSON module's literal type is no use here: the overlay reads it as the JSON tree it is.
  const document = structuredClone(reference) as Node;
  // The real servers at the operator's host, the sandbox first: the docs page calls the first.
  document.servers = documentServers(apiById('caas'), publicUrl);
  overlayOperations(document);
  overlayProblemTypes(document);
  overlaySchemas(document);
  overlayExtensionOperations(document);
  documentIdempotency(document, (description) => problemResponse(description, 'ErrorResponse'));
  overlayDocs(document, publicUrl);
  return document;
}
