/*
 * Pacing by the quotas immogate announces (RateLimit, draft-ietf-httpapi-ratelimit-headers): a
 * client reading faster than its quota waits where the quota says, instead of being refused with
 * 429 and retrying; the same reads by a client that does not pace are refused. Against an immogate
 * whose read quota is 5 a second.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getToken, http, useServer } from '../../../test/helpers.js';
import type { RetryInfo } from '../src/index.js';
import { parseRateLimit, policyOf } from '../src/pacing.js';
import { clientOf } from './helpers.js';

const READS = 5;
const fixture = useServer({
  env: { QUOTA_READS_PER_SECOND: String(READS), QUOTA_WRITES_PER_SECOND: '5' },
  client: { intermediaries: ['agency-1', 'agency-2'], scopes: ['caas:*'] },
});

before(() => fixture.ready());

describe('pacing by the RateLimit field', () => {
  it('reads the field of the draft, and tells the policies apart by method', () => {
    assert.deepEqual(parseRateLimit('"writes";r=0;t=1, "reads";r=7;t=2'), [
      { policy: 'writes', remaining: 0, resetSeconds: 1 },
      { policy: 'reads', remaining: 7, resetSeconds: 2 },
    ]);
    assert.deepEqual(parseRateLimit('"reads";t=1'), []);
    assert.deepEqual(parseRateLimit(null), []);
    assert.equal(policyOf('POST'), 'writes');
    assert.equal(policyOf('delete'), 'writes');
    assert.equal(policyOf('GET'), 'reads');
  });

  it('holds reads past the quota until it is whole again: no 429, no retry', async () => {
    const retries: RetryInfo[] = [];
    const client = clientOf(fixture, 'agency-1', { retry: { onRetry: (info) => retries.push(info) } });
    const started = performance.now();
    for (let i = 0; i < 3 * READS; i += 1) assert.deepEqual(await client.classifieds.list({ offererEstateId: 'none' }).toArray(), []);
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual(retries, []);
    // Three quotas' worth: the first at once, then about a second for each of the others.
    assert.ok(seconds >= 1.5, `${seconds.toFixed(2)} s`);
  });

  it('unpaced, the same reads are refused (the mutation check of the pacing)', async () => {
    const token = await getToken(fixture.server, fixture.client, { root: '/caas/v4', intermediary: 'agency-2' });
    const statuses: number[] = [];
    for (let i = 0; i < 3 * READS; i += 1) {
      const answer = await http('GET', `${fixture.server.base}/caas/v4/classifieds?offererEstateId=none`, {
        headers: { authorization: `Bearer ${token}` },
      });
      statuses.push(answer.status);
    }
    assert.ok(statuses.includes(429), statuses.join(' '));
  });
});
