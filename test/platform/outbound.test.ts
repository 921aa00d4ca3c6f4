/*
 * The outbound HTTP client: the address policy (SSRF), URL checks, limits, redirects, retry timing.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { forbiddenReason } from '../../src/platform/delivery/addresses.js';
import { checkTargetUrl, createOutbound, OutboundError, type Outbound, type OutboundPolicy } from '../../src/platform/delivery/outbound.js';
import { parseRetryAfter, retryDelaySeconds } from '../../src/platform/delivery/retry.js';

/**
 * A loopback server with one behaviour per path. Hanging responses are ended by close().
 */
let server: Server;
let port: number;
let base: string;
// The same routes on another port: another origin.
let otherServer: Server;
let otherBase: string;
let hits = 0;

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const n = Number(url.searchParams.get('n') ?? 0);
  switch (url.pathname) {
    case '/ok':
      res.end('hello');
      return;
    case '/echo':
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, path: url.pathname, headers: req.headers, body }));
      return;
    case '/hang':
      return; // never answers
    case '/stall':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk, then silence');
      return;
    case '/big':
      res.writeHead(200, { 'content-length': String(n) });
      res.end(Buffer.alloc(n, 'a'));
      return;
    case '/chunked': {
      // No content-length: the limit must hold while streaming.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let sent = 0; sent < n; sent += 500) res.write(Buffer.alloc(Math.min(500, n - sent), 'b'));
      res.end();
      return;
    }
    case '/chain':
      // /chain?n=3 redirects to /chain?n=2 ... /chain?n=0 answers.
      if (n === 0) res.end('arrived');
      else res.writeHead(302, { location: `/chain?n=${n - 1}` }).end();
      return;
    case '/to':
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('location') ?? '/' }).end();
      return;
    default:
      res.writeHead(404).end();
  }
}

async function listen(): Promise<[Server, number]> {
  const s = createServer((req, res) => {
    hits++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return [s, (s.address() as AddressInfo).port];
}

before(async () => {
  [server, port] = await listen();
  base = `http://127.0.0.1:${port}`;
  const [second, secondPort] = await listen();
  otherServer = second;
  otherBase = `http://127.0.0.1:${secondPort}`;
});

after(async () => {
  for (const s of [server, otherServer]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** An outbound client for one test, closed after it whatever happens. */
async function withOutbound<T>(policy: OutboundPolicy, fn: (outbound: Outbound) => Promise<T>): Promise<T> {
  const outbound = createOutbound(policy);
  try {
    return await fn(outbound);
  } finally {
    await outbound.close();
  }
}

function outboundError(kind: OutboundError['kind'], message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof OutboundError, `expected an OutboundError, got ${String(error)}`);
    assert.deepEqual({ name: error.name, kind: error.kind, message: error.message }, { name: 'OutboundError', kind, message });
    return true;
  };
}

const strict: OutboundPolicy = { allowPrivateTargets: false };
const open: OutboundPolicy = { allowPrivateTargets: true };

describe('address policy', () => {
  it('refuses every non-public literal address before connecting, with the reason', async () => {
    const cases: [string, string][] = [
      ['127.0.0.1', '127.0.0.1: loopback'],
      ['127.1.2.3', '127.1.2.3: loopback'],
      ['10.1.2.3', '10.1.2.3: private'],
      ['172.16.0.1', '172.16.0.1: private'],
      ['172.31.255.255', '172.31.255.255: private'],
      ['192.168.1.1', '192.168.1.1: private'],
      ['100.64.0.1', '100.64.0.1: shared (carrier-grade NAT)'],
      ['169.254.169.254', '169.254.169.254: link-local'],
      ['0.0.0.0', '0.0.0.0: unspecified'],
      ['224.0.0.1', '224.0.0.1: multicast'],
      ['255.255.255.255', '255.255.255.255: broadcast'],
      ['2130706433', '127.0.0.1: loopback'], // the URL parser reads a bare number as IPv4
      ['[::1]', '::1: loopback'],
      ['[::]', '::: unspecified'],
      ['[fc00::1]', 'fc00::1: unique local (private)'],
      ['[fd12:3456::1]', 'fd12:3456::1: unique local (private)'],
      ['[fe80::1]', 'fe80::1: link-local'],
      ['[ff02::1]', 'ff02::1: multicast'],
      ['[::ffff:127.0.0.1]', '::ffff:7f00:1: loopback (IPv4-mapped)'],
      ['[::ffff:10.0.0.1]', '::ffff:a00:1: private (IPv4-mapped)'],
      ['[::ffff:169.254.169.254]', '::ffff:a9fe:a9fe: link-local (IPv4-mapped)'],
      ['[64:ff9b::a00:1]', '64:ff9b::a00:1: private (NAT64)'],
      ['[2002:7f00:1::]', '2002:7f00:1::: loopback (6to4)'],
    ];
    await withOutbound(strict, async (outbound) => {
      for (const [host, refusal] of cases) {
        await assert.rejects(
          outbound.request({ url: `http://${host}:${port}/ok` }),
          outboundError(
            'forbidden_address',
            `refused to connect to ${refusal} address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true`,
          ),
          host,
        );
      }
    });
    assert.equal(hits, 0);
  });

  it('refuses a host name that resolves to loopback, checking the address DNS gives and connecting to no other', async () => {
    const before = hits;
    await withOutbound(strict, async (outbound) => {
      await assert.rejects(outbound.request({ url: `http://localhost:${port}/ok` }), (error: unknown) => {
        assert.ok(error instanceof OutboundError);
        assert.equal(error.kind, 'forbidden_address');
        // localhost may resolve to 127.0.0.1 or ::1 first, depending on the machine.
        assert.match(
          error.message,
          /^refused to connect to localhost \((127\.0\.0\.1|::1)\): loopback address; to reach it from the sandbox, run in dev mode \(npm run dev\); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true$/,
        );
        return true;
      });
    });
    assert.equal(hits, before, 'the server was reached');
  });

  it('reaches loopback when private targets are allowed, by address and by name', async () => {
    await withOutbound(open, async (outbound) => {
      const byAddress = await outbound.request({ url: `${base}/ok` });
      assert.deepEqual(
        { ...byAddress, headers: undefined },
        { status: 200, headers: undefined, body: Buffer.from('hello'), size: 5, url: `${base}/ok`, truncated: false },
      );
      const byName = await outbound.request({ url: `http://localhost:${port}/ok` }).catch((error: OutboundError) => error);
      // localhost may resolve to ::1 only, where this server does not listen: then the refusal is the network's, not the policy's.
      if (byName instanceof OutboundError)
        assert.deepEqual([byName.kind, byName.message], ['network', `connection refused by localhost:${port}`]);
      else assert.equal(byName.body.toString(), 'hello');
    });
  });

  it('lets through single addresses named in allowAddresses, and only those', async () => {
    await withOutbound({ allowPrivateTargets: false, allowAddresses: ['127.0.0.1'] }, async (outbound) => {
      assert.equal((await outbound.request({ url: `${base}/ok` })).status, 200);
      await assert.rejects(
        outbound.request({ url: `http://127.0.0.2:${port}/ok` }),
        outboundError(
          'forbidden_address',
          'refused to connect to 127.0.0.2: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true',
        ),
      );
    });
  });

  it('classifies public addresses as public, including IPv6 forms embedding a public IPv4 address', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '172.32.0.1',
      '100.128.0.1',
      '2001:4860:4860::8888',
      '2a00:1450::1',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::',
    ]) {
      assert.equal(forbiddenReason(address), undefined, address);
    }
    assert.equal(forbiddenReason('fe80::1%eth0'), 'link-local');
    assert.equal(forbiddenReason('example.com'), 'not an IP address');
  });
});

describe('URL checks', () => {
  it('accepts only absolute http(s) URLs without credentials', async () => {
    await withOutbound(open, async (outbound) => {
      const cases: [string, string][] = [
        ['not a url', 'invalid URL: not an absolute URL'],
        ['/relative/path', 'invalid URL: not an absolute URL'],
        ['ftp://127.0.0.1/file', 'invalid URL: scheme ftp is not allowed, only http and https'],
        ['file:///etc/passwd', 'invalid URL: scheme file is not allowed, only http and https'],
        [`http://user:secret@127.0.0.1:${port}/ok`, 'invalid URL: credentials in URLs are not supported'],
      ];
      for (const [url, message] of cases) await assert.rejects(outbound.request({ url }), outboundError('invalid_url', message), url);
    });
    assert.equal(checkTargetUrl('https://receiver.example/hook?x=1', strict).toString(), 'https://receiver.example/hook?x=1');
    assert.throws(
      () => checkTargetUrl('http://10.0.0.8/hook', strict),
      outboundError(
        'forbidden_address',
        'refused to connect to 10.0.0.8: private address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true',
      ),
    );
  });
});

describe('limits', () => {
  it('gives up on a server that never answers, after the headers timeout', async () => {
    await withOutbound({ ...open, headersTimeoutMs: 200 }, async (outbound) => {
      await assert.rejects(
        outbound.request({ url: `${base}/hang` }),
        outboundError('timeout', `no response from 127.0.0.1:${port} within 0.2 s`),
      );
    });
  });

  it('gives up on a body that stops arriving, after the body timeout', async () => {
    await withOutbound({ ...open, bodyTimeoutMs: 200 }, async (outbound) => {
      await assert.rejects(
        outbound.request({ url: `${base}/stall` }),
        outboundError('timeout', `response body from 127.0.0.1:${port} stalled for 0.2 s`),
      );
    });
  });

  it('bounds the whole exchange with the total timeout', async () => {
    await withOutbound({ ...open, totalTimeoutMs: 300 }, async (outbound) => {
      await assert.rejects(
        outbound.request({ url: `${base}/hang` }),
        outboundError('timeout', `no complete response from 127.0.0.1:${port} within 0.3 s`),
      );
    });
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    await withOutbound(open, async (outbound) => {
      const call = outbound.request({ url: `${base}/hang`, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(call, outboundError('aborted', `call to 127.0.0.1:${port} aborted`));
    });
  });

  it('aborts a body larger than maxBytes, declared or streamed, and cuts it when asked to', async () => {
    await withOutbound({ ...open, maxBytes: 1000 }, async (outbound) => {
      const tooLarge = outboundError('too_large', `response from 127.0.0.1:${port} is larger than 1000 bytes`);
      await assert.rejects(outbound.request({ url: `${base}/big?n=1001` }), tooLarge);
      await assert.rejects(outbound.request({ url: `${base}/chunked?n=5000` }), tooLarge);
      const exact = await outbound.request({ url: `${base}/big?n=1000` });
      assert.deepEqual([exact.body.length, exact.truncated], [1000, false]);
      const cut = await outbound.request({ url: `${base}/chunked?n=5000`, maxBytes: 1200, oversize: 'truncate' });
      assert.deepEqual([cut.status, cut.body, cut.truncated], [200, Buffer.alloc(1200, 'b'), true]);
    });
  });

  it('counts a body without keeping it when asked to, within the same maxBytes', async () => {
    await withOutbound({ ...open, maxBytes: 1000 }, async (outbound) => {
      const counted = await outbound.request({ url: `${base}/chunked?n=900`, keepBody: false });
      assert.deepEqual([counted.status, counted.body, counted.size, counted.truncated], [200, Buffer.alloc(0), 900, false]);
      await assert.rejects(
        outbound.request({ url: `${base}/chunked?n=5000`, keepBody: false }),
        outboundError('too_large', `response from 127.0.0.1:${port} is larger than 1000 bytes`),
      );
    });
  });

  it('reports a refused connection as a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await withOutbound(open, async (outbound) => {
      await assert.rejects(
        outbound.request({ url: `http://127.0.0.1:${closedPort}/` }),
        outboundError('network', `connection refused by 127.0.0.1:${closedPort}`),
      );
    });
  });
});

describe('redirects', () => {
  it('follows up to maxRedirects and refuses one more', async () => {
    await withOutbound({ ...open, maxRedirects: 3 }, async (outbound) => {
      const arrived = await outbound.request({ url: `${base}/chain?n=3` });
      assert.deepEqual([arrived.status, arrived.body.toString(), arrived.url], [200, 'arrived', `${base}/chain?n=0`]);
      await assert.rejects(
        outbound.request({ url: `${base}/chain?n=4` }),
        outboundError('too_many_redirects', `more than 3 redirects, the last from 127.0.0.1:${port}`),
      );
    });
  });

  it('checks every hop: a redirect to a forbidden address or scheme is refused', async () => {
    const before = hits;
    await withOutbound({ allowPrivateTargets: false, allowAddresses: ['127.0.0.1'] }, async (outbound) => {
      const via = (location: string) => `${base}/to?location=${encodeURIComponent(location)}`;
      await assert.rejects(
        outbound.request({ url: via('http://169.254.169.254/latest/meta-data/') }),
        outboundError(
          'forbidden_address',
          'refused to connect to 169.254.169.254: link-local address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true',
        ),
      );
      await assert.rejects(
        outbound.request({ url: via(`http://127.0.0.2:${port}/ok`) }),
        outboundError(
          'forbidden_address',
          'refused to connect to 127.0.0.2: loopback address; to reach it from the sandbox, run in dev mode (npm run dev); a deployment that needs it sets ALLOW_PRIVATE_TARGETS=true',
        ),
      );
      await assert.rejects(
        outbound.request({ url: via('file:///etc/passwd') }),
        outboundError('invalid_url', 'invalid URL: scheme file is not allowed, only http and https'),
      );
    });
    assert.equal(hits, before + 3, 'only the first hops reached the server');
  });

  it('turns a POST into a GET on 303, keeps it on 307, and drops credentials on a change of origin', async () => {
    await withOutbound(open, async (outbound) => {
      const post = { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer secret' }, body: '{"a":1}' };
      const seeOther = await outbound.request({ ...post, url: `${base}/to?status=303&location=/echo` });
      const see = JSON.parse(seeOther.body.toString());
      assert.deepEqual([see.method, see.body, see.headers.authorization], ['GET', '', 'Bearer secret']);

      const temporary = await outbound.request({ ...post, url: `${base}/to?status=307&location=/echo` });
      const kept = JSON.parse(temporary.body.toString());
      assert.deepEqual(
        [kept.method, kept.body, kept.headers.authorization, kept.headers['content-type']],
        ['POST', '{"a":1}', 'Bearer secret', 'application/json'],
      );

      // Another origin: Authorization stays behind, the method, body and content type go on.
      const moved = await outbound.request({ ...post, url: `${base}/to?status=307&location=${encodeURIComponent(`${otherBase}/echo`)}` });
      const elsewhere = JSON.parse(moved.body.toString());
      assert.deepEqual(
        [moved.url, elsewhere.method, elsewhere.body, elsewhere.headers.authorization, elsewhere.headers['content-type']],
        [`${otherBase}/echo`, 'POST', '{"a":1}', undefined, 'application/json'],
      );
    });
  });

  it('returns a 3xx as it is when redirects are not to be followed', async () => {
    await withOutbound(open, async (outbound) => {
      const response = await outbound.request({ url: `${base}/to?status=301&location=/ok`, followRedirects: false });
      assert.deepEqual([response.status, response.headers.location], [301, '/ok']);
    });
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds or as an HTTP date, capped at one hour', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120);
    assert.equal(parseRetryAfter(['7'], now), 7);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('86400', now), 3600);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it('waits the scheduled time plus up to 25% jitter, never less than Retry-After, and stops after the schedule', () => {
    const schedule = [5, 300];
    assert.equal(retryDelaySeconds(schedule, 0, undefined, 0), 5);
    assert.equal(retryDelaySeconds(schedule, 0, undefined, 1), 6.25);
    assert.equal(retryDelaySeconds(schedule, 1, undefined, 0.5), 337.5);
    assert.equal(retryDelaySeconds(schedule, 0, 60, 1), 60);
    assert.equal(retryDelaySeconds(schedule, 1, 60, 0), 300);
    assert.equal(retryDelaySeconds(schedule, 2, 60, 0), undefined);
  });
});
