/*
 * Statements known up front, run as one transaction in one exchange: each statement's Bind,
 * Describe and Execute (and the Parse of an unnamed one), then a single Sync. The extended query
 * protocol runs everything before a Sync in one implicit transaction: committed at the Sync, rolled
 * back at the first error (the messages after it are skipped). So BEGIN and COMMIT cost no
 * statements of their own, and the database answers with one ReadyForQuery instead of one per
 * statement (pg's own queries each end with a Sync). A setting made with set_config(..., true)
 * holds until that Sync: the tenant's confinement covers the statements after it and ends with the
 * transaction, as it did between BEGIN and COMMIT. (An exchange with a command that needs a
 * transaction block, such as LOCK TABLE, has BEGIN and COMMIT in it.)
 *
 * A named statement the connection has not prepared yet is parsed just before its first Bind, so
 * the exchange touches its tables in the order of its statements (a Parse of a statement on a
 * locked table waits for the lock like the statement would: parsed up front, it would take locks
 * before a LOCK TABLE meant to come first). Prepared statements outlive transactions, so after a
 * failure pg's bookkeeping must say which the database kept: those parsed before the statement that
 * failed; that statement's own (its Parse or its run may have failed) is closed, those after it were
 * never parsed; and the connection goes on.
 *
 * Both queries here are pg queries of their own kind: pg hands each the connection when its turn
 * comes and passes it the backend's messages until its ReadyForQuery. They extend pg's Query because
 * pg's pipeline mode (createPool's) refuses other query classes, for those that keep a portal open
 * across round trips; these end with their Sync like pg's own queries.
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

type Callback<T> = (error: Error | null, outcome?: T) => void;

/** The text a connection prepared under `name`, if it did (or has the Parse on its way). */
function preparedText(connection: PreparingConnection, name: string): string | undefined {
  return connection.parsedStatements[name] ?? connection.submittedNamedStatements[name];
}

type NamedStatement = Required<Pick<Statement, 'name' | 'text'>>;

/**
 * Closes named statements, those that exist and those that do not (PostgreSQL answers both alike),
 * and forgets them in pg's bookkeeping: the next exchange that names one prepares it again.
 */
class Forget extends pg.Query {
  callback: Callback<void>;
  private connection: PreparingConnection | undefined;

  constructor(
    private readonly statements: readonly NamedStatement[],
    callback: Callback<void>,
  ) {
    super({ text: 'close statements' });
    this.callback = callback;
  }

  /** A property, as pg's types declare it. */
  override submit = (connection: pg.Connection): Error | null => {
    this.connection = connection as PreparingConnection;
    connection.stream.cork?.();
    try {
      for (const { name } of this.statements) connection.close({ type: 'S', name }, true);
      connection.sync();
      return null;
    } finally {
      connection.stream.uncork?.();
    }
  };

  handleError(error: Error): void {
    this.callback(error);
  }

  handleReadyForQuery(): void {
    for (const { name } of this.statements) {
      if (this.connection === undefined) break;
      delete this.connection.parsedStatements[name];
      delete this.connection.submittedNamedStatements[name];
    }
    this.callback(null);
  }

  // A Close answers none of these; pg asks every query for its handlers.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

function newResult(): FillableResult {
  return new pg.Result('', pg.types) as unknown as FillableResult;
}

/** The statements as one transaction: Bind, Describe and Execute each (Parse first for an unnamed one), one Sync. */
export class OneTransaction extends pg.Query {
  /** Set by runInOneTransaction; pg wraps it to enforce query_timeout, so it is the one way out. */
  callback: Callback<pg.QueryResult[]>;
  private readonly results: pg.QueryResult[] = [];
  private current: FillableResult | undefined;
  private rowFailure: Error | undefined;
  /** The named statements this exchange sent a Parse for. */
  readonly parsed = new Set<string>();

  /** `parse`: the names of the statements the connection has not prepared, each parsed before its first Bind. */
  constructor(
    readonly statements: readonly Statement[],
    private readonly parse: ReadonlySet<string>,
    callback: Callback<pg.QueryResult[]>,
  ) {
    super({ text: 'one transaction' });
    this.callback = callback;
  }

  /** How many statements completed: after a failure, the index of the one that failed. */
  get completed(): number {
    return this.results.length;
  }

  /** A property, as pg's types declare it. */
  override submit = (connection: pg.Connection): Error | null => {
    const preparing = connection as PreparingConnection;
    connection.stream.cork?.();
    try {
      for (const statement of this.statements) {
        const name = statement.name ?? '';
        const unprepared = name === '' || (this.parse.has(name) && preparing.submittedNamedStatements[name] === undefined);
        // No parameter types: the database infers them, as it does for pg's own queries.
        if (unprepared) connection.parse({ name, text: statement.text, types: [] }, true);
        // Known from now on (see runInOneTransaction): pg's Query binds it without a Parse of its own.
        if (unprepared && name !== '') {
          preparing.submittedNamedStatements[name] = statement.text;
          this.parsed.add(name);
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
  };

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

/** Whether any of `statements` needs a transaction block (see NEEDS_BLOCK). */
export function needsBlock(statements: readonly Statement[]): boolean {
  return statements.some((statement) => NEEDS_BLOCK.test(statement.text));
}

/**
 * Whether an exchange of `statements` on `client` prepares nothing: every named one is prepared
 * there already (or on its way). Such an exchange may follow another on the connection without
 * waiting for it: it depends on no Parse of its own.
 */
export function preparesNothing(client: pg.ClientBase, statements: readonly Statement[]): boolean {
  const connection = (client as { connection?: PreparingConnection }).connection;
  if (connection === undefined) return false;
  return statements.every(({ name }) => name === undefined || preparedText(connection, name) !== undefined);
}

export interface OneExchange {
  /** Each statement's result. */
  results: Promise<pg.QueryResult[]>;
  /**
   * After `results` failed (and the database answered): whether the connection may be used again,
   * once made so. An exchange with a block of its own has left it aborted: it is rolled back here.
   * The named statement it parsed for the statement that failed may or may not exist (its Parse or
   * its run failed): it is closed.
   */
  reusable(): Promise<boolean>;
}

function query<T>(client: pg.ClientBase, make: (callback: Callback<T>) => pg.Query): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    client.query(make((error, outcome) => (error ? reject(error) : resolve(outcome as T))));
  });
}

/** Runs `statements` on `client` as one transaction in one exchange. */
export function runInOneTransaction(client: pg.ClientBase, statements: readonly Statement[]): OneExchange {
  const connection = (client as { connection?: PreparingConnection }).connection;
  const fresh = new Map<string, string>();
  for (const { name, text } of statements) {
    if (name === undefined) continue;
    const known = (connection && preparedText(connection, name)) ?? fresh.get(name);
    if (known !== undefined && known !== text) {
      const clash = new Error(`The prepared statement ${name} was used for another statement`);
      return { results: Promise.reject(clash), reusable: async () => true };
    }
    if (known === undefined) fresh.set(name, text);
  }
  const block = needsBlock(statements);
  const sent = block ? [{ text: 'BEGIN' }, ...statements, { text: 'COMMIT' }] : statements;
  let exchange: OneTransaction | undefined;
  const results = query<pg.QueryResult[]>(client, (callback) => {
    exchange = new OneTransaction(sent, new Set(fresh.keys()), callback);
    return exchange;
  });
  /** Where each fresh statement is first used in the exchange: it is parsed there. */
  const parsedAt = [...fresh].map(([name, text]) => ({ name, text, at: sent.findIndex((statement) => statement.name === name) }));
  /** After the exchange ended with `completed` statements done: which of its Parses the database kept. */
  const settle = (completed: number): NamedStatement[] => {
    if (connection === undefined) return [];
    const unsure: NamedStatement[] = [];
    for (const { name, text, at } of parsedAt) {
      if (!exchange?.parsed.has(name)) continue;
      delete connection.submittedNamedStatements[name];
      if (at < completed) connection.parsedStatements[name] = text;
      else if (at === completed) unsure.push({ name, text });
    }
    return unsure;
  };
  return {
    results: results.then((all) => {
      settle(sent.length);
      return block ? all.slice(1, -1) : all;
    }),
    async reusable() {
      const succeeds = (outcome: Promise<unknown>) =>
        outcome.then(
          () => true,
          () => false,
        );
      const unsure = settle(exchange?.completed ?? 0);
      // Outside a block (a Parse failed before BEGIN), ROLLBACK only warns.
      if (block && !(await succeeds(client.query('ROLLBACK')))) return false;
      if (unsure.length === 0) return true;
      return succeeds(query<void>(client, (callback) => new Forget(unsure, callback)));
    },
  };
}
