/*
 * Group commit: writes submitted while earlier ones are on their way to the database travel
 * together in the next transaction, one statement for the lot. Nothing waits for a timer: a write
 * arriving when fewer than `maxInFlight` batches are being written leaves on the next turn of the
 * event loop with whatever else arrived in that turn; under load, batches grow by themselves to
 * what arrives during one commit. The per-transaction costs (round trip, statement, commit and its
 * WAL flush) are then shared.
 */
export interface BatcherOptions {
  /** Most items in one batch. */
  maxBatch: number;
  /** Batches written at once (each takes a connection). */
  maxInFlight: number;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class Batcher<I, O> {
  private queue: Waiting<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /** `write` gets a batch and resolves to the outcome of each item, in order; a rejection fails them all. */
  constructor(
    private readonly write: (items: I[]) => Promise<PromiseSettledResult<O>[]>,
    private readonly options: BatcherOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      this.write(batch.map((waiting) => waiting.item))
        .then(
          (results) => {
            for (const [index, waiting] of batch.entries()) {
              const result = settledAt(results, index);
              if (result.status === 'fulfilled') waiting.resolve(result.value);
              else waiting.reject(result.reason);
            }
          },
          (error: unknown) => {
            for (const waiting of batch) waiting.reject(error);
          },
        )
        .finally(() => {
          this.inFlight -= 1;
          this.schedule();
        });
    }
  }
}

/**
 * What a batch write does when its one transaction failed: each item written again in a batch of
 * its own, so that only the one at fault fails (a write that collided with a concurrent one, a
 * value the database refused).
 */
export function eachAlone<I, O>(
  items: I[],
  writeBatch: (batch: I[]) => Promise<PromiseSettledResult<O>[]>,
): Promise<PromiseSettledResult<O>[]> {
  return Promise.all(items.map(async (item) => settledAt(await writeBatch([item]), 0)));
}

/** The result of the `index`th item of a batch write, which answers one per item. */
export function settledAt<O>(results: PromiseSettledResult<O>[], index: number): PromiseSettledResult<O> {
  return (
    results[index] ?? { status: 'rejected', reason: new Error(`a batch write answered ${results.length} results, none for item ${index}`) }
  );
}
