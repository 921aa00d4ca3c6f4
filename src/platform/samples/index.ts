/*
 * Sample media immogate serves itself under /samples/: two pictures, a floor plan, a video, and
 * URLs that fail as a CDN fails (a 404, a page where a picture was promised), so that the
 * walkthroughs, the demo and a CRM's first tests end the same on a machine without internet.
 *
 * The same answers go to a browser or curl over HTTP, and in process to the worker for a URL
 * under PUBLIC_URL/samples/ or SAMPLES_ORIGIN: the worker then opens no socket, so no address policy is bypassed
 * (ALLOW_PRIVATE_TARGETS stays what it is), and it works whatever PUBLIC_URL resolves to, even to
 * nothing on this machine. The bytes are the files of samples/ (scripts/make-samples.sh draws them).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { OutboundResponse } from '../delivery/outbound.js';
import { malformedPath } from '../http/errors.js';
import { notFound, PROBLEM_CONTENT_TYPE, type Problem } from '../http/problems.js';

const SAMPLES_DIR = fileURLToPath(new URL('../../../../samples/', import.meta.url));

/** The path of the samples under PUBLIC_URL (and of the route). */
export const SAMPLES_PATH = '/samples/';

/**
 * The origin the files of examples/ name their media by, answered like PUBLIC_URL/samples/ and
 * only in process: `.invalid` is reserved never to resolve (RFC 6761), so no one else's host is
 * shadowed, and the examples work unchanged whatever port or PUBLIC_URL a server has.
 */
export const SAMPLES_ORIGIN = 'http://samples.immogate.invalid';

export interface Sample {
  name: string;
  status: number;
  contentType: string;
  /** A file of samples/, or the bytes themselves. */
  source: { file: string } | { text: string };
  /** What it shows when a classified's media points at it. */
  shows: string;
}

export const SAMPLES: readonly Sample[] = [
  {
    name: 'living-room.jpg',
    status: 200,
    contentType: 'image/jpeg',
    source: { file: 'living-room.jpg' },
    shows: 'a picture: CREATED as a PICTURE',
  },
  {
    name: 'kitchen.jpg',
    status: 200,
    contentType: 'image/jpeg',
    source: { file: 'kitchen.jpg' },
    shows: 'a picture: CREATED as a PICTURE',
  },
  {
    name: 'floor-plan.png',
    status: 200,
    contentType: 'image/png',
    source: { file: 'floor-plan.png' },
    shows: 'a floor plan: CREATED as a PICTURE (category FLOOR_PLAN)',
  },
  { name: 'tour.mp4', status: 200, contentType: 'video/mp4', source: { file: 'tour.mp4' }, shows: 'a video: CREATED as a VIDEO' },
  {
    name: 'not-an-image.jpg',
    status: 200,
    contentType: 'text/html; charset=utf-8',
    // What a CDN sends for a picture it lost: an error page, answered 200.
    source: { text: '<!doctype html>\n<title>Not found</title>\n<p>This picture is no longer available.</p>\n' },
    shows: 'a page where a picture was promised: CREATING_FAILED, content type "text/html" does not fit mediaType PICTURE',
  },
];

/** A name no sample has, listed for the walkthroughs: it answers 404 as every unknown name does. */
export const MISSING_SAMPLE = 'missing.jpg';

const bytes = new Map<string, Buffer>();

function bodyOf(sample: Sample): Buffer {
  let body = bytes.get(sample.name);
  if (body === undefined) {
    body = 'file' in sample.source ? fs.readFileSync(SAMPLES_DIR + sample.source.file) : Buffer.from(sample.source.text);
    bytes.set(sample.name, body);
  }
  return body;
}

/** The answer to GET /samples/{name}, whether it came over HTTP or not. */
interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

const NOT_FOUND = 'There is no such sample; GET /samples/ lists them';

function answerFor(name: string): Answer | undefined {
  const sample = SAMPLES.find((candidate) => candidate.name === name);
  return sample && { status: sample.status, contentType: sample.contentType, body: bodyOf(sample) };
}

/** A problem as the HTTP route answers it, less the request's traceparent (no request here). */
function problemAnswer(problem: Problem): Answer {
  const { instance: _, ...body } = problem.body('');
  // With the charset Fastify adds to every JSON type it sends.
  return { status: problem.status, contentType: `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, body: Buffer.from(JSON.stringify(body)) };
}

/** The name of the sample `url` asks for, when it is one under PUBLIC_URL/samples/ or SAMPLES_ORIGIN. */
function sampleName(url: URL, publicUrl: string): string | undefined {
  if (url.origin === SAMPLES_ORIGIN) return url.pathname.slice(1);
  const base = new URL(publicUrl);
  const prefix = base.pathname.replace(/\/$/, '') + SAMPLES_PATH;
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix)) return undefined;
  return url.pathname.slice(prefix.length);
}

/**
 * What a GET of `raw` would answer when it is a URL under PUBLIC_URL/samples/ or SAMPLES_ORIGIN (the statuses and
 * content types of the HTTP route, the bytes of the file); undefined for any other URL, which
 * takes the way of every outbound call.
 */
export function sampleResponse(raw: string, publicUrl: string): OutboundResponse | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const name = sampleName(url, publicUrl);
  if (name === undefined) return undefined;
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    decoded = undefined;
  }
  const answer =
    (decoded === undefined ? undefined : answerFor(decoded)) ??
    problemAnswer(decoded === undefined ? malformedPath() : notFound(NOT_FOUND));
  return {
    status: answer.status,
    headers: { 'content-type': answer.contentType, 'content-length': String(answer.body.length) },
    body: answer.body,
    size: answer.body.length,
    url: url.toString(),
    truncated: false,
  };
}

/** GET /samples/ (the list, with the URL of each under PUBLIC_URL) and GET /samples/{name}. */
export function sampleRoutes(app: FastifyInstance, publicUrl: string): void {
  app.get(SAMPLES_PATH, { schema: { hide: true } }, async () => ({
    samples: [
      ...SAMPLES.map((sample) => ({
        url: publicUrl + SAMPLES_PATH + sample.name,
        exampleUrl: `${SAMPLES_ORIGIN}/${sample.name}`,
        status: sample.status,
        contentType: sample.contentType,
        shows: sample.shows,
      })),
      {
        url: publicUrl + SAMPLES_PATH + MISSING_SAMPLE,
        exampleUrl: `${SAMPLES_ORIGIN}/${MISSING_SAMPLE}`,
        status: 404,
        contentType: null,
        shows: 'a lost file: DOWNLOADING_FAILED, the server answered 404',
      },
    ],
  }));
  app.get<{ Params: { name: string } }>(`${SAMPLES_PATH}:name`, { schema: { hide: true } }, async (request, reply) => {
    const answer = answerFor(request.params.name);
    if (answer === undefined) throw notFound(NOT_FOUND);
    return reply
      .code(answer.status)
      .header('content-type', answer.contentType)
      .header('cache-control', 'public, max-age=3600')
      .send(answer.body);
  });
}
