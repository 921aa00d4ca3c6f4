/*
 * What an API's OpenAPI document says besides its schemas, and how it is put into a document:
 * the prose of each operation (by operationId), the tags that group them, the servers (sandbox
 * first, so the docs page calls the sandbox), the client-credentials flow of the token service,
 * and the User-Agent rule of the API. Both the generated documents and the classifieds overlay of
 * the real document go through here, so the three read alike.
 */
import { rootPath, type ApiDescriptor } from '../catalogue.js';

/** The prose of one operation; the platform adds the User-Agent rule and the scope. */
export interface OperationDocs {
  tags: readonly string[];
  summary: string;
  description: string;
  /** Descriptions of answers, by status (as the document writes it: '200', '4XX'). */
  responses?: Readonly<Record<string, string>>;
  /** Requests the API makes to the client because of this operation (its webhooks), as OpenAPI callbacks. */
  callbacks?: Readonly<Record<string, unknown>>;
  /** The body of an operation whose route reads it itself (a file, not JSON), which the route schema cannot say. */
  requestBody?: Readonly<Record<string, unknown>>;
}

/** What one API's document says, kept in one place per API (`src/apis/<api>/docs.ts`). */
export interface ApiDocs {
  /** What the API is for; the platform adds how to authorize and the User-Agent rule. */
  description: string;
  tags: readonly { name: string; description: string }[];
  /** Every scope of the API (the catalogue's list) with what it grants. */
  scopes: Readonly<Record<string, string>>;
  operations: Readonly<Record<string, OperationDocs>>;
  /**
   * Descriptions of the answers many operations share (the errors), by status, for an answer whose
   * operation describes it not: OpenAPI requires a description on every answer.
   */
  answers?: Readonly<Record<string, string>>;
}

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The name of the client-credentials scheme in every document. */
export const OAUTH_SCHEME = 'oauth2';
export const BEARER_SCHEME = 'bearerAuth';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The sandbox root first: Swagger UI preselects the first server, and trying things belongs in the sandbox. */
export function documentServers(api: ApiDescriptor, publicUrl: string): { url: string; description: string }[] {
  return [
    { url: publicUrl + rootPath(api, 'sandbox'), description: 'sandbox' },
    { url: publicUrl + rootPath(api, 'production'), description: 'production' },
  ];
}

/** What the User-Agent rule asks of a caller of `api`, said once per operation (none for an API without one). */
export function userAgentNote(api: ApiDescriptor): string | undefined {
  switch (api.userAgent) {
    case 'three-part':
      return (
        'User-Agent: required, three space-separated name/version parts (`MyCrm/1.0.0 curl/7.52.1 debian/9`), else 400. ' +
        'A browser sends its own User-Agent whatever a page asks it to, so **Try it out on the docs page is answered 400**: call ' +
        'the API from your code or curl.'
      );
    case 'firewall':
      return 'User-Agent: required, any value (a browser sends its own); a request without one is refused with 403 by the firewall.';
    case 'none':
      return undefined;
  }
}

function userAgentSection(api: ApiDescriptor): string {
  switch (api.userAgent) {
    case 'three-part':
      return (
        '## User-Agent\n\nEvery operation requires a `User-Agent` of three space-separated `name/version` parts, such as ' +
        '`MyCrm/1.0.0 curl/7.52.1 debian/9`; any other value, or none, is answered 400 with `errorSource` `header`. ' +
        "Browsers do not let a page replace their own User-Agent, so Try it out on the docs page (`/docs`) gets that 400: it shows the request and the answer's shape, " +
        'nothing more. The curl line it prints works once you add `-H "User-Agent: ..."`.'
      );
    case 'firewall':
      return (
        '## User-Agent\n\nEvery request must carry a `User-Agent` header, any value: the firewall refuses one without it ' +
        'with 403. Browsers always send one, so Try it out works from the docs page (`/docs`).'
      );
    case 'none':
      return '## User-Agent\n\nThis API asks for no particular `User-Agent`.';
  }
}

/**
 * The document's description: what the API is (`docs.description`), how to get a token on this
 * page and elsewhere, and the User-Agent rule.
 */
export function documentDescription(api: ApiDescriptor, docs: ApiDocs, publicUrl: string): string {
  const [sandbox, production] = [rootPath(api, 'sandbox'), rootPath(api, 'production')].map((root) => publicUrl + root);
  return [
    docs.description,
    '## Servers\n\n' +
      `The sandbox (\`${sandbox}\`) and production (\`${production}\`) serve the same operations on separate data; ` +
      'a token is valid for one of them only. The sandbox comes first: the docs page (`/docs`) selects it.',
    '## Authorization\n\n' +
      `Tokens come from \`POST ${publicUrl}/oauth/token\` (OAuth 2.0 client credentials, JSON or form-encoded) with ` +
      '`grant_type=client_credentials`, `client_id`, `client_secret` (or HTTP Basic), `audience` (the root URL of the server ' +
      'you call: one API in one environment), `intermediary_id` (the agency you act for) and optionally `scope`. A token lasts ' +
      '24 hours: cache it. Send it as `Authorization: Bearer <token>`.\n\n' +
      'On the docs page (`/docs`), **Authorize** (`oauth2`) asks for your client_id, client_secret and intermediary_id, and sends the selected ' +
      "server's URL as the audience: authorize again after choosing another server. `bearerAuth` takes a token you already have.",
    userAgentSection(api),
    '## Errors\n\nErrors are RFC 7807 problems (`application/problem+json`) whose `instance` is the `traceparent` of the request, also sent as a response header.',
  ].join('\n\n');
}

export interface OAuthScheme {
  type: 'oauth2';
  description: string;
  flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } };
}

/** The client-credentials flow of the token service, with the scopes of `api` and what each grants. */
export function oauthScheme(api: ApiDescriptor, publicUrl: string, docs: ApiDocs | undefined): OAuthScheme {
  const scopes = Object.fromEntries(api.scopes.map((scope) => [scope, docs?.scopes[scope] ?? '']));
  return {
    type: 'oauth2',
    description:
      'OAuth 2.0 client credentials. Besides client_id and client_secret, the token request carries `audience`, the root URL ' +
      'of the server called (one of the servers above), and `intermediary_id`, the agency. On the docs page, type ' +
      'intermediary_id below: the audience is the selected server. With no scope ticked, the token gets every scope the ' +
      'client holds for this API.',
    flows: { clientCredentials: { tokenUrl: `${publicUrl}/oauth/token`, scopes } },
  };
}

export function bearerScheme(): { type: 'http'; scheme: 'bearer'; bearerFormat: string; description: string } {
  return { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token obtained from the token service yourself.' };
}

/** Every operation of `document` by its operationId (an operation without one is a mistake of ours). */
function operationsOf(document: Node): Map<string, Node> {
  const operations = new Map<string, Node>();
  const paths = isNode(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isNode(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isNode(operation)) continue;
      const id = operation.operationId;
      if (typeof id !== 'string') throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} has no operationId`);
      operations.set(id, operation);
    }
  }
  return operations;
}

/**
 * Puts the prose of `docs` onto the operations of `document`, by operationId: tags, summary, the
 * description followed by the scope (read from the operation's `scopeKey` extension) and the
 * User-Agent rule, the descriptions of answers (the operation's, else the API's shared ones: an
 * answer left undescribed throws, as OpenAPI requires one), the callbacks and a body the route reads itself. Every operation must be
 * documented and every documented operation must exist: the two lists cannot drift apart.
 * Nothing already written is replaced (Fastify's placeholder "Default Response" aside).
 */
export function describeOperations(document: Node, api: ApiDescriptor, docs: ApiDocs, scopeKey: string): void {
  const operations = operationsOf(document);
  for (const id of Object.keys(docs.operations)) {
    if (!operations.has(id)) throw new Error(`OpenAPI: ${api.id} documents an operation ${id} that it does not have`);
  }
  const note = userAgentNote(api);
  for (const [id, operation] of operations) {
    const described = docs.operations[id];
    if (!described) throw new Error(`OpenAPI: ${api.id} operation ${id} is not documented`);
    const extra = [...(described.callbacks ? ['callbacks'] : []), ...(described.requestBody ? ['requestBody'] : [])];
    for (const key of ['tags', 'summary', 'description', ...extra]) {
      if (operation[key] !== undefined) throw new Error(`OpenAPI: ${api.id} operation ${id} has a ${key} already`);
    }
    const scope = operation[scopeKey];
    operation.tags = [...described.tags];
    operation.summary = described.summary;
    operation.description = [described.description, typeof scope === 'string' ? `Scope: \`${scope}\`.` : undefined, note]
      .filter((part) => part !== undefined)
      .join('\n\n');
    const responses = isNode(operation.responses) ? operation.responses : {};
    for (const [status, description] of Object.entries(described.responses ?? {})) {
      const response = responses[status];
      if (!isNode(response)) throw new Error(`OpenAPI: ${api.id} operation ${id} has no answer ${status} to describe`);
      if (response.description !== undefined && response.description !== 'Default Response') {
        throw new Error(`OpenAPI: ${api.id} operation ${id} answer ${status} is described already`);
      }
      response.description = description;
    }
    for (const [status, response] of Object.entries(responses)) {
      if (!isNode(response) || typeof response.$ref === 'string' || response.description !== undefined) continue;
      const shared = docs.answers?.[status];
      if (shared === undefined) throw new Error(`OpenAPI: ${api.id} operation ${id} answer ${status} has no description`);
      response.description = shared;
    }
    if (described.callbacks) operation.callbacks = structuredClone(described.callbacks);
    if (described.requestBody) operation.requestBody = structuredClone(described.requestBody);
  }
}

/** The tags of `docs` as the document lists them; every tag an operation uses must be among them. */
export function documentTags(docs: ApiDocs): { name: string; description: string }[] {
  const listed = new Set(docs.tags.map((tag) => tag.name));
  for (const [id, operation] of Object.entries(docs.operations)) {
    const unknown = operation.tags.filter((tag) => !listed.has(tag));
    if (unknown.length > 0) throw new Error(`OpenAPI: operation ${id} uses the unlisted tag ${unknown.join(', ')}`);
  }
  return docs.tags.map((tag) => ({ ...tag }));
}
