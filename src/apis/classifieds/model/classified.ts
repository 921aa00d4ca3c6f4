/*
 * The classified payload schema (request body of POST and PUT /classifieds) and the TypeScript type
 * of the bodies it accepts, both generated from the reference files by scripts/generate-caas-schema.ts and checked in
 * (classified.schema.json, classified.types.ts).
 *
 * Imported as a JSON module: tsc (resolveJsonModule) type-checks it and copies the file next to this
 * module in dist/, so the running server never reads src/ or depends on the working directory, and a
 * build without the JSON fails instead of a server failing at start. (Reading it with fs relative to
 * import.meta.url would need a copy step tsc does not do for files it does not import.)
 *
 * Use it as a whole body schema, or register it once with an `$id` (validators.addSchema) and `$ref`
 * that id: its multilingual texts are local `#/definitions/...` references, which resolve only
 * against this document's root, so do not paste it inside another schema.
 */
import schema from './classified.schema.json' with { type: 'json' };

export const classifiedSchema: Readonly<Record<string, unknown>> = schema;

export type { Classified, MultiLingualText } from './classified.types.js';
