/*
 * Calls at once to one host on behalf of one tenant, per process: a host that is slow with one
 * agency's files holds up that agency's calls only, and no agency can aim more than the cap at a
 * host (immogate as a tool against a third party's server).
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { getOrMake } from '../memo.js';

interface HostLimit {
  limit: LimitFunction;
  /** Calls queued or running; the entry goes when none is left, so the map holds only busy ones. */
  users: number;
}

export class HostLimits {
  private readonly limits = new Map<string, HostLimit>();

  constructor(private readonly perHost: number) {}

  /**
   * Runs `call` once fewer than `perHost` calls of `tenant` to the host of `url` run (a URL
   * without a host runs at once: the call refuses it).
   */
  async run<T>(tenant: string, url: string, call: () => Promise<T>): Promise<T> {
    const host = hostOf(url);
    if (host === '') return call();
    const key = `${tenant} ${host}`;
    const entry = getOrMake(this.limits, key, () => ({ limit: pLimit(this.perHost), users: 0 }));
    entry.users += 1;
    try {
      return await entry.limit(call);
    } finally {
      entry.users -= 1;
      if (entry.users === 0) this.limits.delete(key);
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

const limitsBy = new WeakMap<object, HostLimits>();

/** The host limits of one owner (a worker's configuration), made on first use. */
export function sharedHostLimits(owner: object, perHost: number): HostLimits {
  return getOrMake(limitsBy, owner, () => new HostLimits(perHost));
}
