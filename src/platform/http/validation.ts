/*
 * Two Ajv instances behind one schema compiler. Bodies are validated as sent: no coercion, no
 * defaults filled in, nothing removed (Fastify's default strips unknown members; the contracts
 * refuse them), every error reported at once. Query strings, path parameters and headers arrive
 * as text, so there numbers and booleans are coerced and defaults applied.
 */
import { _, Ajv, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { FORMATS } from './formats.js';
import { PATTERN_REASONS } from './schemas.js';
import { digest, loadGenerated } from './generated.js';
import { MAX_FIELD_ERRORS, badRequest, type ErrorSource, type FieldError, type Problem } from './problems.js';

// inlineRefs off: each $ref is a function of its own (see splitIntoFunctions), not a copy inlined.
const common: Options = { allErrors: true, removeAdditional: false, strict: false, messages: true, inlineRefs: false };
export type Part = 'body' | 'text';
const OPTIONS: Record<Part, Options> = {
  body: { ...common, coerceTypes: false, useDefaults: false },
  text: { ...common, coerceTypes: 'array', useDefaults: true },
};

/**
 * How generated code (scripts/precompile.ts, written to dist/src/generated/) reaches the format
 * checkers: by requiring this build's formats module, so a precompiled validator runs the same
 * function as one compiled at start.
 */
const FORMATS_CODE = _`require("../platform/http/formats.js").FORMATS`;

export function newAjv(part: Part, extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...OPTIONS[part], ...extra, code: { ...extra.code, formats: FORMATS_CODE } });
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
  return ajv;
}

// Keywords whose values are subschemas: a map of them, one, or a list.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependencies']);
const SCHEMA_ONE = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The same schema with each object schema below the root (one with `properties`) moved into
 * `definitions` and referred to by `$ref`, so that Ajv makes it a function of its own. Ajv makes a
 * schema one function, its nested objects and inlined references included: the classified's was
 * 2.5 MB of source, which V8 never optimises (its optimising compiler leaves out functions that
 * large), so a 5 KB classified took 450 µs to validate; split, about 100 µs, and 0.2 s instead of
 * 2.4 s to compile. What it accepts and the errors it gives (paths, keywords, messages, order)
 * are the same; only their schemaPath, which no answer shows, names the new place.
 */
export function splitIntoFunctions(schema: object): object {
  const moved: Record<string, unknown> = {};
  const place = (node: unknown): unknown => {
    if (!isNode(node) || !isNode(node.properties)) return node;
    const name = `split${Object.keys(moved).length}`;
    moved[name] = node;
    return { $ref: `#/definitions/${name}` };
  };
  const walk = (node: unknown): unknown => {
    if (!isNode(node)) return node;
    const out: Node = {};
    for (const [keyword, value] of Object.entries(node)) {
      if ((SCHEMA_MAPS.has(keyword) || keyword === 'definitions') && isNode(value)) {
        // A definition stays where it is, for the references to it; what is below it moves.
        out[keyword] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, keyword === 'definitions' ? walk(sub) : place(walk(sub))]),
        );
      } else if (SCHEMA_ONE.has(keyword)) {
        out[keyword] = Array.isArray(value) ? value.map((sub) => place(walk(sub))) : place(walk(value));
      } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) {
        out[keyword] = value.map((sub) => place(walk(sub)));
      } else {
        out[keyword] = value;
      }
    }
    return out;
  };
  const root = walk(schema) as Node;
  if (Object.keys(moved).length === 0) return root;
  return { ...root, definitions: { ...(isNode(root.definitions) ? root.definitions : {}), ...moved } };
}

/**
 * The validators the build generated (scripts/precompile.ts) as Ajv standalone code, one
 * module per part, each exporting a function per schema under `v<key>`. Compiling the schemas at
 * every start was its dearest part: about a second of CPU, the classified's schema most of it. A
 * build without them (tsc alone) compiles as before.
 */
export const PRECOMPILED_FILES: Record<Part, string> = { body: 'validators-body.cjs', text: 'validators-text.cjs' };

function loadPrecompiled(part: Part): Record<string, ValidateFunction> {
  return loadGenerated<Record<string, ValidateFunction>>(PRECOMPILED_FILES[part]) ?? {};
}

/**
 * Where a schema has `format: uuid` strings, as paths of member names (`*`: each item of an
 * array). Only the schema's own members are followed, not its `$ref`s: ids are in path
 * parameters, query strings and the few bodies that name one.
 */
export function uuidPaths(schema: unknown, prefix: string[] = []): string[][] {
  if (!isNode(schema)) return [];
  if (schema.format === 'uuid') return [prefix];
  const paths: string[][] = [];
  if (isNode(schema.properties)) {
    for (const [name, member] of Object.entries(schema.properties)) paths.push(...uuidPaths(member, [...prefix, name]));
  }
  if (isNode(schema.items)) paths.push(...uuidPaths(schema.items, [...prefix, '*']));
  for (const keyword of SCHEMA_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const sub of list) paths.push(...uuidPaths(sub, prefix));
  }
  return paths;
}

function lowerCaseAt(data: unknown, path: readonly string[], at: number): void {
  const name = path[at];
  if (name === undefined) return;
  const last = at === path.length - 1;
  const items = name === '*' ? (Array.isArray(data) ? data.keys() : []) : isNode(data) && Object.hasOwn(data, name) ? [name] : [];
  for (const key of items) {
    const container = data as Record<string | number, unknown>;
    const value = container[key];
    if (last) {
      if (typeof value === 'string') container[key] = value.toLowerCase();
    } else {
      lowerCaseAt(value, path, at + 1);
    }
  }
}

/**
 * The validator, and after it accepted a value, its UUIDs lower-cased in place: one canonical
 * form for every key, lookup and SQL after validation (Fastify hands the request's own params,
 * query and body objects to the validator), whatever letter case the client wrote.
 */
function canonicalizing(validate: ValidateFunction, schema: unknown): ValidateFunction {
  const paths = uuidPaths(schema);
  if (paths.length === 0) return validate;
  const wrapped = ((data: unknown) => {
    const valid = validate(data);
    wrapped.errors = validate.errors;
    if (valid === true) for (const path of paths) lowerCaseAt(data, path, 0);
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

export interface Validators {
  compiler: FastifySchemaCompiler<unknown>;
  /** Registers a schema with an `$id` so route schemas can `$ref` it. */
  addSchema(schema: { $id: string }): void;
  /**
   * Runs every validator compiled so far once. V8 compiles a function when it is first called: the
   * classified's validator, one large generated function, took the first POST 85 ms on the event
   * loop, every other request waiting. Called before the server listens, it costs that there.
   */
  warmUp(): void;
  /** The shared schemas and every route schema met so far, with their keys: what the build precompiles. */
  recorded(): { shared: readonly { $id: string }[]; schemas: { key: string; part: Part; schema: object }[] };
  /** How many validators came from the generated code and how many were compiled here. */
  counts(): { precompiled: number; compiled: number };
}

export function createValidators(options: { precompiled?: boolean } = {}): Validators {
  const usePrecompiled = options.precompiled ?? true;
  // The shared schemas are part of what a validator means: its key names them too.
  const shared: { $id: string }[] = [];
  let sharedDigest: string | undefined;
  // Made when a schema has no generated validator: an instance compiles its meta-schema first, tens of ms.
  const ajvs: Partial<Record<Part, Ajv>> = {};
  const ajvFor = (part: Part): Ajv => {
    let ajv = ajvs[part];
    if (ajv === undefined) {
      ajv = newAjv(part);
      for (const schema of shared) ajv.addSchema(splitIntoFunctions(schema));
      ajvs[part] = ajv;
    }
    return ajv;
  };
  const precompiled = { body: usePrecompiled ? loadPrecompiled('body') : {}, text: usePrecompiled ? loadPrecompiled('text') : {} };
  // By content: each API's routes are registered once per environment with equal schemas, which
  // need one validator (Ajv's own cache is keyed by the schema object).
  // A validator keeps no state between calls but its `errors`, read at once after each call.
  const byKey = new Map<string, { part: Part; schema: object; validate: ValidateFunction }>();
  let compiled = 0;
  return {
    compiler: ({ schema, httpPart }) => {
      if (typeof schema !== 'object' || schema === null) throw new Error(`the ${httpPart ?? 'route'} schema is not a JSON Schema object`);
      const part: Part = httpPart === 'body' ? 'body' : 'text';
      sharedDigest ??= digest(JSON.stringify(shared));
      const key = digest(`${part}\u0000${sharedDigest}\u0000${JSON.stringify(schema)}`);
      let entry = byKey.get(key);
      if (entry === undefined) {
        let validate = precompiled[part][`v${key}`];
        if (validate === undefined) {
          validate = ajvFor(part).compile(splitIntoFunctions(schema));
          compiled += 1;
        }
        entry = { part, schema, validate: canonicalizing(validate, schema) };
        byKey.set(key, entry);
      }
      return entry.validate;
    },
    warmUp() {
      // An empty object: every validator's own function runs (and is compiled); what it says does not matter.
      for (const { validate } of byKey.values()) validate({});
    },
    addSchema(schema) {
      shared.push(schema);
      sharedDigest = undefined;
      ajvs.body?.addSchema(splitIntoFunctions(schema));
      ajvs.text?.addSchema(splitIntoFunctions(schema));
    },
    recorded() {
      return { shared, schemas: [...byKey].map(([key, { part, schema }]) => ({ key, part, schema })) };
    },
    counts() {
      return { precompiled: byKey.size - compiled, compiled };
    },
  };
}

const SOURCES: Record<string, ErrorSource> = {
  body: 'body',
  querystring: 'requestParameter',
  params: 'requestParameter',
  headers: 'header',
};

/** One field error in the contract's words: a JSON pointer for the body, the bare name elsewhere. */
export function fieldError(error: FastifySchemaValidationError, source: ErrorSource): FieldError {
  const params = error.params;
  let pointer = error.instancePath;
  let reason = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') {
    pointer += `/${String(params.additionalProperty)}`;
    reason = `must NOT have additional properties: ${String(params.additionalProperty)}.`;
  } else if (error.keyword === 'required') {
    pointer += `/${String(params.missingProperty)}`;
    reason = 'is required.';
  } else if (error.keyword === 'pattern' && PATTERN_REASONS.has(String(params.pattern))) {
    reason = `${PATTERN_REASONS.get(String(params.pattern))}.`;
  } else if (error.keyword === 'enum') {
    const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
    reason = `must be equal to one of the allowed values: ${allowed.join(', ')}.`;
  } else {
    reason = `${reason}.`;
  }
  // Outside the body a problem is named by its parameter or header, also for one value of a repeated one.
  const name = source === 'body' ? pointer : (pointer.split('/')[1] ?? '');
  return { name, reason };
}

export function validationProblem(errors: readonly FastifySchemaValidationError[], context: string): Problem {
  const source = SOURCES[context] ?? 'body';
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  let unlisted = 0;
  // A text over its maxLength is refused for its length alone: what its pattern or format would
  // say of it is moot.
  const tooLong = new Set(errors.filter((error) => error.keyword === 'maxLength').map((error) => error.instancePath));
  for (const error of errors) {
    if ((error.keyword === 'pattern' || error.keyword === 'format') && tooLong.has(error.instancePath)) continue;
    if (fields.length < MAX_FIELD_ERRORS) {
      const field = fieldError(error, source);
      const key = `${field.name}\u0000${field.reason}`;
      if (seen.has(key)) continue;
      seen.add(key);
      fields.push(field);
    } else {
      // Past the listed ones only counted, keyed without composing their message (a bad body can hold thousands).
      const params = error.params;
      const key = `${error.instancePath}\u0000${error.keyword}\u0000${String(params.missingProperty ?? params.additionalProperty ?? '')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      unlisted += 1;
    }
  }
  return badRequest(fields, source, undefined, fields.length + unlisted);
}
