/*
 * The judge's request pass, generated from a served document with fast-check at a fixed seed:
 * for every operation, requests its document allows (positive) and requests it refuses
 * (negative: one parameter, header or body member bent, or a bound crossed by one). Values come
 * from the operation's own schemas (test/hostile/arbitraries.ts); where a valid value needs more
 * than a schema can say, a generator below starts from a body known to pass (the fixtures) and adds
 * generated members: classifieds grow optional members of the real `RealEstate` schema, listings and
 * leads vary the Berlin apartment and the fixture lead. What only prose states (the lead search's
 * 7-day window, a listing PUT naming its own id) is kept by `fixups`, each naming its rule.
 */
import fc from 'fast-check';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { berlinRentApartment } from '../fixtures/listings.js';
import { bent, valid, type OpenApiDocument, type Schema } from '../hostile/arbitraries.js';

export type Intent = 'positive' | 'negative' | 'walkthrough';

export interface Case {
  operationId: string;
  method: string;
  /** The document's path template (`/classifieds/{classifiedId}`). */
  template: string;
  /** Path parameters; KNOWN stands for an id this run created (one of the pool's, chosen when sent). */
  path: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: unknown;
  intent: Intent;
  /** What was bent, for a negative case. */
  bent?: string;
}

/** A path value standing for an id this run created. */
export const KNOWN = '\u0000known';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  explode?: boolean;
  style?: string;
}

interface DocumentOperation {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}

export interface Operation {
  operationId: string;
  method: string;
  template: string;
  parameters: Parameter[];
  bodySchema?: Schema;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation of `document`, its parameters' $refs resolved. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const resolveParameter = (parameter: Parameter | { $ref: string }): Parameter => {
    if (!('$ref' in parameter)) return parameter;
    const name = parameter.$ref.replace('#/components/parameters/', '');
    const found = (document.components as { parameters?: Record<string, Parameter> } | undefined)?.parameters?.[name];
    if (!found) throw new Error(`unresolved ${parameter.$ref}`);
    return found;
  };
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, value] of Object.entries(item).filter(([name]) => METHODS.includes(name))) {
      const operation = value as unknown as DocumentOperation;
      operations.push({
        operationId: operation.operationId,
        method,
        template,
        parameters: (operation.parameters ?? []).map(resolveParameter),
        bodySchema: operation.requestBody?.content['application/json']?.schema,
      });
    }
  }
  return operations;
}

/** Serial numbers for what must differ between bodies (offererEstateIds, media URLs): fixed per run. */
let serial = 0;
const next = () => ++serial;

/** A picture immogate serves itself: valid for the `url` format, and no request leaves the machine (the pass runs no worker anyway). */
const sampleUrl = () => `http://samples.immogate.invalid/living-room.jpg?judge=${next()}`;

/**
 * Valid classifieds: the fixtures' minimal one (a kiosk in Paris for BUCOM, whose rules it meets)
 * with 0-4 optional members of `data` generated from the document's RealEstate schema and 0-3 media
 * of the document's Media schema (URLs made unique: a URL sent twice is `Duplicated media`), under
 * a fresh offererEstateId (one already live is `Duplicated classified`). `data.contact` is never
 * generated beside a `specific` contact block (`Colliding information`): `specific` is left out.
 */
function classifieds(document: OpenApiDocument): fc.Arbitrary<unknown> {
  const schemas = document.components?.schemas ?? {};
  const realEstate = schemas.RealEstate as Schema;
  const media = schemas.Media as Schema;
  const base = minimalClassified();
  const optional = Object.keys((realEstate.properties ?? {}) as Record<string, Schema>).filter((name) => !(name in base.data));
  const members = fc
    .uniqueArray(fc.constantFrom(...optional), { minLength: 0, maxLength: 4 })
    .chain((names) =>
      fc.record(
        Object.fromEntries(
          names.map((name) => [name, valid(document, (realEstate.properties as Record<string, Schema>)[name] as Schema, 2)]),
        ),
      ),
    );
  const medias = fc.array(valid(document, media, 2), { minLength: 0, maxLength: 3 });
  return fc.tuple(members, medias).map(([added, mediaItems]) => {
    const body = minimalClassified();
    Object.assign(body.data, added);
    body.data.metaData.source.offererEstateId = `J-${next()}`;
    if (mediaItems.length > 0) body.media = mediaItems.map((item) => ({ ...(item as object), url: sampleUrl() }));
    return body;
  });
}

/** The Berlin apartment under a fresh externalListingId, with generated `isPublished`. */
function listings(): fc.Arbitrary<unknown> {
  return fc.boolean().map((published) => {
    const body = berlinRentApartment() as unknown as { metadata: { source: { offererEstateId: string }; isPublished?: boolean } };
    body.metadata.source.offererEstateId = `JL-${next()}`;
    body.metadata.isPublished = published;
    return body;
  });
}

/** The fixture lead with its optional members generated from the document's schema. */
function leads(schema: Schema, document: OpenApiDocument): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const pick = ['gender', 'language', 'message', 'firstName', 'lastName', 'phoneNumbers'].filter((name) => name in properties);
  return fc
    .record(Object.fromEntries(pick.map((name) => [name, valid(document, properties[name] as Schema, 1)])), { requiredKeys: [] })
    .map((overrides) => leadRequest(overrides));
}

/** Bodies a schema alone cannot make valid (uniqueness, addresses the server may call). */
function bodies(operation: Operation, document: OpenApiDocument): fc.Arbitrary<unknown> | undefined {
  const schema = operation.bodySchema;
  if (!schema) return undefined;
  switch (operation.operationId) {
    case 'createClassified':
    case 'validateClassified':
    case 'updateClassified':
      return classifieds(document);
    case 'createListing':
    case 'validateListing':
    case 'updateListing':
      return listings();
    case 'createLead':
      return leads(schema, document);
    case 'createMedia':
      return fc.constantFrom('jpg', 'jpeg', 'png', 'gif', 'webp', 'pdf', 'mp4').map((ext) => ({
        externalMediaId: `jm-${next()}`,
        fileName: `file-${serial}.${ext}`,
      }));
    case 'createWebhookSubscription':
    case 'createSubscriptionToWebhook':
      // A host under .invalid: the subscription checks no DNS, no worker runs to call it, and no name there can ever resolve.
      return valid(document, schema).map((body) => ({
        ...(body as object),
        url: `https://hooks-${next()}.immogate.invalid/hooks`,
        ...(operation.operationId === 'createWebhookSubscription'
          ? { apiKey: `judge-key-${serial}` }
          : { secret: `judge-secret-of-20-chars-${serial}` }),
      }));
    default:
      return valid(document, schema);
  }
}

/** A value for one parameter as it goes on the wire (arrays repeat the name unless `explode: false`). */
function serialise(parameter: Parameter, value: unknown): Array<[string, string]> {
  if (Array.isArray(value)) {
    return parameter.explode === false
      ? [[parameter.name, value.map(String).join(',')]]
      : value.map((item) => [parameter.name, String(item)] as [string, string]);
  }
  return [[parameter.name, String(value)]];
}

/** Values a parameter's schema refuses: its bounds crossed by one, another type, text. */
function outside(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const values: fc.Arbitrary<unknown>[] = [fc.string({ maxLength: 40 }), fc.constant('')];
  if (schema?.type === 'integer' || schema?.type === 'number') {
    if (typeof schema.maximum === 'number') values.push(fc.constant(schema.maximum + 1));
    if (typeof schema.minimum === 'number') values.push(fc.constant(schema.minimum - 1));
    values.push(fc.constant('1.5'), fc.constant('9'.repeat(40)));
  }
  if (schema?.type === 'string' && typeof schema.maxLength === 'number') values.push(fc.constant('a'.repeat(schema.maxLength + 1)));
  if (schema?.format === 'uuid')
    values.push(
      fc.uuid().map((id) => `urn:uuid:${id}`),
      fc.uuid().map((id) => id.replace(/-/g, '')),
    );
  return fc.oneof(...values);
}

/** A parameter's valid value; `wait` is 0, so no request of the pass long-polls. */
function parameterValue(parameter: Parameter, document: OpenApiDocument): fc.Arbitrary<unknown> {
  if (parameter.name === 'wait') return fc.constant(0);
  return valid(document, parameter.schema ?? { type: 'string' });
}

/** Rules only prose states, kept so that a positive case is positive. */
const fixups: Record<string, (generated: Case) => void> = {
  // "at most 7 days apart": maxDate follows minDate by up to 7 days.
  getLeads: (generated) => {
    const min = generated.query.find(([name]) => name === 'minDate');
    const max = generated.query.find(([name]) => name === 'maxDate');
    if (min && max) max[1] = String(Math.min(Number(min[1]) + (Number(max[1]) % (7 * 86_400)), 253_402_300_799));
  },
};

const USER_AGENT = 'ImmogateJudge/1.0.0 node/20 linux/6';

/** Positive and negative cases for one operation, `runs` of each, from `seed`. */
export function casesFor(
  document: OpenApiDocument,
  operation: Operation,
  seed: number,
  runs: { positive: number; negative: number },
): Case[] {
  const headerParameters = operation.parameters.filter((p) => p.in === 'header' && p.name.toLowerCase() !== 'user-agent');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const body = bodies(operation, document);

  const positive = fc
    .record({
      path: fc.record(
        Object.fromEntries(pathParameters.map((p) => [p.name, fc.oneof(fc.constant(KNOWN), parameterValue(p, document).map(String))])),
      ),
      query: fc.tuple(
        ...queryParameters.map((p) =>
          p.required ? parameterValue(p, document) : fc.option(parameterValue(p, document), { nil: undefined, freq: 2 }),
        ),
      ),
      headers: fc.tuple(
        ...headerParameters.map((p) =>
          p.required ? parameterValue(p, document) : fc.option(parameterValue(p, document), { nil: undefined, freq: 1 }),
        ),
      ),
      body: body ?? fc.constant(undefined),
    })
    .map(({ path, query, headers, body: value }): Case => {
      const generated: Case = {
        operationId: operation.operationId,
        method: operation.method,
        template: operation.template,
        path,
        query: queryParameters.flatMap((p, i) => (query[i] === undefined ? [] : serialise(p, query[i]))),
        headers: {
          'user-agent': USER_AGENT,
          ...Object.fromEntries(headerParameters.flatMap((p, i) => (headers[i] === undefined ? [] : [[p.name, String(headers[i])]]))),
        },
        body: value,
        intent: 'positive',
      };
      fixups[operation.operationId]?.(generated);
      return generated;
    });

  // One thing bent at a time, on top of a positive case: what the refusal names is that thing.
  const targets: Array<{ what: string; bend: (base: Case) => fc.Arbitrary<Case> }> = [
    ...[...pathParameters, ...queryParameters].map((p) => ({
      what: `${p.in} ${p.name}`,
      bend: (base: Case) =>
        outside(p.schema).map((value) =>
          p.in === 'path'
            ? { ...base, path: { ...base.path, [p.name]: String(value) } }
            : { ...base, query: [...base.query.filter(([name]) => name !== p.name), [p.name, String(value)] as [string, string]] },
        ),
    })),
    ...(operation.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'user-agent')
      ? [
          {
            what: 'header User-Agent',
            bend: (base: Case) =>
              fc.constantFrom('curl/8.0', '').map((ua) => ({ ...base, headers: { ...base.headers, 'user-agent': ua } })),
          },
        ]
      : []),
    ...(body ? [{ what: 'body', bend: (base: Case) => bent(fc.constant(base.body)).map((value) => ({ ...base, body: value })) }] : []),
  ];
  const negative =
    targets.length === 0
      ? undefined
      : fc.tuple(positive, fc.nat({ max: targets.length - 1 })).chain(([base, index]) => {
          const target = targets[index] as (typeof targets)[number];
          return target.bend(base).map((bentCase): Case => ({ ...bentCase, intent: 'negative', bent: target.what }));
        });
  return [
    ...fc.sample(positive, { seed, numRuns: runs.positive }),
    ...(negative ? fc.sample(negative, { seed: seed + 1, numRuns: runs.negative }) : []),
  ];
}
