/*
 * The client's types, from the OpenAPI documents immogate serves at `{root}/openapi.json`: which
 * documents, where their types go, and the TypeScript openapi-typescript writes for each. The
 * generate script and the test that fails when the checked-in types drift both use this.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** The repository's root (this file runs from dist/packages/client/scripts/). */
export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const GENERATED_DIR = path.join(REPOSITORY, 'packages/client/src/generated');

export const DOCUMENTS = [
  { api: 'classifieds', root: '/caas/v4', file: 'caas.ts' },
  { api: 'listings', root: '/import-listings/v1', file: 'listings.ts' },
  { api: 'leads', root: '/seeker-leads/v1', file: 'leads.ts' },
] as const;

/** The documents of the immogate at `base` (its PUBLIC_URL), each as the JSON text it serves. */
export async function servedDocuments(base: string): Promise<Map<string, string>> {
  const documents = new Map<string, string>();
  for (const { root, file } of DOCUMENTS) {
    const response = await fetch(`${base}${root}/openapi.json`, {
      headers: { 'user-agent': 'immogate-client-generate/1.0 node/20 any/1' },
    });
    if (!response.ok) throw new Error(`${base}${root}/openapi.json answered ${response.status}`);
    documents.set(file, await response.text());
  }
  return documents;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The node a local JSON pointer (`#/components/...`) names. */
function resolvePointer(document: unknown, ref: string): unknown {
  let node = document;
  for (const step of ref.slice(2).split('/')) {
    const key = step.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(key)] : isRecord(node) ? node[key] : undefined;
    if (node === undefined) throw new Error(`the document has no ${ref}`);
  }
  return node;
}

/**
 * openapi-typescript turns a $ref into an indexed type, which cannot index into the members of an
 * allOf, anyOf or oneOf (the classifieds document's GeoJSON coordinates refer into one): such a
 * $ref is replaced by a copy of what it names.
 */
function inlineCombinatorRefs(document: unknown): unknown {
  const inline = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('a $ref into a combinator refers to itself');
    if (Array.isArray(node)) return node.map((item) => inline(item, depth));
    if (!isRecord(node)) return node;
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/') && /\/(allOf|anyOf|oneOf)\//.test(ref)) {
      return inline(structuredClone(resolvePointer(document, ref)), depth + 1);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, depth)]));
  };
  return inline(document, 0);
}

/**
 * The TypeScript of one document. Defaults of schema members are not taken as "always present"
 * (openapi-typescript's defaultNonNullable): a shared schema is also a request body, where a
 * member with a default may be left out.
 */
export async function typesOf(documentJson: string, root: string): Promise<string> {
  const document = JSON.stringify(inlineCombinatorRefs(JSON.parse(documentJson)));
  const nodes = await openapiTS(document, { defaultNonNullable: false, silent: true });
  const header = `/*\n * Generated from the OpenAPI document immogate serves at ${root}/openapi.json by\n * \`npm run generate -w @immogate/client\`: do not edit (a test fails when it drifts from the served document).\n */\n`;
  return header + astToString(nodes);
}
