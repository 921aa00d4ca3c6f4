/*
 * What a statement sent to PostgreSQL is, for the pool and for one-exchange transactions alike.
 */
/**
 * A statement with its values bound as parameters: values never become SQL text, so a failed
 * statement logged by PostgreSQL shows `$1`, not a request's data. A `name` makes each
 * connection parse and plan the text once and reuse it (for statements on hot paths).
 */
export interface Statement {
  readonly text: string;
  readonly values?: readonly unknown[];
  readonly name?: string;
}
