/*
 * Two Ajv instances behind one schema compiler. Bodies are validated as sent: no coercion, no
 * defaults filled in, nothing removed (Fastify's default strips unknown members; the contracts
 * refuse them), every error reported at once. Query strings, path parameters and headers arrive
 * as text, so there numbers and booleans are coerced and defaults applied.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { MAX_FIELD_ERRORS, badRequest, type ErrorSource, type FieldError, type Problem } from './problems.js';

const common: Options = { allErrors: true, removeAdditional: false, strict: false, messages: true };

function withFormats(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
  addFormats.default(ajv);
  return ajv;
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
}

export function createValidators(): Validators {
  const body = withFormats(new Ajv({ ...common, coerceTypes: false, useDefaults: false }));
  const text = withFormats(new Ajv({ ...common, coerceTypes: 'array', useDefaults: true }));
  // By content: each API's routes are registered once per environment with equal schemas, which
  // need one validator (Ajv's own cache is keyed by the schema object).
  // A validator keeps no state between calls but its `errors`, read at once after each call.
  const byContent = new Map<string, ValidateFunction>();
  return {
    compiler: ({ schema, httpPart }) => {
      if (typeof schema !== 'object' || schema === null) throw new Error(`the ${httpPart ?? 'route'} schema is not a JSON Schema object`);
      const ajv = httpPart === 'body' ? body : text;
      const key = `${ajv === body ? 'body' : 'text'}\u0000${JSON.stringify(schema)}`;
      let validate = byContent.get(key);
      if (validate === undefined) {
        validate = ajv.compile(schema);
        byContent.set(key, validate);
      }
      return validate;
    },
    warmUp() {
      // An empty object: every validator's own function runs (and is compiled); what it says does not matter.
      for (const validate of byContent.values()) validate({});
    },
    addSchema(schema) {
      body.addSchema(schema);
      text.addSchema(schema);
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
  for (const error of errors) {
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
