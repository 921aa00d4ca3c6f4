/*
 * Requests first (src/platform/work/requestsFirst.ts): what the worker of `immogate start` makes
 * of its servers' load reports, and the pace it starts heavy work at while they are busy. Clocks
 * are given, so each step is exact; the stream runner under the pace is tested with a real
 * database in work.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BUSY_UTILISATION,
  isLoadReport,
  type LoadReport,
  RequestsFirstPace,
  STALE_MS,
  ServersLoad,
} from '../../src/platform/work/requestsFirst.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => (at += ms) };
}

const report = (utilisation: number, from = 1): LoadReport => ({ type: 'immogate:load', utilisation, from });

/** A pace of `perSecond` over the load of the servers, both on a clock the test moves. */
function pacing(perSecond: number) {
  const time = clock();
  const load = new ServersLoad(time.now);
  return { time, load, pace: new RequestsFirstPace(load, perSecond, time.now) };
}

describe('the servers load as the worker hears it', () => {
  it('recognises a load report and nothing else', () => {
    assert.equal(isLoadReport(report(0.5)), true);
    assert.equal(isLoadReport({ type: 'immogate:load', utilisation: 0.5 }), true);
    assert.equal(isLoadReport('immogate:ready'), false);
    assert.equal(isLoadReport({ type: 'immogate:load', utilisation: '0.5' }), false);
    assert.equal(isLoadReport({ type: 'other', utilisation: 0.5 }), false);
    assert.equal(isLoadReport(null), false);
  });

  it('is busy for STALE_MS after a server reported its loop busy, whatever the others say', () => {
    const time = clock();
    const load = new ServersLoad(time.now);
    assert.equal(load.busy(), false, 'nothing heard: never held back');
    load.heed(report(BUSY_UTILISATION - 0.01, 1));
    assert.equal(load.busy(), false, 'under the bar');
    load.heed(report(BUSY_UTILISATION, 2));
    assert.equal(load.busy(), true, 'at the bar');
    time.advance(STALE_MS - 1);
    load.heed(report(0, 1));
    assert.equal(load.busy(), true, 'another server calm does not end the busy one');
    time.advance(1);
    assert.equal(load.busy(), false, 'a busy report holds STALE_MS, then says nothing (a server gone or hung holds nothing back)');
  });

  it('tells its listeners once when a report finds every server calm after one was busy', () => {
    const time = clock();
    const load = new ServersLoad(time.now);
    let calmed = 0;
    load.onCalm(() => calmed++);
    load.heed(report(0.1));
    assert.equal(calmed, 0, 'never busy: nothing to tell');
    load.heed(report(0.9));
    time.advance(500);
    load.heed(report(0.1));
    assert.equal(calmed, 0, 'the busy report still holds');
    time.advance(500);
    load.heed(report(0.1));
    assert.equal(calmed, 1);
    time.advance(250);
    load.heed(report(0.1));
    assert.equal(calmed, 1, 'told once');
  });
});

describe('the pace of heavy work while the servers are busy', () => {
  it('lets a stream start as much as it likes while the servers are calm', () => {
    const { pace } = pacing(40);
    assert.equal(pace.allowed('s'), Number.POSITIVE_INFINITY);
    pace.started('s', 1_000);
    assert.equal(pace.allowed('s'), Number.POSITIVE_INFINITY);
  });

  it('starts a quarter second of its pace at once while busy, then its pace a second, each stream apart', () => {
    const { time, load, pace } = pacing(40);
    load.heed(report(1));
    assert.equal(pace.allowed('s'), 10);
    pace.started('s', 10);
    assert.equal(pace.allowed('s'), 0);
    assert.equal(pace.untilNext('s'), 25, 'one more after 1/40 s');
    assert.equal(pace.allowed('other'), 10, 'another stream has a bucket of its own');
    time.advance(100);
    load.heed(report(1));
    assert.equal(pace.allowed('s'), 4);
    pace.started('s', 3);
    time.advance(10_000);
    load.heed(report(1));
    assert.equal(pace.allowed('s'), 10, 'no more than the burst, however long it waited');
  });

  it('starts at least one at a time at a pace below four a second, and is full again once the servers calmed down', () => {
    const { time, load, pace } = pacing(2);
    load.heed(report(0.7));
    assert.equal(pace.allowed('s'), 1);
    pace.started('s', 1);
    assert.equal(pace.allowed('s'), 0);
    assert.equal(pace.untilNext('s'), 500);
    time.advance(STALE_MS);
    assert.equal(pace.allowed('s'), Number.POSITIVE_INFINITY);
    load.heed(report(0.9));
    assert.equal(pace.allowed('s'), 1, 'a new busy spell starts with a full burst');
  });
});
