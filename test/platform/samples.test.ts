/*
 * The sample media: GET /samples/ and /samples/{name} over HTTP (status, content type, bytes), and
 * the same answers given in process for a URL under PUBLIC_URL/samples/, and only for those.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { sampleResponse } from '../../src/platform/samples/index.js';
import { assertProblem, REPO_ROOT, type TestServer, useServer } from '../helpers.js';

const fixture = useServer();
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

const FILES: [string, string][] = [
  ['living-room.jpg', 'image/jpeg'],
  ['kitchen.jpg', 'image/jpeg'],
  ['floor-plan.png', 'image/png'],
  ['tour.mp4', 'video/mp4'],
];
const ERROR_PAGE = '<!doctype html>\n<title>Not found</title>\n<p>This picture is no longer available.</p>\n';

function file(name: string): Buffer {
  return fs.readFileSync(path.join(REPO_ROOT, 'samples', name));
}

async function get(url: string): Promise<{ status: number; type: string | null; bytes: Buffer; response: Response }> {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
    response,
  };
}

describe('the samples over HTTP', () => {
  it('each file with its content type and its bytes, cacheable', async () => {
    for (const [name, type] of FILES) {
      const answer = await get(`${server.base}/samples/${name}`);
      assert.equal(answer.status, 200, name);
      assert.equal(answer.type, type);
      assert.deepEqual(answer.bytes, file(name));
      assert.equal(answer.response.headers.get('cache-control'), 'public, max-age=3600');
      assert.equal(answer.response.headers.get('content-length'), String(file(name).length));
    }
  });

  it('are real files of their type: JPEG, PNG and MP4 signatures', () => {
    assert.deepEqual([...file('living-room.jpg').subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.deepEqual([...file('kitchen.jpg').subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.equal(file('floor-plan.png').subarray(1, 4).toString(), 'PNG');
    assert.equal(file('tour.mp4').subarray(4, 8).toString(), 'ftyp');
    for (const [name] of FILES) assert.ok(file(name).length < 20_000, `${name} is small`);
    assert.deepEqual(fs.readFileSync(path.join(REPO_ROOT, 'examples', 'living-room.jpg')), file('living-room.jpg'));
  });

  it('an error page where a picture was promised: 200 text/html', async () => {
    const answer = await get(`${server.base}/samples/not-an-image.jpg`);
    assert.equal(answer.status, 200);
    assert.equal(answer.type, 'text/html; charset=utf-8');
    assert.equal(answer.bytes.toString(), ERROR_PAGE);
  });

  it('missing.jpg, as any unknown name: the 404 problem', async () => {
    for (const name of ['missing.jpg', 'nothing-here.png']) {
      const response = await fetch(`${server.base}/samples/${name}`);
      const text = await response.text();
      assertProblem(
        { status: response.status, headers: response.headers, text, body: JSON.parse(text) },
        404,
        'Not found',
        'There is no such sample; GET /samples/ lists them',
      );
    }
  });

  it('GET /samples/ lists them with their URL under PUBLIC_URL, the URL examples/ names them by, and what each shows', async () => {
    const response = await fetch(`${server.base}/samples/`);
    assert.equal(response.status, 200);
    const at = (name: string) => ({ url: `${server.base}/samples/${name}`, exampleUrl: `http://samples.immogate.invalid/${name}` });
    assert.deepEqual(await response.json(), {
      samples: [
        { ...at('living-room.jpg'), status: 200, contentType: 'image/jpeg', shows: 'a picture: CREATED as a PICTURE' },
        { ...at('kitchen.jpg'), status: 200, contentType: 'image/jpeg', shows: 'a picture: CREATED as a PICTURE' },
        {
          ...at('floor-plan.png'),
          status: 200,
          contentType: 'image/png',
          shows: 'a floor plan: CREATED as a PICTURE (category FLOOR_PLAN)',
        },
        { ...at('tour.mp4'), status: 200, contentType: 'video/mp4', shows: 'a video: CREATED as a VIDEO' },
        {
          ...at('not-an-image.jpg'),
          status: 200,
          contentType: 'text/html; charset=utf-8',
          shows: 'a page where a picture was promised: CREATING_FAILED, content type "text/html" does not fit mediaType PICTURE',
        },
        { ...at('missing.jpg'), status: 404, contentType: null, shows: 'a lost file: DOWNLOADING_FAILED, the server answered 404' },
      ],
    });
  });
});

describe('the samples in process', () => {
  it('answer as the HTTP route does: status, content type and bytes', async () => {
    for (const name of [...FILES.map(([n]) => n), 'not-an-image.jpg', 'missing.jpg']) {
      const url = `${server.base}/samples/${name}`;
      const http = await get(url);
      const local = sampleResponse(url, server.base);
      assert.ok(local, name);
      // The name examples/ gives it, answered the same (less its own URL) on any port.
      const { url: _, ...alias } = sampleResponse(`http://samples.immogate.invalid/${name}`, 'http://127.0.0.1:1') ?? {};
      const { url: __, ...underPublicUrl } = local;
      assert.deepEqual(alias, underPublicUrl, name);
      assert.equal(local.status, http.status, name);
      assert.equal(local.headers['content-type'], http.type, name);
      // The bytes of a file or page; a 404's problem differs only by the request's traceparent.
      if (http.status === 200) {
        assert.deepEqual(local.body, http.bytes);
        assert.equal(local.headers['content-length'], http.response.headers.get('content-length') ?? undefined);
      } else {
        const { instance: _, ...problem } = JSON.parse(http.bytes.toString());
        assert.deepEqual(JSON.parse(local.body.toString()), problem);
      }
      assert.equal(local.size, local.body.length);
      assert.equal(local.url, url);
      assert.equal(local.truncated, false);
    }
  });

  it('a query or a normalised path reaches the same sample; a malformed one is the same 400', async () => {
    assert.equal(sampleResponse(`${server.base}/samples/tour.mp4?run=1`, server.base)?.status, 200);
    assert.equal(sampleResponse(`${server.base}/other/../samples/tour.mp4`, server.base)?.headers['content-type'], 'video/mp4');
    assert.equal(sampleResponse(`${server.base}/samples/%74our.mp4`, server.base)?.status, 200);
    const malformed = `${server.base}/samples/%E0%A4%A`;
    const response = await fetch(malformed);
    const { instance: _, ...problem } = await response.json();
    assert.equal(response.status, 400);
    assert.deepEqual(JSON.parse(sampleResponse(malformed, server.base)?.body.toString() ?? '{}'), problem);
  });

  it('under a PUBLIC_URL with a path, the samples are under that path', () => {
    const publicUrl = 'https://immogate.example.org/api';
    assert.equal(sampleResponse('https://immogate.example.org/api/samples/kitchen.jpg', publicUrl)?.status, 200);
    assert.equal(sampleResponse('https://immogate.example.org/samples/kitchen.jpg', publicUrl), undefined);
  });

  it('any other URL is left to the outbound client: another origin, scheme or port, another path, no URL', () => {
    const base = new URL(server.base);
    for (const url of [
      `http://localhost:${base.port}/samples/kitchen.jpg`,
      `https://127.0.0.1:${base.port}/samples/kitchen.jpg`,
      `http://127.0.0.1:${Number(base.port) + 1}/samples/kitchen.jpg`,
      `${server.base}/sample/kitchen.jpg`,
      `${server.base}/samples`,
      'not a url',
    ]) {
      assert.equal(sampleResponse(url, server.base), undefined, url);
    }
  });
});
