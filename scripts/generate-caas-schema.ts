/*
 * Generates the JSON Schema of the classified payload (the POST/PUT body of caas v4) from the
 * reference files in `reference/`: `caas-v4-fields.tsv` (one row per field of the tree) and
 * `caas-v4-enums.json` (enum lists and the ISO 639-1 codes of multilingual texts).
 *
 * Why generated rather than written: the tree has about a thousand fields; by hand it would drift
 * from the reference and nobody could review it. The output is checked in
 * (`classified.schema.json`) so that reviews show every change, and a test regenerates it and
 * compares, so it cannot drift from the reference either.
 *
 * Run: `npm run generate:caas-schema` rewrites the checked-in files in src/apis/classifieds/model/:
 * the schema and classified.types.ts, the TypeScript type of the bodies it accepts.
 *
 * The generator is strict on purpose: a notation it does not know, an enum list that differs between
 * the two reference files, or a "required children" list that contradicts the rows throws, so a new
 * reference version cannot be half-understood silently.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BOUND_MARK, BOUND_NOTE, LIMIT_MARK, LIMIT_NOTE } from '../src/apis/classifieds/model/bounds.js';
import { OPEN_MEMBER_LIMITS } from '../src/platform/http/schemas.js';
import { FORMAT_BOUNDS } from '../src/platform/http/formats.js';

export interface FieldRow {
  path: string;
  type: string;
  formatOrEnum: string;
  constraints: string;
  requiredInParent: boolean;
  requiredFromRoot: boolean;
  deprecated: boolean;
}

export interface ReferenceEnums {
  enums: Record<string, string[]>;
  multiLingualTextLanguages: string[];
}

export type JsonSchema = { [keyword: string]: unknown };

export const FIELDS_FILE = 'reference/caas-v4-fields.tsv';
export const ENUMS_FILE = 'reference/caas-v4-enums.json';
export const SCHEMA_FILE = 'src/apis/classifieds/model/classified.schema.json';
export const TYPES_FILE = 'src/apis/classifieds/model/classified.types.ts';

const COLUMNS = ['path', 'type', 'format_or_enum', 'constraints', 'required_in_parent', 'required_from_root', 'deprecated'];

// --- Reading the reference ------------------------------------------------------------------------

function yesNo(value: string | undefined, where: string): boolean {
  if (value === 'yes') return true;
  if (value === 'no') return false;
  throw new Error(`${where}: expected yes or no, got ${JSON.stringify(value)}`);
}

export function parseFieldsTsv(text: string): FieldRow[] {
  const [header, ...lines] = text.split(/\r?\n/).filter((line) => line !== '');
  if (header !== COLUMNS.join('\t')) throw new Error(`fields TSV: unexpected header ${JSON.stringify(header)}`);
  return lines.map((line, index) => {
    const cells = line.split('\t');
    const where = `fields TSV line ${index + 2}`;
    if (cells.length !== COLUMNS.length) throw new Error(`${where}: expected ${COLUMNS.length} columns, got ${cells.length}`);
    const [fieldPath, type, formatOrEnum, constraints, inParent, fromRoot, deprecated] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return {
      path: fieldPath,
      type,
      formatOrEnum,
      constraints,
      requiredInParent: yesNo(inParent, where),
      requiredFromRoot: yesNo(fromRoot, where),
      deprecated: yesNo(deprecated, where),
    };
  });
}

// --- The field tree ---------------------------------------------------------------------------------

/** One step of a TSV path: `.name` a member, `[]` the items of an array, `<anyOf:Name>` one variant. */
type Step = { kind: 'member'; name: string } | { kind: 'items' } | { kind: 'variant'; name: string };

interface FieldNode {
  row: FieldRow;
  step: Step;
  children: FieldNode[];
}

const STEP = /(?:^|\.)([^.[<]+)|(\[\])|<anyOf:([^>]+)>/gy;

/** Splits a path into steps; returns the last step and the path of its parent. */
function lastStep(fieldPath: string): { parent: string; step: Step } {
  let parentEnd = 0;
  let step: Step | undefined;
  STEP.lastIndex = 0;
  while (STEP.lastIndex < fieldPath.length) {
    const start = STEP.lastIndex;
    const match = STEP.exec(fieldPath);
    if (!match) throw new Error(`fields TSV: cannot read path ${fieldPath} at offset ${start}`);
    parentEnd = start;
    if (match[1] !== undefined) step = { kind: 'member', name: match[1] };
    else if (match[2] !== undefined) step = { kind: 'items' };
    else step = { kind: 'variant', name: match[3] as string };
  }
  if (!step) throw new Error('fields TSV: empty path');
  return { parent: fieldPath.slice(0, parentEnd), step };
}

/** Builds the tree; the TSV lists every parent before its children, in the document's member order. */
function buildTree(rows: FieldRow[]): FieldNode[] {
  const root: FieldNode[] = [];
  const byPath = new Map<string, FieldNode>();
  for (const row of rows) {
    if (byPath.has(row.path)) throw new Error(`fields TSV: duplicate path ${row.path}`);
    const { parent, step } = lastStep(row.path);
    const node: FieldNode = { row, step, children: [] };
    const parentNode = parent === '' ? undefined : byPath.get(parent);
    if (parent !== '' && !parentNode) throw new Error(`fields TSV: ${row.path} comes before its parent ${parent}`);
    // required_from_root is derived (required all the way up); checking it catches a misread row.
    const parentFromRoot = parentNode ? parentNode.row.requiredFromRoot : true;
    if (row.requiredFromRoot !== (row.requiredInParent && parentFromRoot)) {
      throw new Error(`fields TSV: required_from_root of ${row.path} contradicts its parents`);
    }
    (parentNode ? parentNode.children : root).push(node);
    byPath.set(row.path, node);
  }
  return root;
}

// --- Constraints ------------------------------------------------------------------------------------

const NUMERIC_CONSTRAINTS = new Set(['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']);

/**
 * `a=1;b=2;items:c=3;d=4`: everything from the first `items:` on constrains the array's items (the
 * reference writes `items:minItems=2;maxItems=3` for a list of 2-or-3-number positions).
 */
function splitConstraints(text: string): { own: [string, string][]; items: [string, string][] } {
  const own: [string, string][] = [];
  const items: [string, string][] = [];
  let target = own;
  for (let part of text.split(';').filter((p) => p !== '')) {
    if (part.startsWith('items:')) {
      target = items;
      part = part.slice('items:'.length);
    }
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`fields TSV: cannot read constraint ${JSON.stringify(part)}`);
    target.push([part.slice(0, eq), part.slice(eq + 1)]);
  }
  return { own, items };
}

function applyConstraints(schema: JsonSchema, constraints: [string, string][], where: string): void {
  for (const [key, value] of constraints) {
    if (NUMERIC_CONSTRAINTS.has(key)) {
      const number = Number(value);
      if (!Number.isFinite(number)) throw new Error(`${where}: ${key}=${value} is not a number`);
      schema[key] = number;
    } else if (key === 'uniqueItems' && (value === 'True' || value === 'False')) {
      schema.uniqueItems = value === 'True';
    } else if (key === 'pattern') {
      schema.pattern = value;
    } else if (key === 'additionalProperties' && value === 'false') {
      // Unknown members are refused exactly where the reference refuses them, object by object:
      // where it says nothing (GeoJSON geometries, links, the gsl contacts, ...), they are allowed
      // and kept as sent.
      schema.additionalProperties = false;
    } else if (key === 'default') {
      // Deliberately left out: bodies are stored as sent, never filled in. A `default` keyword here
      // would be filled in by any Ajv built with useDefaults (Fastify's default is), silently
      // changing what the client sent.
    } else {
      throw new Error(`${where}: unknown constraint ${key}=${value}`);
    }
  }
}

// --- Bounds the contract leaves out ---------------------------------------------------------------

/**
 * Every array the reference leaves unbounded gets a maxItems of ours, so no request can hold
 * thousands of media or rooms; each is marked as immogate's (the OpenAPI document shows it) and
 * listed in the README. Far above what a listing needs: a portal shows a few dozen pictures.
 */
const ARRAY_BOUNDS: Record<string, number> = {
  media: 300,
  'data.buildingProperty.units': 1000,
  'data.management.countrySpecific.be.lifeAnnuity.annuitants.ages': 10,
};
/** A line or ring of a geometry may hold this many positions; a geometry this many lines, rings or polygons. */
const GEOMETRY_POSITIONS = 10_000;
const GEOMETRY_PARTS = 100;
const DEFAULT_BOUND = 100;

function addedBound(fieldPath: string, items: JsonSchema): number {
  const listed = ARRAY_BOUNDS[fieldPath];
  if (listed !== undefined) return listed;
  // A value list repeats no value usefully, so it holds at most every value once.
  if (Array.isArray(items.enum)) return items.enum.length;
  if (fieldPath.endsWith('.coordinates') || fieldPath.includes('.coordinates[')) {
    const position = items.type === 'array' && (items.items as JsonSchema | undefined)?.type === 'number';
    return position ? GEOMETRY_POSITIONS : GEOMETRY_PARTS;
  }
  return DEFAULT_BOUND;
}

/**
 * Every string the reference leaves unbounded gets a maxLength of ours: a formatted one its
 * format's bound (a URL 2,048, a date-time 64), any other DEFAULT_STRING_BOUND. What validate
 * accepts must also be storable: a media URL of 9,000 characters passed validate and failed the
 * index on insert (500).
 */
const DEFAULT_STRING_BOUND = 10_000;
function addStringBound(schema: JsonSchema): void {
  if (schema.type !== 'string' || Array.isArray(schema.enum) || schema.maxLength !== undefined) return;
  const format = schema.format as keyof typeof FORMAT_BOUNDS | undefined;
  schema.maxLength = format !== undefined && format in FORMAT_BOUNDS ? FORMAT_BOUNDS[format] : DEFAULT_STRING_BOUND;
  schema[LIMIT_MARK] = LIMIT_NOTE;
}

/**
 * An integer without a range of the reference's gets the range JSON reads exactly (±(2^53-1)): the
 * body reader refuses any other (README "What no request can do"), and the document says so.
 */
function addIntegerBounds(schema: JsonSchema): void {
  if (schema.type !== 'integer') return;
  let added = false;
  if (schema.minimum === undefined) {
    schema.minimum = Number.MIN_SAFE_INTEGER;
    added = true;
  }
  if (schema.maximum === undefined) {
    schema.maximum = Number.MAX_SAFE_INTEGER;
    added = true;
  }
  if (added) schema[LIMIT_MARK] = LIMIT_NOTE;
}

/**
 * An object the reference leaves open keeps accepting members it does not name, within bounds: so
 * many of them, with names so long. Their values are bounded by the body limit and the JSON
 * reader's depth limit, as everywhere.
 */
function boundOpenObject(schema: JsonSchema): void {
  if (schema.type !== 'object' || schema.additionalProperties === false || Array.isArray(schema.anyOf)) return;
  const named = Object.keys((schema.properties as JsonSchema | undefined) ?? {}).length;
  schema.maxProperties = named + OPEN_MEMBER_LIMITS.members;
  schema.propertyNames = { maxLength: OPEN_MEMBER_LIMITS.nameLength };
  schema[LIMIT_MARK] = LIMIT_NOTE;
}

// --- Schemas per type -------------------------------------------------------------------------------

/** TSV formats to JSON Schema formats (ajv-formats). */
const FORMATS: Record<string, string> = {
  uuid: 'uuid',
  date: 'date',
  'date-time': 'date-time',
  // `url` in ajv-formats refuses loopback and private addresses and host names without a dot; those
  // are a policy of the media fetcher (ALLOW_PRIVATE_TARGETS), not a syntax error of the payload.
  url: 'uri',
  email: 'email',
};

const MULTILINGUAL_TEXT = /^MultiLingualText: keys = ISO 639-1 codes \((\d+)\)/;
const MULTILINGUAL_REF = '#/definitions/MultiLingualText';

class Generator {
  private readonly unusedEnums: Set<string>;

  constructor(private readonly reference: ReferenceEnums) {
    this.unusedEnums = new Set(Object.keys(reference.enums));
  }

  schema(rows: FieldRow[]): JsonSchema {
    const members = this.members(buildTree(rows), 'the root');
    if (this.unusedEnums.size > 0) throw new Error(`enums JSON: no field row for ${[...this.unusedEnums].join(', ')}`);
    return {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $comment: `Generated by scripts/generate-caas-schema.ts from ${FIELDS_FILE} and ${ENUMS_FILE}; do not edit.`,
      title: 'Classified (request body of POST and PUT /classifieds, caas v4)',
      type: 'object',
      ...members,
      additionalProperties: false,
      definitions: { MultiLingualText: this.multiLingualText() },
    };
  }

  private node(node: FieldNode): JsonSchema {
    const { row } = node;
    const where = `fields TSV ${row.path}`;
    let schema: JsonSchema;
    switch (row.type) {
      case 'object':
        schema = this.object(node, where);
        break;
      case 'array':
        schema = this.array(node, where);
        break;
      case 'string':
        schema = this.string(node, where);
        break;
      case 'number':
      case 'integer':
      case 'boolean':
        if (row.formatOrEnum !== '' || node.children.length > 0) throw new Error(`${where}: unexpected ${row.formatOrEnum}`);
        schema = { type: row.type };
        break;
      default:
        throw new Error(`${where}: unknown type ${row.type}`);
    }
    // A shared schema ($ref: MultiLingualText) carries its own constraints; siblings of $ref would be applied beside it.
    if (row.type !== 'array' && schema.$ref === undefined) applyConstraints(schema, splitConstraints(row.constraints).own, where);
    addStringBound(schema);
    addIntegerBounds(schema);
    boundOpenObject(schema);
    if (row.deprecated) schema.deprecated = true;
    return schema;
  }

  private object(node: FieldNode, where: string): JsonSchema {
    const notation = node.row.formatOrEnum;
    const multilingual = MULTILINGUAL_TEXT.exec(notation);
    if (multilingual) {
      if (Number(multilingual[1]) !== this.reference.multiLingualTextLanguages.length) {
        throw new Error(
          `${where}: ${multilingual[1]} languages, but the enums JSON lists ${this.reference.multiLingualTextLanguages.length}`,
        );
      }
      return { $ref: MULTILINGUAL_REF };
    }
    const anyOf = /^anyOf of (\d+) variants$/.exec(notation);
    if (anyOf) {
      if (node.children.length !== Number(anyOf[1]) || node.children.some((c) => c.step.kind !== 'variant')) {
        throw new Error(`${where}: expected ${anyOf[1]} variant rows`);
      }
      // No additionalProperties here: it would see no properties and refuse everything. Each variant
      // is an object schema of its own and closes itself.
      return { type: 'object', anyOf: node.children.map((variant) => this.node(variant)) };
    }
    const listed = /^\(container\)(?: required children: (.+))?$/.exec(notation);
    if (notation !== '' && !listed) throw new Error(`${where}: unknown object notation ${notation}`);
    const members = this.members(node.children, where);
    const expected = (listed?.[1]?.split(',') ?? []).sort();
    if (JSON.stringify(expected) !== JSON.stringify([...((members.required as string[] | undefined) ?? [])].sort())) {
      throw new Error(`${where}: "required children" does not match the rows marked required_in_parent`);
    }
    return { type: 'object', ...members };
  }

  /** `properties` (in the reference's order) and `required` of an object's member rows. */
  private members(children: FieldNode[], where: string): JsonSchema {
    const properties: JsonSchema = {};
    const required: string[] = [];
    for (const child of children) {
      if (child.step.kind !== 'member') throw new Error(`${where}: an object cannot have ${child.row.path}`);
      const schema = this.node(child);
      properties[child.step.name] = schema;
      // A few names end in `?` (TypeScript's optional marker leaked into the real OpenAPI document).
      // The real API leaves those objects open, so clients may send either spelling; both are accepted
      // while everything else stays closed.
      const alias = child.step.name.endsWith('?') ? child.step.name.slice(0, -1) : undefined;
      if (alias !== undefined) {
        if (children.some((other) => other.step.kind === 'member' && other.step.name === alias)) {
          throw new Error(`${where}: both ${alias} and ${alias}? are rows`);
        }
        properties[alias] = schema;
      }
      if (child.row.requiredInParent) required.push(child.step.name);
    }
    return required.length > 0 ? { required, properties } : { properties };
  }

  private array(node: FieldNode, where: string): JsonSchema {
    const notation = node.row.formatOrEnum;
    const { own, items: itemConstraints } = splitConstraints(node.row.constraints);
    let items: JsonSchema;
    const enumItems = /^items enum: (.+)$/.exec(notation);
    const scalarItems = /^items: (number|integer|string|boolean)( float)?$/.exec(notation);
    if (notation === 'array<object>' || notation === 'items: array') {
      const [child, ...rest] = node.children;
      if (!child || rest.length > 0 || child.step.kind !== 'items') throw new Error(`${where}: expected one [] row`);
      items = this.node(child);
    } else if (enumItems) {
      items = { type: 'string', enum: this.enumValues(node.row.path, enumItems[1] as string, where) };
    } else if (scalarItems) {
      // `float` is OpenAPI's storage hint; every JSON number satisfies it, so it adds no check.
      items = { type: scalarItems[1] };
    } else {
      throw new Error(`${where}: unknown array notation ${notation}`);
    }
    if ((enumItems || scalarItems) && node.children.length > 0) throw new Error(`${where}: scalar items cannot have rows`);
    applyConstraints(items, itemConstraints, `${where} items`);
    addStringBound(items);
    addIntegerBounds(items);
    const schema: JsonSchema = { type: 'array' };
    applyConstraints(schema, own, where);
    if (schema.maxItems === undefined) {
      schema.maxItems = addedBound(node.row.path, items);
      schema[BOUND_MARK] = BOUND_NOTE;
    }
    schema.items = items;
    return schema;
  }

  private string(node: FieldNode, where: string): JsonSchema {
    const notation = node.row.formatOrEnum;
    if (node.children.length > 0) throw new Error(`${where}: a string cannot have rows`);
    if (notation === '') return { type: 'string' };
    const format = FORMATS[notation];
    if (format) return { type: 'string', format };
    // `ref:Name` names a shared OpenAPI schema (MediaTitle); its content is in the constraints column.
    if (notation.startsWith('ref:')) return { type: 'string' };
    // Otherwise an enum list; a single value (a GeoJSON variant's `type`) is a one-value enum.
    return { type: 'string', enum: this.enumValues(node.row.path, notation, where) };
  }

  /** The TSV's inline list, which must equal the enums JSON's list when that file has the path. */
  private enumValues(fieldPath: string, inline: string, where: string): string[] {
    const values = inline.split('|');
    if (values.some((v) => v === '' || /\s/.test(v))) throw new Error(`${where}: cannot read enum ${inline}`);
    const listed = this.reference.enums[fieldPath];
    if (listed && JSON.stringify(listed) !== JSON.stringify(values)) {
      throw new Error(`${where}: enum differs between the fields TSV and the enums JSON`);
    }
    this.unusedEnums.delete(fieldPath);
    return values;
  }

  private multiLingualText(): JsonSchema {
    const properties: JsonSchema = {};
    for (const language of this.reference.multiLingualTextLanguages) {
      properties[language] = { type: 'string', maxLength: DEFAULT_STRING_BOUND, [LIMIT_MARK]: LIMIT_NOTE };
    }
    return {
      description: 'Text in several languages, keyed by ISO 639-1 language code.',
      type: 'object',
      properties,
      additionalProperties: false,
    };
  }
}

/** The classified JSON Schema for the parsed reference: a pure function of its inputs. */
export function generateClassifiedSchema(rows: FieldRow[], enums: ReferenceEnums): JsonSchema {
  return new Generator(enums).schema(rows);
}

/** The checked-in form: 2-space JSON, keys in generation order, trailing newline. */
export function renderSchema(schema: JsonSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

// --- TypeScript type ------------------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The body type the schema accepts, so service code reads e.g. `data.prices.rent?.baseRent?.amount` typed. */
function tsType(schema: JsonSchema, indent: string): string {
  if (schema.$ref === MULTILINGUAL_REF) return 'MultiLingualText';
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map((variant) => tsType(variant, indent)).join(' | ');
  if (Array.isArray(schema.enum)) return (schema.enum as string[]).map((value) => JSON.stringify(value)).join(' | ');
  switch (schema.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return schema.type;
    case 'integer':
      return 'number';
    case 'array':
      return `Array<${tsType(schema.items as JsonSchema, indent)}>`;
    case 'object':
      return tsObject(schema, indent);
    default:
      throw new Error(`no TypeScript type for ${JSON.stringify(schema).slice(0, 80)}`);
  }
}

function tsObject(schema: JsonSchema, indent: string): string {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const members = Object.entries(schema.properties as Record<string, JsonSchema>);
  if (members.length === 0) return 'Record<string, never>';
  const inner = `${indent}  `;
  const lines = members.map(([name, member]) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const deprecated = member.deprecated ? `${inner}/** @deprecated */\n` : '';
    return `${deprecated}${inner}${key}${required.has(name) ? '' : '?'}: ${tsType(member, inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** classified.types.ts: generated beside the schema from the same tree, checked in the same way. */
export function renderTypes(schema: JsonSchema): string {
  return [
    `// Generated by scripts/generate-caas-schema.ts from ${FIELDS_FILE} and ${ENUMS_FILE}; do not edit.`,
    '',
    '/** Text in several languages, keyed by ISO 639-1 language code. */',
    'export type MultiLingualText = { [language: string]: string };',
    '',
    '/** A classified (request body of POST and PUT /classifieds) as the schema accepts it. */',
    `export interface Classified ${tsObject(schema, '')}`,
    '',
  ].join('\n');
}

// --- Files --------------------------------------------------------------------------------------------

/** The repository root, found from this module whether it runs from src/ or from dist/src/. */
export function repositoryRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, FIELDS_FILE)) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no ${FIELDS_FILE} above ${from}`);
  }
}

export function readReference(root: string): { rows: FieldRow[]; enums: ReferenceEnums } {
  return {
    rows: parseFieldsTsv(fs.readFileSync(path.join(root, FIELDS_FILE), 'utf8')),
    enums: JSON.parse(fs.readFileSync(path.join(root, ENUMS_FILE), 'utf8')) as ReferenceEnums,
  };
}

function main(): void {
  const root = repositoryRoot();
  const { rows, enums } = readReference(root);
  const schema = generateClassifiedSchema(rows, enums);
  fs.writeFileSync(path.join(root, SCHEMA_FILE), renderSchema(schema));
  fs.writeFileSync(path.join(root, TYPES_FILE), renderTypes(schema));
  process.stdout.write(`wrote ${SCHEMA_FILE} and ${TYPES_FILE} from ${rows.length} field rows\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
