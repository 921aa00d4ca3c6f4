/**
 * SQL whose values are written into the text as literals. A bound parameter needs the extended
 * protocol, which carries one statement per round trip; statements built here can travel together
 * in one simple-protocol message, a whole transaction in one round trip (see tenantBatch). Every
 * value goes through `literal`, which quotes as libpq's PQescapeLiteral does, so no value is ever
 * read as SQL.
 */
export class Sql {
  constructor(readonly text: string) {}
}

export type SqlValue = string | number | boolean | null | undefined | Date | Sql | readonly (string | number)[];

/**
 * A string constant: quotes doubled and, when there are backslashes, the E'' form with them
 * doubled, which reads the same whatever standard_conforming_strings says. (pg.escapeLiteral
 * gives the same text but builds it a character at a time: for a 5 KB payload that was most of
 * the CPU a classified POST spent in this module.)
 */
function quote(text: string): string {
  const quoted = text.replaceAll("'", "''");
  return text.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}

/** An array literal such as '{"a","b"}'; the caller casts it (`::text[]`). */
function arrayLiteral(values: readonly (string | number)[]): string {
  const items = values.map((value) => (typeof value === 'number' ? numberLiteral(value) : `"${value.replace(/[\\"]/g, '\\$&')}"`));
  return quote(`{${items.join(',')}}`);
}

function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  return String(value);
}

export function literal(value: SqlValue): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Sql) return value.text;
  if (typeof value === 'number') return numberLiteral(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return quote(value.toISOString());
  if (Array.isArray(value)) return arrayLiteral(value);
  return quote(value as string);
}

/** A statement or fragment: sql`SELECT * FROM t WHERE id = ${id}`. */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  return new Sql(strings.reduce((text, part, index) => text + literal(values[index - 1]) + part));
}

/** A JSON value as a jsonb literal. */
export function jsonb(value: unknown): Sql {
  return new Sql(`${quote(JSON.stringify(value))}::jsonb`);
}

/** Statements as one simple-protocol query text, run in order; the first failure stops the rest. */
export function script(statements: Sql[]): string {
  return statements.map((statement) => statement.text).join(';\n');
}

/** Conditions joined with AND. */
export function and(conditions: Sql[]): Sql {
  return new Sql(conditions.map((condition) => `(${condition.text})`).join(' AND '));
}
