/*
 * A TCP relay on loopback in front of the test's PostgreSQL, to make the network between immogate
 * and its database fail from outside: it forwards, refuses (each connection reset as it comes),
 * or goes dark as a partition does, where nothing crosses, not even a connection's end.
 */
import net from 'node:net';

type Mode = 'forward' | 'refuse' | 'dark';

interface Pair {
  down: net.Socket;
  up: net.Socket | undefined;
  /** Caught by the partition: nothing crosses any more, a close neither. */
  frozen: boolean;
}

export class Relay {
  private mode: Mode = 'forward';
  private readonly pairs = new Set<Pair>();
  private readonly server = net.createServer((socket) => this.accept(socket));

  constructor(private readonly target: { host: string; port: number }) {
    this.server.on('error', () => undefined);
  }

  /** Listens on `port` (a free one if 0) and answers it. */
  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as net.AddressInfo).port;
  }

  forward(): void {
    this.mode = 'forward';
  }

  /** Resets what is open and each connection from now on, as a database host whose PostgreSQL is down. */
  refuse(): void {
    this.mode = 'refuse';
    for (const pair of this.pairs) this.cut(pair);
  }

  /**
   * A partition: open connections stop carrying anything, in either direction, and their ends do
   * not cross (the database's side stays open whatever immogate does with its own); new ones are
   * accepted and never answered.
   */
  dark(): void {
    this.mode = 'dark';
    for (const pair of this.pairs) {
      pair.frozen = true;
      pair.down.unpipe();
      pair.up?.unpipe();
      pair.down.pause();
      pair.up?.pause();
    }
  }

  /**
   * The partition is over: new connections are forwarded. Those that arrived during it are reset,
   * as a recovered network would; those it caught stay as they are on the database's side, its
   * sessions open, as when the host that held them no longer knows them.
   */
  heal(): void {
    this.mode = 'forward';
    for (const pair of this.pairs) {
      if (pair.up === undefined) this.cut(pair);
      else if (pair.frozen) pair.down.destroy();
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.cut(pair);
    await new Promise((resolve) => this.server.close(resolve));
  }

  private cut(pair: Pair): void {
    pair.down.destroy();
    pair.up?.destroy();
    this.pairs.delete(pair);
  }

  private accept(down: net.Socket): void {
    down.on('error', () => undefined);
    if (this.mode === 'refuse') {
      down.resetAndDestroy();
      return;
    }
    const pair: Pair = { down, up: undefined, frozen: this.mode === 'dark' };
    this.pairs.add(pair);
    if (pair.frozen) {
      down.pause();
      return;
    }
    const up = net.connect(this.target.port, this.target.host);
    pair.up = up;
    up.on('error', () => undefined);
    up.on('close', () => {
      if (!pair.frozen) this.cut(pair);
    });
    down.on('close', () => {
      if (!pair.frozen) this.cut(pair);
    });
    down.pipe(up).pipe(down);
  }
}
