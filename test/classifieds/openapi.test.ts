/*
 * The served classifieds OpenAPI document is the real one (reference/caas-v4-openapi.facts.json)
 * plus immogate's additions, each marked x-immogate-extension: the document is diffed against the
 * reference, and any difference not so marked fails.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { classifiedDocs } from '../../src/apis/classifieds/docs.js';
import { classifiedSchema } from '../../src/apis/classifieds/model/classified.js';
import { apiById } from '../../src/platform/catalogue.js';
import { documentDescription } from '../../src/platform/http/openapiDocs.js';
import { REPO_ROOT, http, type TestServer, useServer } from '../helpers.js';

type Node = Record<string, unknown>;

const MARK = 'x-immogate-extension';
const PROSE = new Set(['description', 'summary', 'title']);
/** An operation of the document: the one place, besides the root, where tags may be added. */
const OPERATION = /^\/paths\/[^/]+\/(get|put|post|delete|patch|head|options)$/;
const REFERENCE_FILE = path.join(REPO_ROOT, 'reference/caas-v4-openapi.facts.json');
const reference = JSON.parse(fs.readFileSync(REFERENCE_FILE, 'utf8')) as Node;

const fixture = useServer();
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

function step(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The node at a JSON pointer of a document; fails the test when there is none. */
function nodeAt(document: unknown, pointer: string): Node {
  const node = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (at, step) => (isNode(at) || Array.isArray(at) ? (at as Node)[step.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
      document,
    );
  assert.ok(isNode(node), `no object at ${pointer}`);
  return node;
}

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isOurs(value: unknown): boolean {
  return isNode(value) && value[MARK] === true;
}

/**
 * Every difference between the reference and the served document that no mark allows. Allowed:
 * an added object marked `x-immogate-extension: true` (and anything inside it), an added key in the
 * x-immogate- namespace, a key listed in its node's `x-immogate-extension` list (added there, or an
 * array of the reference extended at its end), array items appended as marked objects, prose
 * (description, summary, title as text), which the facts document was stripped of, and navigation:
 * the tags of an operation (names) and of the document (names with descriptions), which the real
 * document has none of.
 */
function unmarkedDifferences(expected: unknown, served: unknown, at = ''): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(served)) return [`${at}: an array became ${JSON.stringify(served)}`];
    const differences = expected.flatMap((item, i) => unmarkedDifferences(item, served[i], `${at}/${i}`));
    served.slice(expected.length).forEach((item, i) => {
      if (!isOurs(item)) differences.push(`${at}/${expected.length + i}: added without a mark`);
    });
    return differences;
  }
  if (isNode(expected)) {
    if (!isNode(served)) return [`${at}: an object became ${JSON.stringify(served)}`];
    const listed = Array.isArray(served[MARK]) ? (served[MARK] as string[]) : [];
    const differences: string[] = [];
    for (const [key, value] of Object.entries(expected)) {
      const where = `${at}/${step(key)}`;
      if (!(key in served)) differences.push(`${where}: removed`);
      else if (listed.includes(key) && Array.isArray(value) && Array.isArray(served[key])) {
        differences.push(...unmarkedDifferences(value, (served[key] as unknown[]).slice(0, value.length), where));
      } else differences.push(...unmarkedDifferences(value, served[key], where));
    }
    for (const [key, value] of Object.entries(served)) {
      if (key in expected || key.startsWith('x-immogate-') || listed.includes(key) || isOurs(value)) continue;
      if (PROSE.has(key) && typeof value === 'string') continue;
      if (key === 'tags' && isTagList(at, value)) continue;
      differences.push(`${at}/${step(key)}: added without a mark`);
    }
    return differences;
  }
  return JSON.stringify(expected) === JSON.stringify(served) ? [] : [`${at}: ${JSON.stringify(expected)} became ${JSON.stringify(served)}`];
}

/** Tags as navigation: an operation's list of names, or the document's list of names with descriptions. */
function isTagList(at: string, value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (OPERATION.test(at)) return value.every((tag) => typeof tag === 'string');
  if (at === '') {
    return value.every(
      (tag) =>
        isNode(tag) &&
        Object.keys(tag).join() === 'name,description' &&
        typeof tag.name === 'string' &&
        typeof tag.description === 'string',
    );
  }
  return false;
}

/**
 * The servers compared by their paths, in the order of their paths: the host is the operator's, and
 * so is the order (immogate lists the sandbox first, for the docs page to select it).
 */
function withServerPaths(document: Node): Node {
  const servers = (document.servers as { url: string }[])
    .map((server) => ({ ...server, url: new URL(server.url).pathname }))
    .sort((a, b) => a.url.localeCompare(b.url));
  return { ...document, servers };
}

/** JSON pointer → mark of every marked node. */
function marks(node: unknown, at = '', found: Record<string, unknown> = {}): Record<string, unknown> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) marks(item, `${at}/${i}`, found);
  else if (isNode(node)) {
    if (node[MARK] !== undefined) found[at] = node[MARK];
    for (const [key, value] of Object.entries(node)) marks(value, `${at}/${step(key)}`, found);
  }
  return found;
}

async function served(root: string): Promise<Node> {
  const result = await http('GET', `${server.base}${root}/openapi.json`);
  assert.equal(result.status, 200);
  assert.equal(result.headers.get('content-type'), 'application/json; charset=utf-8');
  return result.body as Node;
}

describe('the served classifieds OpenAPI document', () => {
  it('is the real document where nothing is marked, on both roots', async () => {
    for (const root of ['/caas/v4', '/sandbox/caas/v4']) {
      const document = await served(root);
      assert.deepEqual(unmarkedDifferences(withServerPaths(reference), withServerPaths(document)), [], root);
      assert.deepEqual(document.servers, [
        { url: `${server.base}/sandbox/caas/v4`, description: 'sandbox' },
        { url: `${server.base}/caas/v4`, description: 'production' },
      ]);
      assert.deepEqual(document.info, {
        version: '4.0.2',
        title: 'Classifieds ingestion API',
        description: documentDescription(apiById('caas'), classifiedDocs, server.base),
      });
      assert.match(
        (document.info as Node).description as string,
        /This is the real classifieds ingestion API 4\.0\.2 as immogate serves it\. immogate's additions are marked `x-immogate-extension`/,
      );
    }
  });

  it('fails the diff on any unmarked removal, change or addition', async () => {
    const document = structuredClone(await served('/caas/v4'));
    nodeAt(document, '/paths/~1classifieds/get/parameters/3/schema').default = 100;
    delete nodeAt(document, '/paths/~1classifieds/get/responses')['403'];
    nodeAt(document, '/components/schemas/Webhook').additionalProperties = false;
    (nodeAt(document, '/paths/~1classifieds~1{classifiedId}/get').parameters as Node[]).push({ name: 'X-Debug', in: 'header' });
    // Tags pass only as navigation: names on an operation, names with descriptions at the root.
    nodeAt(document, '/components/schemas/Webhook').tags = ['Webhooks'];
    nodeAt(document, '/paths/~1webhooks/delete').tags = [{ name: 'Webhooks' }];
    (document.tags as Node[]).push({ name: 'Extra', description: 'extra', externalDocs: { url: 'https://example.org' } });
    (document.servers as Node[]).pop();
    assert.deepEqual(unmarkedDifferences(withServerPaths(reference), withServerPaths(document)), [
      // The production server dropped: the sandbox is left alone to compare with the first real server.
      '/servers/0/url: "/caas/v4" became "/sandbox/caas/v4"',
      '/servers/1: an object became undefined',
      '/paths/~1classifieds/get/parameters/3/schema/default: 250 became 100',
      '/paths/~1classifieds/get/responses/403: removed',
      '/paths/~1classifieds~1{classifiedId}/get/parameters/4: added without a mark',
      '/paths/~1webhooks/delete/tags: added without a mark',
      '/components/schemas/Webhook/additionalProperties: added without a mark',
      '/components/schemas/Webhook/tags: added without a mark',
      '/tags: added without a mark',
    ]);
  });

  it('marks exactly the additions of immogate', async () => {
    const found = marks(await served('/caas/v4'));
    const problemTypes = Object.keys(found).filter((pointer) => pointer.endsWith('/application~1problem+json'));
    const bounds = Object.entries(found).filter(([, mark]) => JSON.stringify(mark) === '["maxItems"]');
    const rest = Object.fromEntries(
      Object.entries(found).filter(([pointer, mark]) => !problemTypes.includes(pointer) && JSON.stringify(mark) !== '["maxItems"]'),
    );
    const callback = '/paths/~1webhooks/put/callbacks/New status/{$request.body#~1url}~1classifieds~1classifiedId~1statuses/post';
    assert.deepEqual(rest, {
      '': ['security'],
      // A classifiedId is a UUID (8-4-4-4-12), as the route schemas check.
      '/paths/~1classifieds~1{classifiedId}/delete/parameters/0/schema': ['format', 'maxLength'],
      '/paths/~1classifieds~1{classifiedId}/get/parameters/0/schema': ['format', 'maxLength'],
      '/paths/~1classifieds~1{classifiedId}/put/parameters/0/schema': ['format', 'maxLength'],
      '/paths/~1classifieds~1{classifiedId}~1statuses/get/parameters/2/schema': ['format', 'maxLength'],
      '/paths/~1classifieds/post/responses/202/headers/ETag': true,
      '/paths/~1classifieds/post/responses/413': true,
      // immogate's own operations, marked whole; they take the create's and the subscription's error answers, 413 among them.
      '/paths/~1classifieds~1validate': true,
      '/paths/~1classifieds~1validate/post': true,
      '/paths/~1classifieds~1validate/post/responses/413': true,
      '/paths/~1webhooks~1test-events': true,
      '/paths/~1webhooks~1test-events/post': true,
      // The event feed, with GET /classifieds' header parameters and error answers (its 400 is ours).
      '/paths/~1events': true,
      '/paths/~1events/get': true,
      '/paths/~1events/get/responses/400': true,
      '/paths/~1webhooks~1test-events/post/responses/413': true,
      // Idempotency-Key on every POST, with its 409 (in flight) and 422 (another request under the key).
      '/paths/~1classifieds/post/parameters/2': true,
      '/paths/~1classifieds/post/responses/409': true,
      '/paths/~1classifieds/post/responses/422': true,
      '/paths/~1classifieds~1validate/post/parameters/2': true,
      '/paths/~1classifieds~1validate/post/responses/409': true,
      '/paths/~1classifieds~1validate/post/responses/422': true,
      '/paths/~1webhooks~1test-events/post/parameters/2': true,
      '/paths/~1webhooks~1test-events/post/responses/409': true,
      '/paths/~1webhooks~1test-events/post/responses/422': true,
      '/paths/~1classifieds/get/parameters/3/schema': ['minimum'],
      '/paths/~1classifieds/get/responses/400': true,
      '/paths/~1classifieds~1{classifiedId}/get/parameters/3': true,
      '/paths/~1classifieds~1{classifiedId}/get/responses/304': true,
      '/paths/~1classifieds~1{classifiedId}/get/responses/400': true,
      '/paths/~1classifieds~1{classifiedId}/put/responses/202/headers/ETag': true,
      '/paths/~1classifieds~1{classifiedId}/put/responses/413': true,
      '/paths/~1classifieds~1{classifiedId}/delete/responses/202/headers/ETag': true,
      '/paths/~1classifieds~1{classifiedId}~1statuses/get/parameters/7/schema': ['minimum', 'default'],
      [`${callback}/parameters/1`]: true,
      [`${callback}/parameters/2`]: true,
      [`${callback}/parameters/3`]: true,
      [`${callback}/responses/410`]: true,
      [`${callback}/responses/default`]: true,
      '/paths/~1webhooks/put/responses/413': true,
      '/paths/~1webhooks/delete/responses/403': true,
      '/components/schemas/Webhook/properties/url': ['maxLength'],
      '/components/schemas/Webhook/properties/secret': true,
      '/components/schemas/ClassifiedStatus/properties/mediaStatuses/items/properties/reason': true,
      '/components/schemas/ClassifiedStatus/properties/stage': true,
      '/components/schemas/ValidationErrorResponse/allOf/1/properties/errorSource': ['enum'],
      '/components/securitySchemes/oauth2': true,
    });
    // Every error answer of the real document also under the content type immogate sends.
    const errorAnswersOf = (operations: Node[]) =>
      operations
        .flatMap((operation) => Object.entries(operation.responses as Record<string, Node>))
        .filter(([status, response]) => (status === 'default' || Number(status) >= 400) && response.content !== undefined);
    const referencePaths = reference.paths as Record<string, Record<string, Node>>;
    const errorAnswers = errorAnswersOf(Object.values(referencePaths).flatMap((methods) => Object.values(methods)));
    // immogate's own operations answer errors as the create, the subscription and the list (the event feed) do.
    const extensionAnswers = errorAnswersOf([
      nodeAt(reference, '/paths/~1classifieds/post'),
      nodeAt(reference, '/paths/~1webhooks/put'),
      nodeAt(reference, '/paths/~1classifieds/get'),
    ]);
    assert.equal(problemTypes.length, errorAnswers.length + extensionAnswers.length);
    // One bound for each array the request schema bounds, plus PUT /webhooks' statuses and the statuses filters status and portal.
    const generatedBounds = JSON.stringify(classifiedSchema).split('"x-immogate-bound"').length - 1;
    assert.equal(bounds.length, generatedBounds + 3);
  });

  it('keeps the real operations, parameters, answers and content types, and shows the extensions', async () => {
    const document = await served('/caas/v4');
    const paths = document.paths as Record<string, Record<string, Node>>;
    // The operations of each path item (an item of immogate's own also carries its mark).
    const operations = Object.values(paths).flatMap((methods) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'put', 'post', 'delete'].includes(method))
        .map(([, operation]) => operation),
    );
    assert.deepEqual(
      operations.map((operation) => [operation.operationId, operation['x-immogate-scope']]),
      [
        ['createClassified', 'caas:classifieds:create'],
        ['getClassifieds', 'caas:classifieds:read'],
        ['GetClassified', 'caas:classifieds:read'],
        ['updateClassified', 'caas:classifieds:update'],
        ['deleteClassified', 'caas:classifieds:delete'],
        ['getClassifiedStatuses', 'caas:classifieds:read'],
        ['createSubscriptionToWebhook', 'caas:classifieds:*'],
        ['deleteSubscriptionToWebhook', 'caas:classifieds:*'],
        ['validateClassified', 'caas:classifieds:create'],
        ['listClassifiedEvents', 'caas:classifieds:read'],
        ['sendWebhookTestEvent', 'caas:classifieds:*'],
      ],
    );
    const getOne = nodeAt(document, '/paths/~1classifieds~1{classifiedId}/get');
    assert.deepEqual((getOne.parameters as Node[]).slice(1), [
      { $ref: '#/components/parameters/traceparentHeader' },
      { $ref: '#/components/parameters/userAgentHeader' },
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'An ETag of an earlier answer: the answer is a 304 without a body while the classified is at that revision',
        [MARK]: true,
      },
    ]);
    assert.deepEqual((getOne.responses as Node)['304'], {
      description: 'Not modified: If-None-Match names the current ETag',
      headers: { traceparent: { $ref: '#/components/headers/traceparent' }, ETag: { schema: { type: 'string', pattern: '^"\\d+"$' } } },
      [MARK]: true,
    });
    const statuses = nodeAt(document, '/paths/~1classifieds~1{classifiedId}~1statuses/get');
    assert.deepEqual(
      (statuses.parameters as Node[]).find((parameter) => parameter.name === 'current'),
      {
        name: 'current',
        in: 'query',
        schema: { type: 'string' },
        deprecated: true,
        description: 'Deprecated: accepted and ignored',
      },
    );
    assert.deepEqual(nodeAt(document, '/components/schemas/Webhook'), {
      type: 'object',
      required: ['url'],
      properties: {
        url: { type: 'string', format: 'url', maxLength: 2048, [MARK]: ['maxLength'] },
        statuses: {
          type: 'array',
          items: nodeAt(reference, '/components/schemas/Webhook/properties/statuses/items'),
          maxItems: 100,
          [MARK]: ['maxItems'],
          'x-immogate-bound': 'maxItems added by immogate: the contract sets no bound',
        },
        secret: {
          type: 'string',
          minLength: 16,
          maxLength: 256,
          description: 'immogate extension: the key of the Standard Webhooks signature of each delivery. Generated when absent.',
          [MARK]: true,
        },
      },
    });
    const badRequest = nodeAt(document, '/paths/~1classifieds/post/responses/400/content');
    assert.deepEqual(Object.keys(badRequest), ['application/json+problem', 'application/problem+json']);
  });
});
