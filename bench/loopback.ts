/*
 * The outside world of the end-to-end scenarios, in a process of its own on loopback:
 * - GET /media/...: a small JPEG, for the media downloads of classifieds processing;
 * - GET /slow-media/...: the same JPEG after 3 s (a media host that answers slowly);
 * - POST /hooks/<name>...: a webhook receiver answering 204 that notes when each lead, and each
 *   classified status, arrived (a status with when it was recorded and when its write was received);
 * - POST /hang/...: a webhook receiver that never answers (the caller's timeout ends the call).
 * Over IPC, 'receipts' answers with the receipts so far and forgets them; 'counts' with how many
 * media were served.
 */
import http from 'node:http';
import { LEAD_KEY_PREFIX } from './body.js';
import { wallClock } from './clock.js';

export interface Receipt {
  hook: string;
  /** A lead's key (its message), or a status's statusId. */
  key: string;
  /** Epoch milliseconds at which the whole body had arrived. */
  at: number;
  /** A status: epoch milliseconds of its statusDate (recorded) and of its creationDate (its write received). */
  recordedAt?: number;
  writtenAt?: number;
}

// A few KB that start and end like a JPEG: processing checks the content type and the size only.
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(8 * 1024, 0x42), Buffer.from([0xff, 0xd9])]);

let receipts: Receipt[] = [];
let mediaServed = 0;
let unreadable = 0;

/** How long the slow media host takes to answer. */
const SLOW_MEDIA_MS = 3_000;

function sendJpeg(response: http.ServerResponse): void {
  if (!response.destroyed) response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.length }).end(JPEG);
}

const server = http.createServer((request, response) => {
  const url = request.url ?? '/';
  if (request.method === 'GET' && url.startsWith('/media/')) {
    mediaServed++;
    request.resume();
    sendJpeg(response);
    return;
  }
  if (request.method === 'GET' && url.startsWith('/slow-media/')) {
    request.resume();
    setTimeout(() => sendJpeg(response), SLOW_MEDIA_MS);
    return;
  }
  if (request.method === 'POST' && url.startsWith('/hang/')) {
    // Read, never answered: the connection stays open until the caller gives up.
    request.resume();
    return;
  }
  if (request.method === 'POST' && url.startsWith('/hooks/')) {
    // A status webhook goes to {url}/classifieds/{id}/statuses: the hook is the first segment.
    const hook = url.slice('/hooks/'.length).split('/')[0] ?? '';
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = wallClock();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          contactRequest?: { message?: string };
          statusId?: string;
          statusDate?: string;
          creationDate?: string;
        };
        const message = body.contactRequest?.message ?? '';
        if (message.startsWith(LEAD_KEY_PREFIX)) receipts.push({ hook, key: message.slice(LEAD_KEY_PREFIX.length), at });
        else if (body.statusId && body.statusDate && body.creationDate)
          receipts.push({
            hook,
            key: body.statusId,
            at,
            recordedAt: Date.parse(body.statusDate),
            writtenAt: Date.parse(body.creationDate),
          });
        else unreadable++;
      } catch {
        unreadable++;
      }
      response.writeHead(204).end();
    });
    return;
  }
  request.resume();
  response.writeHead(404).end();
});
// Webhook deliveries open a connection each: keep the accept queue from being the bottleneck.
server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, () => {
  const address = server.address() as { port: number };
  process.send!({ address: `http://127.0.0.1:${address.port}` });
});

process.on('message', (message) => {
  if (message === 'receipts') {
    process.send!({ receipts, unreadable });
    receipts = [];
    unreadable = 0;
  } else if (message === 'counts') {
    process.send!({ mediaServed });
  } else if (message === 'stop') {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  }
});
