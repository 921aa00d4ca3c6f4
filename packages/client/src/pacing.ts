/*
 * Pacing by the server's RateLimit fields (draft-ietf-httpapi-ratelimit-headers): each answer
 * says, per quota policy, how many requests are left (`r`) and in how many seconds the quota is
 * whole again (`t`). Once a policy has none left, the client holds its next requests of that kind
 * until then, rather than sending them to be refused with 429 and retried: a client at its quota
 * goes at the quota's pace. immogate's policies are `writes` (POST, PUT, PATCH, DELETE) and
 * `reads` (the rest), per API root's client and agency.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The policy a request counts against, by its method. */
export function policyOf(method: string): 'writes' | 'reads' {
  return WRITES.has(method.toUpperCase()) ? 'writes' : 'reads';
}

/** The items of a RateLimit field: `"writes";r=0;t=1, "reads";r=7;t=1` (a Structured Fields list). */
export function parseRateLimit(value: string | null): { policy: string; remaining: number; resetSeconds: number }[] {
  if (value === null) return [];
  const items: { policy: string; remaining: number; resetSeconds: number }[] = [];
  for (const member of value.split(',')) {
    const [name, ...parameters] = member.trim().split(';');
    const policy = /^"([^"]*)"$/.exec(name?.trim() ?? '')?.[1] ?? name?.trim();
    const parameter = (key: string) => {
      const found = parameters.map((part) => part.trim().split('=')).find(([k]) => k === key);
      return found?.[1] === undefined ? undefined : Number(found[1]);
    };
    const remaining = parameter('r');
    if (!policy || remaining === undefined || !Number.isFinite(remaining)) continue;
    const reset = parameter('t');
    items.push({ policy, remaining, resetSeconds: reset !== undefined && Number.isFinite(reset) ? Math.max(0, reset) : 0 });
  }
  return items;
}

/** The longest the client holds a request for a quota: a server that announces more is not waited on. */
const MAX_HOLD_MS = 60_000;

export class Pacer {
  /** Per policy of one API root: until when it has nothing left. */
  private readonly emptyUntil = new Map<string, number>();

  /** Waits until the policy `method` counts against has something left, as last announced. */
  async before(method: string): Promise<void> {
    const until = this.emptyUntil.get(policyOf(method));
    if (until === undefined) return;
    const wait = until - Date.now();
    if (wait <= 0) this.emptyUntil.delete(policyOf(method));
    else await sleep(Math.min(wait, MAX_HOLD_MS));
  }

  /** Notes what an answer says of the quotas. */
  after(response: Response): void {
    for (const { policy, remaining, resetSeconds } of parseRateLimit(response.headers.get('ratelimit'))) {
      if (remaining > 0) this.emptyUntil.delete(policy);
      else this.emptyUntil.set(policy, Date.now() + resetSeconds * 1000);
    }
  }
}
