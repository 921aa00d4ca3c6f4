/*
 * Reads that arrive together travel together. Each read is a transaction of its own, known up front
 * (its tenant's confinement and its statements, see oneTransaction.ts), and ends with its own Sync,
 * so the database runs it in its own implicit transaction, confined to its own tenant, and answers
 * it on its own: a read that fails fails alone, the next one runs as if it had not been there. What
 * they share is one connection of the pool and one write: the reads of one turn of the event loop
 * leave in a single exchange of pipelined transactions (PostgreSQL's pipelining of the extended
 * protocol, pg's pipeline mode), for one checkout, one system call and one wake-up of the database
 * instead of one each. In the bench (50 clients reading one classified), GET went from 56% of the
 * read floor to 96-102%, and the database's CPU per read from 131 µs to 86 (bench/README.md).
 *
 * Nothing waits for a timer: a batch opens with the first read of a turn, asks the pool for a
 * connection at the end of that turn (setImmediate), and takes in every read that comes until the
 * connection is there. The pool's rules are the batch's: its share and its checkout deadline, its
 * refusals (busy, unreachable) for every read of the batch. Only reads go this way: a transaction
 * that waits on a row lock, or needs a transaction block, would hold up the transactions behind it
 * on the connection.
 */
import type pg from 'pg';
import { getOrMake } from '../memo.js';
import { needsBlock, preparesNothing, runInOneTransaction, type OneExchange } from './oneTransaction.js';
import { inOneWrite, type ResultsOf, type Statement } from './pool.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** Most reads in one batch: a batch holds one connection while the database runs them one by one. */
export const MAX_BATCH = 32;

interface Read {
  statements: readonly Statement[];
  resolve(results: pg.QueryResult[]): void;
  reject(error: unknown): void;
}

class ReadBatches {
  /** The batch that takes in new reads until it has its connection. */
  private open: Read[] | undefined;

  constructor(private readonly pool: pg.Pool) {}

  submit(statements: readonly Statement[]): Promise<pg.QueryResult[]> {
    return new Promise((resolve, reject) => {
      const read = { statements, resolve, reject };
      if (this.open) {
        this.open.push(read);
        if (this.open.length >= MAX_BATCH) this.open = undefined;
        return;
      }
      const batch = [read];
      this.open = batch;
      setImmediate(() => this.send(batch));
    });
  }

  private send(batch: Read[]): void {
    this.pool.connect().then(
      (client) => {
        if (this.open === batch) this.open = undefined;
        void run(client, batch);
      },
      (error: unknown) => {
        if (this.open === batch) this.open = undefined;
        for (const read of batch) read.reject(error);
      },
    );
  }
}

/**
 * Runs the batch's reads on `client`, pipelined, and gives the connection back. A read that
 * prepares a statement goes first, alone: the reads behind it would bind that statement, and fail
 * with it if its Parse failed.
 */
async function run(client: pg.PoolClient, batch: Read[]): Promise<void> {
  /** Why the connection is not to be used again, once a read found it so. */
  let unusable: unknown;
  const settle = async (read: Read, exchange: OneExchange): Promise<void> => {
    try {
      read.resolve(await exchange.results);
    } catch (error) {
      read.reject(error);
      if (isDatabaseUnavailable(error) || !(await exchange.reusable())) unusable ??= error;
    }
  };
  let rest = batch;
  try {
    for (let first = rest[0]; first !== undefined && unusable === undefined; first = rest[0]) {
      if (!preparesNothing(client, first.statements)) {
        await settle(first, runInOneTransaction(client, first.statements));
        rest = rest.slice(1);
        continue;
      }
      const together = rest.filter((read) => preparesNothing(client, read.statements));
      rest = rest.filter((read) => !together.includes(read));
      await Promise.all(inOneWrite(client, () => together.map((read) => settle(read, runInOneTransaction(client, read.statements)))));
    }
  } catch (error) {
    unusable ??= error;
  } finally {
    // The reads not sent when the connection was found unusable fail as the read that found it so.
    for (const read of rest) read.reject(unusable);
    client.release(unusable !== undefined);
  }
}

const batchesOf = new WeakMap<pg.Pool, ReadBatches>();

/**
 * A read known up front (`opening`, then `statements`, none that waits on a row lock or needs a
 * transaction block) as one transaction, sent with the other reads of the moment on `pool`.
 * Resolves to each of `statements`' results.
 */
export async function readTogether<S extends readonly Statement[]>(
  pool: pg.Pool,
  statements: readonly [...S],
  opening: readonly Statement[] = [],
): Promise<ResultsOf<S>> {
  const all = [...opening, ...statements];
  if (needsBlock(all)) throw new Error('readTogether runs reads; a statement here needs a transaction block');
  const results = await getOrMake(batchesOf, pool, () => new ReadBatches(pool)).submit(all);
  return results.slice(opening.length) as ResultsOf<S>;
}
