/*
 * Free space under DATA_DIR, watched so that writes stop while there is still room: PostgreSQL
 * that runs out of disk PANICs, and a blob half written is lost. Read once a second off the
 * request path (statfs is a system call, cheap, but no request should wait for one).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from './log.js';

const INTERVAL_MS = 1_000;
const MB = 1024 * 1024;

/**
 * Whether the disk under DATA_DIR matters: it holds the embedded cluster, or the uploaded media
 * when no S3 store is set. With DATABASE_URL and S3 nothing of ours grows there.
 */
export function diskWatched(config: Config): boolean {
  return config.minFreeDiskMb > 0 && (config.databaseUrl === undefined || config.s3 === undefined);
}

/** The directory itself, or while it does not exist yet the nearest ancestor that does: the file system it will be on. */
async function existingAncestor(dir: string): Promise<string> {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      await fs.access(current);
      return current;
    } catch {
      if (path.dirname(current) === current) return current;
    }
  }
}

export class DiskWatch {
  private lowSince: number | undefined;
  private refusals = 0;
  private free = Number.POSITIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  /** `what`: what stops while space is low, for the log lines ("writes", "claims"). */
  private constructor(
    private readonly dir: string,
    private readonly minFreeMb: number,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Watches DATA_DIR when it matters (diskWatched), read once before this resolves; undefined otherwise. */
  static async start(config: Config, logger: Logger, what: string): Promise<DiskWatch | undefined> {
    if (!diskWatched(config)) return undefined;
    const watch = new DiskWatch(config.dataDir, config.minFreeDiskMb, logger, what);
    await watch.read();
    watch.timer = setInterval(() => void watch.read(), INTERVAL_MS);
    watch.timer.unref();
    return watch;
  }

  /** Free space is below MIN_FREE_DISK_MB, as last read. */
  get low(): boolean {
    return this.lowSince !== undefined;
  }

  get freeMb(): number {
    return Math.floor(this.free / MB);
  }

  /** Counts one thing refused for lack of space, for the line that ends the episode. */
  refused(): void {
    this.refusals++;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  private async read(): Promise<void> {
    try {
      const stats = await fs.statfs(await existingAncestor(this.dir));
      // bavail: what an unprivileged writer may use; PostgreSQL runs unprivileged.
      this.free = stats.bavail * stats.bsize;
    } catch (error) {
      // Unknown is not low: a statfs that fails must not stop the writes of a healthy disk.
      this.logger.debug({ err: error, dataDir: this.dir }, 'could not read the free disk space');
      return;
    }
    const low = this.free < this.minFreeMb * MB;
    if (low && this.lowSince === undefined) {
      this.lowSince = Date.now();
      this.logger.warn(
        { dataDir: this.dir, freeMb: this.freeMb, minFreeMb: this.minFreeMb },
        `free disk space below MIN_FREE_DISK_MB: ${this.what} refused until there is more`,
      );
    } else if (!low && this.lowSince !== undefined) {
      const seconds = Math.round((Date.now() - this.lowSince) / 100) / 10;
      this.logger.info(
        { dataDir: this.dir, freeMb: this.freeMb, refused: this.refusals, seconds },
        `free disk space above MIN_FREE_DISK_MB again: ${this.what} accepted`,
      );
      this.lowSince = undefined;
      this.refusals = 0;
    }
  }
}
