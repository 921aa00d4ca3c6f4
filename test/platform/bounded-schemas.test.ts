/*
 * Every input is bounded by its schema, not by whatever a handler or the database does later: each
 * route's request schemas (body, query string, path parameters, headers) of the running app, and
 * the shared schemas they refer to, are walked, and every place a value of unbounded size could
 * pass is named by route and JSON pointer:
 * - a string with neither `maxLength` nor a bounding `enum`/`const`/`format` (our formats refuse
 *   anything past their length bound before looking at it, see platform/http/formats.ts);
 * - an array without `maxItems`;
 * - an object whose members are not bounded: `additionalProperties: false` with no
 *   `patternProperties`, or else `maxProperties` with `propertyNames` bounded as strings are (the
 *   values of members it does not name are bounded as the whole body is: its size and depth);
 * - a schema that admits any value at all (no type, no enum, no composition).
 * A route added later is walked without editing this test.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { routesOf } from '../../src/platform/http/routeTable.js';
import { BOUNDED_FORMATS } from '../../src/platform/http/formats.js';
import { useServer } from '../helpers.js';

const fixture = useServer();

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const pointerPart = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

const COMPOSITIONS = ['allOf', 'anyOf', 'oneOf'] as const;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);

/**
 * Where each unbounded value is, for one schema. `root` is the place the schema sits; `$ref`s to
 * the shared schemas (`shared`, by $id) and to `#/definitions/...` are followed once each.
 */
export function unboundedPlaces(schema: unknown, root: string, shared: Record<string, unknown>): string[] {
  const found: string[] = [];
  const followed = new Set<unknown>();
  const walk = (node: unknown, pointer: string, document: unknown, options: { headers?: boolean } = {}): void => {
    if (node === true) {
      found.push(`${root}#${pointer}: admits any value (true)`);
      return;
    }
    if (!isNode(node)) return;
    if (typeof node.$ref === 'string') {
      const [id, fragment = ''] = node.$ref.split('#');
      const base = id === '' || id === undefined ? document : shared[id];
      let target: unknown = base;
      for (const part of fragment.split('/').filter((one) => one !== '')) {
        target = isNode(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
      }
      if (target === undefined) {
        found.push(`${root}#${pointer}: $ref ${node.$ref} does not resolve`);
        return;
      }
      if (followed.has(target)) return;
      followed.add(target);
      walk(target, `${pointer}(${node.$ref})`, base);
      return;
    }
    for (const keyword of COMPOSITIONS) {
      const list = node[keyword];
      if (Array.isArray(list)) for (const [index, sub] of list.entries()) walk(sub, `${pointer}/${keyword}/${index}`, document);
    }
    if (isNode(node.if)) walk(node.if, `${pointer}/if`, document);
    if (isNode(node.then)) walk(node.then, `${pointer}/then`, document);
    if (isNode(node.else)) walk(node.else, `${pointer}/else`, document);
    if (Array.isArray(node.enum) || 'const' in node) return;
    const composed = COMPOSITIONS.some((keyword) => Array.isArray(node[keyword]));
    const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((one): one is string => typeof one === 'string');
    if (types.length === 0) {
      if (isNode(node.properties) || 'additionalProperties' in node) types.push('object');
      else if ('items' in node) types.push('array');
      else if (!composed && node.not === undefined) {
        found.push(`${root}#${pointer}: admits any value (no type)`);
        return;
      }
    }
    for (const type of types) if (!TYPES.has(type)) found.push(`${root}#${pointer}: unknown type ${type}`);
    if (types.includes('string')) {
      const bounded = typeof node.maxLength === 'number' || (typeof node.format === 'string' && BOUNDED_FORMATS.has(node.format));
      if (!bounded) found.push(`${root}#${pointer}: string without maxLength`);
    }
    if (types.includes('array')) {
      if (typeof node.maxItems !== 'number') found.push(`${root}#${pointer}: array without maxItems`);
      if (Array.isArray(node.items)) for (const [index, sub] of node.items.entries()) walk(sub, `${pointer}/items/${index}`, document);
      else if (node.items !== undefined) walk(node.items, `${pointer}/items`, document);
      else found.push(`${root}#${pointer}: array without items`);
    }
    if (types.includes('object')) {
      const properties = isNode(node.properties) ? node.properties : {};
      const patterned = isNode(node.patternProperties) ? node.patternProperties : {};
      const closed = node.additionalProperties === false && Object.keys(patterned).length === 0;
      // An object of variants (anyOf, oneOf) is bounded by each variant.
      if (!closed && !options.headers && !composed) {
        const names = node.propertyNames;
        const namesBounded = isNode(names) && (typeof names.maxLength === 'number' || Array.isArray(names.enum));
        if (typeof node.maxProperties !== 'number' || !namesBounded) {
          found.push(
            `${root}#${pointer}: object without bounded members (additionalProperties false, or maxProperties and bounded propertyNames)`,
          );
        }
      }
      for (const [name, sub] of Object.entries(properties)) walk(sub, `${pointer}/properties/${pointerPart(name)}`, document);
      for (const [name, sub] of Object.entries(patterned)) walk(sub, `${pointer}/patternProperties/${pointerPart(name)}`, document);
      // The values of members not named are bounded as the body is (size, depth) when no schema says more.
      if (isNode(node.additionalProperties)) walk(node.additionalProperties, `${pointer}/additionalProperties`, document);
    }
  };
  // Headers and query parameters are open sets, bounded together by Node's header limit (16 KB) and
  // the request-target limit (4,096 bytes), before any schema runs; the ones named are walked.
  walk(schema, '', schema, { headers: root.endsWith(' headers') || root.endsWith(' querystring') });
  return found;
}

describe('every request schema bounds every value', () => {
  const places: string[] = [];
  let routes = 0;

  before(async () => {
    await fixture.ready();
    const app = fixture.server.services.app;
    assert.ok(app, 'the server runs an HTTP app');
    const shared = app.getSchemas() as Record<string, unknown>;
    for (const route of routesOf(app)) {
      routes += 1;
      for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
        const schema = route.schema?.[part];
        if (schema !== undefined) places.push(...unboundedPlaces(schema, `${route.method} ${route.url} ${part}`, shared));
      }
    }
  });

  it('is sensitive: an unbounded string, array, open object and any-value are each named', () => {
    const named = unboundedPlaces(
      {
        type: 'object',
        additionalProperties: false,
        properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string', maxLength: 2 } }, c: { type: 'object' }, d: {} },
      },
      'X',
      {},
    );
    assert.deepEqual(named, [
      'X#/properties/a: string without maxLength',
      'X#/properties/b: array without maxItems',
      'X#/properties/c: object without bounded members (additionalProperties false, or maxProperties and bounded propertyNames)',
      'X#/properties/d: admits any value (no type)',
    ]);
  });

  it('names nothing on any route', () => {
    assert.ok(routes > 50, `only ${routes} routes recorded`);
    const named = [...new Set(places)];
    assert.equal(named.length, 0, `${named.length} unbounded:\n${named.join('\n')}`);
  });
});
