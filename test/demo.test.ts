/*
 * immogate demo against a running server in dev mode: every step answered as expected, the three
 * outcomes of the example classifieds, the lead at the demo's own receiver; colour only when asked.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { runDemo } from '../src/demo.js';
import { REPO_ROOT, freePort, getToken, makeClient, type TestServer, useServer } from './helpers.js';
import { childEnv, runCli } from './processes.js';

const fixture = useServer({ worker: true, config: { dev: true } });
let server: TestServer;

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

describe('immogate demo', () => {
  it('walks the three APIs with tokens minted for the sandbox client of the first start', async () => {
    const result = await runCli(['demo', '--url', server.base], { DATABASE_URL: fixture.database.url });
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.stdout.includes('\x1b['), false, 'no colour when stdout is no terminal');
    const steps = result.stdout.split('\n').filter((line) => line.startsWith('> '));
    assert.equal(steps.length, 18, result.stdout);
    for (const heading of [
      '== Classifieds ingestion API 4.0.2, sandbox (/sandbox/caas/v4) ==',
      '== Listing import API (German market) 1.0.7, sandbox (/sandbox/import-listings/v1) ==',
      '== Lead API 1.4.0, sandbox (/sandbox/seeker-leads/v1) ==',
      '  status CREATED: Accepted on SL',
      '  status CREATED_WITH_MEDIA_ERROR: Accepted on SL; 2 of 3 media could not be used',
      '  status CREATING_FAILED: Rejected on BD: 3 rules violated',
      '  POST /sandbox/caas/v4/classifieds',
    ]) {
      assert.ok(result.stdout.split('\n').includes(heading), `${heading}\n${result.stdout}`);
    }
    assert.match(
      result.stdout,
      /^ {4}http:\/\/samples\.immogate\.invalid\/missing\.jpg\?run=[0-9a-f]{6}: DOWNLOADING_FAILED \(the server answered 404\)$/m,
    );
    assert.match(result.stdout, /^ {2}the receiver got the lead [0-9a-f-]{36}$/m);
    assert.match(
      result.stdout,
      /^ {2}201 \{"requestId":"[0-9a-f-]{36}","listingId":"[0-9a-f-]{36}","externalListingId":"B-1001-[0-9a-f]{6}"/m,
    );
    // A second run on the same data works too: its estate ids and media URLs are its own. Without
    // --url, it walks the server that recorded its URL in the database (on a port other than 8080).
    const again = await runCli(['demo'], { DATABASE_URL: fixture.database.url });
    assert.equal(again.code, 0, again.stdout);
    assert.notEqual(new URL(server.base).port, '8080');
    assert.equal(again.stdout.split('\n').filter((line) => line.startsWith('> ')).length, 18, again.stdout);
  });

  it('in colour when asked, each status coloured by its outcome', async () => {
    const client = { clientId: '', secret: '' };
    Object.assign(client, await makeClient(server.pool, ['colour-agency'], ['caas:*', 'clim:*', 'leads:*'], ['sandbox']));
    let output = '';
    const failures = await runDemo({
      url: server.base,
      agency: 'colour-agency',
      token: (api) => getToken(server, client, { root: `/sandbox${api.root}`, intermediary: 'colour-agency' }),
      write: (text) => {
        output += text;
      },
      colour: true,
    });
    assert.equal(failures, 0, output);
    assert.ok(output.includes('\x1b[32m202\x1b[39m'), output);
    assert.ok(output.includes('\x1b[1m\x1b[35m== Lead API'), output);
  });

  it('with --client and --secret, through /oauth/token', async () => {
    const client = await makeClient(server.pool, ['secret-agency'], ['caas:*', 'clim:*', 'leads:*'], ['sandbox']);
    const result = await runCli(
      ['demo', '--url', server.base, '--agency', 'secret-agency', '--client', client.clientId, '--secret', client.secret],
      {
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      },
    );
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0, result.stdout);
  });

  it('npm run demo runs immogate demo, passing on its options', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile('npm', ['run', '--silent', 'demo', '--', '--url', down], { cwd: REPO_ROOT, env: childEnv({}) }, (error, _stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
      ),
    );
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `immogate: no immogate answers at ${down} (fetch failed): start one (immogate start --dev) or give its --url\n`,
    );
  });

  it('no server at --url: exit 1 with what to do', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    assert.deepEqual(await runCli(['demo', '--url', down], { DATABASE_URL: fixture.database.url }), {
      code: 1,
      stdout: '',
      stderr: `immogate: no immogate answers at ${down} (fetch failed): start one (immogate start --dev) or give its --url\n`,
    });
  });
});
