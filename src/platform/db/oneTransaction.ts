/*
 * Statements known up front, run as one transaction in one exchange: each statement's Parse (when
 * the connection has not prepared it yet), Bind, Describe and Execute, then a single Sync. The
 * extended query protocol runs everything before a Sync in one implicit transaction: committed at
 * the Sync, rolled back at the first error (the statements after it are skipped). So BEGIN and
 * COMMIT cost no statements of their own, and the database answers with one ReadyForQuery instead
 * of one per statement (pg's own queries each end with a Sync). A setting made with
 * set_config(..., true) holds until that Sync: the tenant's confinement covers the statements
 * after it and ends with the transaction, as it did between BEGIN and COMMIT. (An exchange with a
 * command that needs a transaction block, such as LOCK TABLE, has BEGIN and COMMIT in it.)
 *
 * It is a pg query of its own kind: pg hands it the connection when its turn comes and passes it
 * the backend's messages until the ReadyForQuery. It extends pg's Query because pg's pipeline mode
 * (createPool's) refuses other query classes, for those that keep a portal open across round
 * trips; this one ends with its Sync like pg's own queries, so one ReadyForQuery answers it.
 */
import pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';
import type { Statement } from './statement.js';

/** The members of pg's Result that its own Query uses to fill it (pg's types declare only the outcome). */
interface FillableResult extends pg.QueryResult {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): unknown;
  addRow(row: unknown): void;
  addCommandComplete(message: unknown): void;
}

/** What pg's connection keeps of the named statements it prepared, which its own Query consults before a Parse. */
interface PreparingConnection extends pg.Connection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}

type Callback = (error: Error | null, results?: pg.QueryResult[]) => void;

function newResult(): FillableResult {
  return new pg.Result('', pg.types) as unknown as FillableResult;
}

export class OneTransaction extends pg.Query {
  /** Set by runInOneTransaction; pg wraps it to enforce query_timeout, so it is the one way out. */
  callback: Callback;
  /** Named statements this exchange prepared: after a failure it is not known which of them the database kept. */
  readonly prepared: Statement[] = [];
  private connection: PreparingConnection | undefined;
  private readonly results: pg.QueryResult[] = [];
  private current: FillableResult | undefined;
  private rowFailure: Error | undefined;

  constructor(
    readonly statements: readonly Statement[],
    callback: Callback,
  ) {
    super({ text: 'one transaction' });
    this.callback = callback;
  }

  /** pg takes an Error returned here as the query's failure, sent nothing. (A property, as pg's types declare it.) */
  override submit = (connection: pg.Connection): Error | null => this.send(connection as PreparingConnection);

  private send(connection: PreparingConnection): Error | null {
    this.connection = connection;
    const known = (name: string | undefined) =>
      name === undefined ? undefined : (connection.parsedStatements[name] ?? connection.submittedNamedStatements[name]);
    const clash = this.statements.find((statement) => ![undefined, statement.text].includes(known(statement.name)));
    if (clash) return new Error(`The prepared statement ${clash.name} was used for another statement`);
    // One write for the lot (see pipeline() in pool.ts).
    connection.stream.cork?.();
    try {
      for (const statement of this.statements) {
        const name = statement.name ?? '';
        // Looked up as it goes: a statement named twice in the exchange is prepared by the first.
        if (known(statement.name) === undefined) {
          // No parameter types: the database infers them, as it does for pg's own queries.
          connection.parse({ name, text: statement.text, types: [] }, true);
          if (name !== '') {
            // pg's Query skips the Parse of a statement found here (see handleReadyForQuery).
            connection.submittedNamedStatements[name] = statement.text;
            this.prepared.push(statement);
          }
        }
        // pg's types want the values mapped already; valueMapper maps them, as in pg's own Query.
        const values = [...(statement.values ?? [])] as (string | null)[];
        connection.bind({ statement: name, portal: '', values, valueMapper: prepareValue }, true);
        connection.describe({ type: 'P', name: '' }, true);
        connection.execute({ portal: '' }, true);
      }
      connection.sync();
      return null;
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.current = newResult();
    this.current.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    if (this.current === undefined || this.rowFailure !== undefined) return;
    try {
      this.current.addRow(this.current.parseRow(message.fields));
    } catch (error) {
      this.rowFailure = error instanceof Error ? error : new Error(String(error));
    }
  }

  handleCommandComplete(message: unknown): void {
    const result = this.current ?? newResult();
    result.addCommandComplete(message);
    this.results.push(result);
    this.current = undefined;
  }

  handleEmptyQuery(): void {
    this.results.push(newResult());
  }

  handleError(error: Error): void {
    this.callback(error);
  }

  handleReadyForQuery(): void {
    // Prepared for sure: where pg puts the statements its own Query prepared once their
    // ParseComplete comes (which it records for its own queries only). A pg Query that fails
    // forgets its name's entry in submittedNamedStatements, and would then prepare it again.
    for (const { name, text } of this.prepared) {
      if (name === undefined || this.connection === undefined) continue;
      this.connection.parsedStatements[name] = text;
      delete this.connection.submittedNamedStatements[name];
    }
    if (this.rowFailure !== undefined) this.callback(this.rowFailure);
    else this.callback(null, this.results);
  }

  // None of these statements pages its rows or copies; pg asks every query for these handlers.
  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: pg.Connection & { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('COPY is not run in one transaction of known statements');
  }

  handleCopyData(): void {}
}

/**
 * Commands PostgreSQL runs only inside a transaction block, which the implicit transaction of an
 * exchange is not reliably (PostgreSQL 15 never treats it as one; 17 on, only when the next
 * message has arrived already): an exchange holding one opens a block of its own with BEGIN.
 */
const NEEDS_BLOCK = /^\s*(LOCK|DECLARE|SAVEPOINT|RELEASE|ROLLBACK\s+TO)\b/i;

export interface OneExchange {
  /** Each statement's result. */
  results: Promise<pg.QueryResult[]>;
  /**
   * After `results` failed (and the database answered): whether the connection may be used again.
   * Not when the exchange prepared a named statement: the database may or may not have kept it
   * (prepared statements outlive the transaction), so pg's bookkeeping of them cannot be trusted.
   * An exchange with a block of its own has left it aborted: it is rolled back here.
   */
  reusable(): Promise<boolean>;
}

/** Runs `statements` on `client` as one transaction in one exchange. */
export function runInOneTransaction(client: pg.ClientBase, statements: readonly Statement[]): OneExchange {
  const block = statements.some((statement) => NEEDS_BLOCK.test(statement.text));
  const sent = block ? [{ text: 'BEGIN' }, ...statements, { text: 'COMMIT' }] : statements;
  let query: OneTransaction | undefined;
  const answered = new Promise<pg.QueryResult[]>((resolve, reject) => {
    query = new OneTransaction(sent, (error, results) => (error ? reject(error) : resolve(results ?? [])));
    client.query(query);
  });
  return {
    results: block ? answered.then((results) => results.slice(1, -1)) : answered,
    async reusable() {
      if ((query?.prepared.length ?? 0) > 0) return false;
      if (!block) return true;
      return client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
    },
  };
}
