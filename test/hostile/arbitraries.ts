/*
 * fast-check arbitraries from the JSON Schemas of a served OpenAPI 3.0 document: values a route's
 * own schema accepts, and the same values bent out of shape (a member dropped or added, a value
 * swapped for any JSON) — what a fuzzer needs to reach both the handlers and the refusals.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';

export type Schema = { [keyword: string]: unknown };
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
export interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

/** Beyond this depth optional members are left out, so bodies of the 1,000-field classified stay small. */
const MAX_DEPTH = 6;
const MAX_ITEMS = 3;

/** A local $ref: a component, or any node of the document (the real one points into a component). */
function resolve(document: OpenApiDocument, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, step) => (node as Record<string, unknown> | undefined)?.[step.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return resolve(document, target as Schema);
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.max(minLength, Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 24, 24));
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
      // Addresses, not names: a fuzzer must not make the server resolve made-up domains.
      return fc.tuple(fc.ipV4(), fc.stringMatching(/^\/[a-z0-9]{0,12}$/)).map(([ip, path]) => `https://${ip}${path}`);
    case 'url':
      // The classifieds document's `url` is not a standard format; ajv-formats reads it as a RegExp refusing private and loopback hosts.
      return stringOf({ format: 'uri' }).filter((url) => (fullFormats.url as RegExp).test(url));
    case 'uuid':
      return fc.uuid();
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    try {
      // Lengths are a separate rule: a generated match that breaks them is cut or left as it is (a bent value).
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .map((text) => text.slice(0, typeof schema.maxLength === 'number' ? schema.maxLength : undefined));
    } catch {
      // fast-check cannot generate from every regular expression (lookaheads); plain text then.
    }
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Values `schema` accepts (as far as a generator can tell: patterns and formats are honoured, cross-field rules are not). */
export function valid(document: OpenApiDocument, input: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, input);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const variants = schema[keyword];
    if (Array.isArray(variants)) return fc.oneof(...variants.map((variant) => valid(document, variant as Schema, depth + 1)));
  }
  if (Array.isArray(schema.allOf)) return valid(document, schema.allOf[0] as Schema, depth + 1);
  const base = (() => {
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'string':
        return stringOf(schema);
      case 'integer':
        return numberOf(schema, true);
      case 'number':
        return numberOf(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
        const maxLength = Math.max(minLength, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : MAX_ITEMS, MAX_ITEMS));
        return fc.array(valid(document, (schema.items ?? {}) as Schema, depth + 1), { minLength, maxLength });
      }
      case 'object':
      case undefined: {
        const properties = (schema.properties ?? {}) as Record<string, Schema>;
        const required = new Set((schema.required ?? []) as string[]);
        const names = Object.keys(properties).filter((name) => required.has(name) || depth < MAX_DEPTH);
        if (names.length === 0) return type === 'object' ? fc.constant({}) : fc.jsonValue();
        const shape = Object.fromEntries(names.map((name) => [name, valid(document, properties[name] as Schema, depth + 1)]));
        return fc.record(shape, { requiredKeys: names.filter((name) => required.has(name)) });
      }
      default:
        return fc.jsonValue();
    }
  })();
  return schema.nullable === true ? fc.option(base, { nil: null }) : base;
}

/** A value bent once: a member dropped, an unknown member added, or a value replaced by any JSON. */
export function bent(values: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(values, fc.nat(), fc.constantFrom('drop', 'add', 'replace', 'anything'), fc.jsonValue({ maxDepth: 3 }))
    .map(([original, pick, how, other]) => {
      if (how === 'anything') return other;
      const value = structuredClone(original);
      const slots = containers(value);
      const target = slots[pick % slots.length];
      if (!target) return other;
      const keys = Object.keys(target);
      const key = keys[pick % Math.max(keys.length, 1)];
      if (how === 'drop' && key !== undefined) delete (target as Record<string, unknown>)[key];
      else if (how === 'add' && !Array.isArray(target)) (target as Record<string, unknown>)[`unknown${pick % 97}`] = other;
      else if (key !== undefined) (target as Record<string, unknown>)[key] = other;
      return value;
    });
}

function containers(value: unknown): object[] {
  const found: object[] = [];
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next !== null && typeof next === 'object') {
      found.push(next);
      pending.push(...Object.values(next));
    }
  }
  return found;
}
