/*
 * The methods served at a path (the 405's Allow), read off the tree of route patterns: the same
 * answers as matching each pattern, with every matching pattern counted, and a path read once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KnownPaths } from '../../src/platform/http/knownPaths.js';

function paths(): KnownPaths {
  const known = new KnownPaths();
  known.add('/caas/v4/classifieds', ['GET', 'HEAD', 'POST']);
  known.add('/caas/v4/classifieds/:classifiedId', ['GET', 'HEAD', 'PUT', 'DELETE']);
  known.add('/caas/v4/classifieds/validate', ['POST']);
  known.add('/caas/v4/classifieds/:classifiedId/statuses', ['GET', 'HEAD']);
  known.add('/import-listings/v1/media-uploads/*', ['PUT']);
  known.add('/', ['GET', 'HEAD']);
  return known;
}

describe('known paths', () => {
  it('a static path, a parameter, and both where a static segment could also be a parameter', () => {
    const known = paths();
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds'), ['GET', 'HEAD', 'POST']);
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds/abc'), ['DELETE', 'GET', 'HEAD', 'PUT']);
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds/validate'), ['DELETE', 'GET', 'HEAD', 'POST', 'PUT']);
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds/abc/statuses'), ['GET', 'HEAD']);
    assert.deepEqual(known.methodsAt('/'), ['GET', 'HEAD']);
  });

  it('an empty segment fills no parameter; more or fewer segments match nothing', () => {
    const known = paths();
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds//statuses'), []);
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds/abc/statuses/more'), []);
    assert.deepEqual(known.methodsAt('/caas/v4'), []);
    assert.deepEqual(known.methodsAt('/caas/v4/classifieds/'), []);
    assert.deepEqual(known.methodsAt(''), []);
  });

  it('a final * takes the rest of the path, however long, but not its absence', () => {
    const known = paths();
    assert.deepEqual(known.methodsAt('/import-listings/v1/media-uploads/x'), ['PUT']);
    assert.deepEqual(known.methodsAt('/import-listings/v1/media-uploads/'), ['PUT']);
    assert.deepEqual(known.methodsAt(`/import-listings/v1/media-uploads${'/a'.repeat(2000)}`), ['PUT']);
    assert.deepEqual(known.methodsAt('/import-listings/v1/media-uploads'), []);
  });

  it('paths deeper than every pattern, of many segments, match nothing', () => {
    const known = paths();
    assert.deepEqual(known.methodsAt('/a'.repeat(2048)), []);
    assert.deepEqual(known.methodsAt(`/caas/v4/classifieds${'/a'.repeat(2000)}`), []);
  });
});
