/*
 * The immogate command: clients and their report, errors and exit codes, migrate.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ALL_SCOPES } from '../src/platform/catalogue.js';
import { listClients } from '../src/platform/auth/clients.js';
import { verifySecret } from '../src/platform/auth/secrets.js';
import { listMigrations } from '../src/platform/db/migrate.js';
import { createPool } from '../src/platform/db/pool.js';
import { ConsoleSession } from './fixtures/console.js';
import {
  assertProblem,
  createTestDatabase,
  freePort,
  http,
  makeClient,
  type TestClient,
  type TestDatabase,
  type TestServer,
  REPO_ROOT,
  startTestServer,
  useServer,
} from './helpers.js';
import { childEnv, runCli, temporaryDataDir, type CliResult } from './processes.js';

const STACK_TRACE = /^\s+at /m;

const fixture = useServer();
let server: TestServer;

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { DATABASE_URL: fixture.database.url, ...env });
}

/** Runs a command that must succeed and print JSON on stdout and nothing on stderr. */
async function cliJson(args: string[]): Promise<unknown> {
  const result = await cli([...args, '--json']);
  assert.equal(result.stderr, '');
  assert.equal(result.code, 0);
  return JSON.parse(result.stdout);
}

function tokenRequest(client: TestClient, overrides: Record<string, unknown> = {}) {
  return http('POST', `${server.base}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.secret,
      audience: `${server.base}/caas/v4`,
      intermediary_id: 'agency-a',
      ...overrides,
    },
  });
}

const INVALID_CLIENT = { error: 'invalid_client', error_description: 'client authentication failed' };

before(async () => {
  await fixture.ready();
  server = fixture.server;
});

describe('immogate clients', () => {
  let created: TestClient;
  let plain: TestClient;

  it('create --json prints the client with its clientSecret, once, in the names of the admin API', async () => {
    const output = (await cliJson([
      'clients',
      'create',
      '--name',
      'Acme CRM',
      '--intermediary',
      'agency-a',
      '--intermediary',
      'agency-b',
      '--scopes',
      'caas:* clim:listings:read',
      '--environments',
      'production,sandbox',
    ])) as Record<string, string>;
    assert.match(output.clientId as string, /^ig_[0-9a-f]{24}$/);
    assert.match(output.clientSecret as string, /^[A-Za-z0-9_-]{43}$/);
    assert.match(output.createdAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(output, {
      clientId: output.clientId,
      name: 'Acme CRM',
      scopes: ['caas:*', 'clim:listings:read'],
      intermediaries: ['agency-a', 'agency-b'],
      environments: ['sandbox', 'production'],
      createdAt: output.createdAt,
      secretRotatedAt: null,
      disabledAt: null,
      clientSecret: output.clientSecret,
    });
    created = { clientId: output.clientId as string, secret: output.clientSecret as string };
  });

  it('stores only a scrypt hash of the secret', async () => {
    const { rows } = await server.pool.query('SELECT * FROM clients WHERE client_id = $1', [created.clientId]);
    assert.equal(rows.length, 1);
    const row = rows[0] as Record<string, unknown>;
    assert.match(row.secret_hash as string, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal(JSON.stringify(row).includes(created.secret), false);
    assert.equal(await verifySecret(created.secret, row.secret_hash as string), true);
    assert.deepEqual(
      { ...row, secret_hash: undefined, created_at: undefined },
      {
        client_id: created.clientId,
        name: 'Acme CRM',
        secret_hash: undefined,
        scopes: ['caas:*', 'clim:listings:read'],
        intermediaries: ['agency-a', 'agency-b'],
        environments: ['sandbox', 'production'],
        created_at: undefined,
        secret_rotated_at: null,
        disabled_at: null,
        token_generation: 0,
      },
    );
  });

  it('makes a client whose secret works at the token endpoint, for each of its intermediaries and scopes', async () => {
    const caas = await tokenRequest(created);
    assert.equal(caas.status, 200);
    assert.equal((caas.body as { scope: string }).scope, 'caas:*');
    const clim = await tokenRequest(created, { audience: `${server.base}/sandbox/import-listings/v1`, intermediary_id: 'agency-b' });
    assert.equal(clim.status, 200);
    assert.equal((clim.body as { scope: string }).scope, 'clim:listings:read');
    const leads = await tokenRequest(created, { audience: `${server.base}/seeker-leads/v1` });
    assert.equal(leads.status, 400);
    assert.deepEqual(leads.body, {
      error: 'invalid_scope',
      error_description: `the client holds no scope of ${server.base}/seeker-leads/v1`,
    });
  });

  it('create without --json prints a readable record and the secret; the client is of the sandbox only', async () => {
    const result = await cli(['clients', 'create', '--name', 'Plain', '--intermediary', 'agency-p']);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const match = /^client_id\s+(ig_[0-9a-f]{24})$/m.exec(result.stdout);
    assert.ok(match, result.stdout);
    const [client] = (await listClients(server.pool)).filter((c) => c.clientId === match[1]);
    assert.ok(client);
    const secret = /^client_secret {2}(\S+)$/m.exec(result.stdout)?.[1] as string;
    assert.equal(
      result.stdout,
      [
        `client_id       ${client.clientId}`,
        'name            Plain',
        'intermediaries  agency-p',
        'scopes          caas:* clim:* leads:*',
        'environments    sandbox',
        `created         ${client.createdAt}`,
        'status          active',
        `client_secret  ${secret}`,
        '',
        'Store the secret now: only its hash is kept.',
        '',
      ].join('\n'),
    );
    const token = await tokenRequest(
      { clientId: client.clientId, secret },
      { intermediary_id: 'agency-p', audience: `${server.base}/sandbox/caas/v4` },
    );
    assert.equal(token.status, 200);
    const production = await tokenRequest({ clientId: client.clientId, secret }, { intermediary_id: 'agency-p' });
    assert.equal(production.status, 400);
    assert.deepEqual(production.body, {
      error: 'invalid_target',
      error_description: 'this client may get tokens for the sandbox environment only, not production',
    });
    plain = { clientId: client.clientId, secret };
  });

  it('update --environments lets a reviewed client into production', async () => {
    const output = (await cliJson(['clients', 'update', plain.clientId, '--environments', 'sandbox,production'])) as Record<
      string,
      unknown
    >;
    assert.deepEqual(output.environments, ['sandbox', 'production']);
    assert.equal((await tokenRequest(plain, { intermediary_id: 'agency-p' })).status, 200);
    const back = await cli(['clients', 'update', plain.clientId, '--environments', 'sandbox']);
    assert.equal(back.code, 0);
    assert.match(back.stdout, /^environments {4}sandbox$/m);
    assert.equal((await tokenRequest(plain, { intermediary_id: 'agency-p' })).status, 400);
    assert.deepEqual(await cli(['clients', 'update', plain.clientId, '--environments', 'staging']), {
      code: 1,
      stdout: '',
      stderr: 'immogate: unknown environment "staging"; known environments: production, sandbox\n',
    });
    assert.deepEqual(await cli(['clients', 'update', 'ig_nope', '--environments', 'sandbox']), {
      code: 1,
      stdout: '',
      stderr: 'immogate: no client ig_nope\n',
    });
  });

  it('list prints every client as JSON', async () => {
    const output = (await cliJson(['clients', 'list'])) as Array<Record<string, unknown>>;
    assert.deepEqual(output, await listClients(server.pool));
    assert.deepEqual(
      output.find((client) => client.clientId === created.clientId),
      {
        clientId: created.clientId,
        name: 'Acme CRM',
        scopes: ['caas:*', 'clim:listings:read'],
        intermediaries: ['agency-a', 'agency-b'],
        environments: ['sandbox', 'production'],
        createdAt: output.find((client) => client.clientId === created.clientId)?.createdAt,
        secretRotatedAt: null,
        disabledAt: null,
      },
    );
    assert.equal(JSON.stringify(output).includes(created.secret), false);
  });

  it('list without --json prints a table', async () => {
    const result = await cli(['clients', 'list']);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const lines = result.stdout.trimEnd().split('\n');
    const clients = await listClients(server.pool);
    assert.equal(lines.length, clients.length + 1);
    assert.match(lines[0] as string, /^CLIENT_ID\s+NAME\s+INTERMEDIARIES\s+SCOPES\s+ENVIRONMENTS\s+STATUS$/);
    const row = lines.find((line) => line.startsWith(created.clientId));
    assert.match(
      row as string,
      new RegExp(`^${created.clientId}\\s+Acme CRM\\s+agency-a,agency-b\\s+caas:\\* clim:listings:read\\s+sandbox,production\\s+active$`),
    );
  });

  it('rotate-secret prints a new secret; the old one stops working', async () => {
    const output = (await cliJson(['clients', 'rotate-secret', created.clientId])) as Record<string, string>;
    assert.match(output.clientSecret as string, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(output, {
      clientId: created.clientId,
      clientSecret: output.clientSecret,
      tokensRevoked: false,
      consoleSessionsEnded: 0,
    });
    assert.notEqual(output.clientSecret, created.secret);

    const old = await tokenRequest(created);
    assert.equal(old.status, 401);
    assert.deepEqual(old.body, INVALID_CLIENT);
    const rotated = { clientId: created.clientId, secret: output.clientSecret as string };
    const fresh = await tokenRequest(rotated);
    assert.equal(fresh.status, 200);
    const [client] = (await listClients(server.pool)).filter((c) => c.clientId === created.clientId);
    assert.notEqual(client?.secretRotatedAt, null);
    created = rotated;
  });

  it('rotate-secret without --json says the old secret no longer works, and what becomes of the tokens', async () => {
    const result = await cli(['clients', 'rotate-secret', created.clientId]);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const secret = /^client_secret {2}(\S+)$/m.exec(result.stdout)?.[1] as string;
    assert.equal(
      result.stdout,
      `client_secret  ${secret}\n\nThe old secret no longer works; 0 console session(s) ended.\n` +
        'Tokens already issued work until they expire (24 h at most); --revoke-tokens refuses them.\n',
    );
    created = { clientId: created.clientId, secret };
  });

  it('rotate-secret --revoke-tokens: the tokens issued before are refused, one issued after works; the console sessions end', async () => {
    const before = (await tokenRequest(created)).body as { access_token: string };
    const call = (token: string) => http('GET', `${server.base}/caas/v4/classifieds`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await call(before.access_token)).status, 200);
    const session = await ConsoleSession.asClient(server.base, created, 'agency-a');

    const output = (await cliJson(['clients', 'rotate-secret', created.clientId, '--revoke-tokens'])) as Record<string, unknown>;
    assert.deepEqual(output, {
      clientId: created.clientId,
      clientSecret: output.clientSecret,
      tokensRevoked: true,
      consoleSessionsEnded: 1,
    });
    created = { clientId: created.clientId, secret: output.clientSecret as string };
    const after = (await tokenRequest(created)).body as { access_token: string };
    assert.equal((await call(after.access_token)).status, 200);
    // The server had the client's generation in memory: the newer token made it read it again.
    assertProblem(
      await call(before.access_token),
      401,
      'Unauthorized',
      "The access token is not valid: it was revoked when its client's secret was rotated",
    );
    assertProblem(await session.request('GET', '/session'), 401, 'Unauthorized', 'Sign in to the console first');

    const human = await cli(['clients', 'rotate-secret', created.clientId, '--revoke-tokens']);
    assert.equal(human.code, 0, human.stderr);
    const secret = /^client_secret {2}(\S+)$/m.exec(human.stdout)?.[1] as string;
    assert.equal(
      human.stdout,
      `client_secret  ${secret}\n\nThe old secret no longer works; 0 console session(s) ended.\nEvery token issued before is refused within 10 seconds.\n`,
    );
    created = { clientId: created.clientId, secret };
  });

  it('rotate-secret --help names --revoke-tokens', async () => {
    const result = await cli(['clients', 'rotate-secret', '--help']);
    assert.equal(result.code, 0);
    assert.equal(
      result.stdout,
      [
        'Usage: immogate clients rotate-secret [options] <clientId>',
        '',
        'replace the secret of a client and end its console sessions; prints the new',
        "secret once. The client's tokens live on until they expire unless",
        '--revoke-tokens',
        '',
        'Options:',
        '  --revoke-tokens  also refuse every token the client was issued before, on',
        '                   every server within 10 seconds (default: false)',
        '  -h, --help       display help for command',
        '',
      ].join('\n'),
    );
  });

  it('disable refuses the client at the token endpoint', async () => {
    const before = await tokenRequest(created);
    assert.equal(before.status, 200);
    const output = (await cliJson(['clients', 'disable', created.clientId])) as Record<string, unknown>;
    assert.match(output.disabledAt as string, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(output, {
      clientId: created.clientId,
      name: 'Acme CRM',
      scopes: ['caas:*', 'clim:listings:read'],
      intermediaries: ['agency-a', 'agency-b'],
      environments: ['sandbox', 'production'],
      createdAt: output.createdAt,
      secretRotatedAt: output.secretRotatedAt,
      disabledAt: output.disabledAt,
    });
    const after = await tokenRequest(created);
    assert.equal(after.status, 401);
    assert.deepEqual(after.body, INVALID_CLIENT);

    const again = await cli(['clients', 'disable', created.clientId]);
    assert.deepEqual(again, { code: 0, stdout: `disabled ${created.clientId}\n`, stderr: '' });
    const list = await cli(['clients', 'list']);
    assert.match(list.stdout, new RegExp(`^${created.clientId}\\s.*\\sdisabled$`, 'm'));
  });
});

describe('immogate clients report', () => {
  let chatty: TestClient;
  let polite: TestClient;

  before(async () => {
    chatty = await makeClient(server.pool, ['agency-c'], ['caas:*', 'leads:*']);
    polite = await makeClient(server.pool, ['agency-d', 'agency-e'], ['caas:*']);
    await server.pool.query("UPDATE clients SET name = 'chatty' WHERE client_id = $1", [chatty.clientId]);
    await server.pool.query("UPDATE clients SET name = 'polite' WHERE client_id = $1", [polite.clientId]);
    // A token per call for one audience and intermediary: six in a day, above the default threshold of five.
    for (let i = 0; i < 6; i += 1) assert.equal((await tokenRequest(chatty, { intermediary_id: 'agency-c' })).status, 200);
    // Two wrong secrets: the report counts them.
    for (let i = 0; i < 2; i += 1)
      assert.equal((await tokenRequest({ ...chatty, secret: 'wrong' }, { intermediary_id: 'agency-c' })).status, 401);
    assert.equal((await tokenRequest(chatty, { intermediary_id: 'agency-c', audience: `${server.base}/seeker-leads/v1` })).status, 200);
    // A cached token per audience and intermediary.
    assert.equal((await tokenRequest(polite, { intermediary_id: 'agency-d' })).status, 200);
    assert.equal((await tokenRequest(polite, { intermediary_id: 'agency-e' })).status, 200);
    assert.equal((await tokenRequest(polite, { intermediary_id: 'agency-e', audience: `${server.base}/sandbox/caas/v4` })).status, 200);
  });

  /** The report computed here from the raw issuance and failure records, to compare the command's with. */
  async function expectedReport(threshold: number) {
    const failures = await server.pool.query<{ client_id: string; day: string; failures: number }>(
      "SELECT client_id, to_char(day, 'YYYY-MM-DD') AS day, failures FROM auth_failure_days",
    );
    const failed = (clientId: string, day: string) =>
      failures.rows.find((row) => row.client_id === clientId && row.day === day)?.failures ?? 0;
    const { rows } = await server.pool.query<{ client_id: string; name: string; day: string; audience: string; intermediary_id: string }>(
      `SELECT t.client_id, c.name, to_char((t.issued_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, t.audience, t.intermediary_id
       FROM token_issuance t JOIN clients c USING (client_id)`,
    );
    const groups = new Map<string, { clientId: string; name: string; day: string; perTarget: Map<string, number> }>();
    for (const row of rows) {
      const key = `${row.day} ${row.client_id}`;
      const group = groups.get(key) ?? { clientId: row.client_id, name: row.name, day: row.day, perTarget: new Map() };
      const target = `${row.audience} ${row.intermediary_id}`;
      group.perTarget.set(target, (group.perTarget.get(target) ?? 0) + 1);
      groups.set(key, group);
    }
    return [...groups.values()]
      .sort((a, b) => (a.day === b.day ? (a.clientId < b.clientId ? -1 : 1) : a.day < b.day ? 1 : -1))
      .map((group) => {
        const counts = [...group.perTarget.values()];
        const maxPerTarget = Math.max(...counts);
        return {
          clientId: group.clientId,
          name: group.name,
          day: group.day,
          tokens: counts.reduce((sum, n) => sum + n, 0),
          targets: counts.length,
          maxPerTarget,
          reusesTokens: maxPerTarget <= threshold,
          failedAuthentications: failed(group.clientId, group.day),
        };
      });
  }

  it('--json lists tokens per client per day and flags a client that does not reuse its tokens', async () => {
    const rows = (await cliJson(['clients', 'report'])) as Array<Record<string, unknown>>;
    assert.deepEqual(rows, await expectedReport(5));
    const today = new Date().toISOString().slice(0, 10);
    const chattyRows = rows.filter((row) => row.clientId === chatty.clientId);
    const politeRows = rows.filter((row) => row.clientId === polite.clientId);
    // Issued within the last seconds: all on one UTC day unless that day just ended.
    if (chattyRows.length === 1 && chattyRows[0]?.day === today) {
      assert.deepEqual(chattyRows, [
        {
          clientId: chatty.clientId,
          name: 'chatty',
          day: today,
          tokens: 7,
          targets: 2,
          maxPerTarget: 6,
          reusesTokens: false,
          failedAuthentications: 2,
        },
      ]);
    }
    if (politeRows.length === 1 && politeRows[0]?.day === today) {
      assert.deepEqual(politeRows, [
        {
          clientId: polite.clientId,
          name: 'polite',
          day: today,
          tokens: 3,
          targets: 3,
          maxPerTarget: 1,
          reusesTokens: true,
          failedAuthentications: 0,
        },
      ]);
    }
  });

  it('--threshold moves the line', async () => {
    const rows = (await cliJson(['clients', 'report', '--threshold', '6'])) as Array<Record<string, unknown>>;
    assert.deepEqual(rows, await expectedReport(6));
    assert.equal(rows.filter((row) => row.reusesTokens === false).length, 0);
  });

  it('without --json prints a table that names the offender', async () => {
    const result = await cli(['clients', 'report']);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const lines = result.stdout.trimEnd().split('\n');
    const expected = await expectedReport(5);
    assert.equal(lines.length, expected.length + 1);
    assert.match(lines[0] as string, /^DAY\s+CLIENT_ID\s+NAME\s+TOKENS\s+TARGETS\s+MAX\/TARGET\s+FAILED AUTH\s+TOKEN REUSE$/);
    for (const [index, row] of expected.entries()) {
      const verdict = row.reusesTokens ? 'ok' : 'NOT REUSED: fetches a token per call\\?';
      assert.match(
        lines[index + 1] as string,
        new RegExp(
          `^${row.day}\\s+${row.clientId}\\s+${row.name}\\s+${row.tokens}\\s+${row.targets}\\s+${row.maxPerTarget}\\s+${row.failedAuthentications}\\s+${verdict}$`,
        ),
      );
    }
  });

  it('says so when no token was issued in the period', async () => {
    await server.pool.query("UPDATE token_issuance SET issued_at = issued_at - interval '30 days'");
    await server.pool.query('UPDATE auth_failure_days SET day = day - 30');
    const result = await cli(['clients', 'report', '--days', '3']);
    assert.deepEqual(result, { code: 0, stdout: 'no tokens issued nor authentications failed in the last 3 day(s)\n', stderr: '' });
    assert.deepEqual(await cliJson(['clients', 'report', '--days', '3']), []);
  });
});

describe('immogate without a command, --version', () => {
  it('a bare immogate prints the help on stdout and exits 0: nothing is started', async () => {
    const result = await cli([]);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
    assert.match(result.stdout, /^Usage: immogate \[options\] \[command\]\n/);
    assert.match(result.stdout, /\n {2}start \[options\] +run the HTTP server and the job worker/);
  });

  it('--version and -V print the version of the package', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V']) {
      assert.deepEqual(await cli([flag]), { code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    }
  });

  it('the command npm links (package.json bin) is executable after a clean build, runs as is, and is packed', async () => {
    // This runs after npm test's clean build, which writes dist/ anew: the bin must be no file of dist/.
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const bin = path.join(REPO_ROOT, manifest.bin.immogate);
    assert.equal(path.relative(REPO_ROOT, bin).split(path.sep)[0], 'bin');
    assert.equal(fs.statSync(bin).mode & 0o111, 0o111);
    const version = await new Promise<CliResult>((resolve) =>
      execFile(bin, ['--version'], { env: childEnv({}) }, (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr })),
    );
    assert.deepEqual(version, { code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    assert.ok(manifest.files.includes('bin'), 'the bin is in the package');
  });
});

describe('immogate errors', () => {
  const cases: Array<[string, string[], number, string]> = [
    [
      'an unknown scope',
      ['clients', 'create', '--name', 'x', '--intermediary', 'a', '--scopes', 'caas:* caas:everything'],
      1,
      `immogate: unknown scope "caas:everything"; known scopes: ${ALL_SCOPES.join(' ')}\n`,
    ],
    [
      'a scope in the wrong case',
      ['clients', 'create', '--name', 'x', '--intermediary', 'a', '--scopes', 'CAAS:*'],
      1,
      `immogate: unknown scope "CAAS:*"; known scopes: ${ALL_SCOPES.join(' ')}\n`,
    ],
    [
      'an empty scope list',
      ['clients', 'create', '--name', 'x', '--intermediary', 'a', '--scopes', ' '],
      1,
      'immogate: --scopes must name at least one scope\n',
    ],
    ['a missing --intermediary', ['clients', 'create', '--name', 'x'], 1, 'immogate: at least one --intermediary is required\n'],
    [
      'a malformed intermediary',
      ['clients', 'create', '--name', 'x', '--intermediary', 'a b'],
      1,
      'immogate: intermediary "a b" must be 1-128 characters of letters, digits, . _ : -\n',
    ],
    ['an empty name', ['clients', 'create', '--name', ' ', '--intermediary', 'a'], 1, 'immogate: --name must not be empty\n'],
    ['an unknown client to rotate', ['clients', 'rotate-secret', 'ig_nope'], 1, 'immogate: no client ig_nope\n'],
    ['an unknown client to disable', ['clients', 'disable', 'ig_nope'], 1, 'immogate: no client ig_nope\n'],
    ['a bad --days', ['clients', 'report', '--days', 'abc'], 1, 'immogate: --days must be a positive whole number, got "abc"\n'],
    [
      'a zero --threshold',
      ['clients', 'report', '--threshold', '0'],
      1,
      'immogate: --threshold must be a positive whole number, got "0"\n',
    ],
  ];
  for (const [name, args, code, stderr] of cases) {
    it(`${name}: exit ${code}, a message on stderr, nothing on stdout`, async () => {
      const before = (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM clients')).rows[0]?.n;
      assert.deepEqual(await cli(args), { code, stdout: '', stderr });
      assert.deepEqual(await cli([...args, '--json']), { code, stdout: '', stderr });
      const after = (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM clients')).rows[0]?.n;
      assert.equal(after, before);
    });
  }

  const usage: Array<[string, string[], string]> = [
    ['an unknown command', ['frobnicate'], "error: unknown command 'frobnicate'\n"],
    ['an unknown clients command', ['clients', 'frobnicate'], "error: unknown command 'frobnicate'\n"],
    ['a missing client id', ['clients', 'disable'], "error: missing required argument 'clientId'\n"],
    ['a missing --name', ['clients', 'create', '--intermediary', 'a'], "error: required option '--name <name>' not specified\n"],
    ['an unknown option', ['clients', 'list', '--verbose'], "error: unknown option '--verbose'\n"],
  ];
  for (const [name, args, message] of usage) {
    it(`${name}: exit 2 with the error and the usage on stderr`, async () => {
      const result = await cli(args);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.startsWith(`${message}\nUsage: immogate `), result.stderr);
      assert.doesNotMatch(result.stderr, STACK_TRACE);
    });
  }

  it('--help prints the commands and exits 0', async () => {
    const result = await cli(['--help']);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
    for (const command of ['start', 'server', 'worker', 'migrate', 'clients'])
      assert.match(result.stdout, new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('an unreachable DATABASE_URL is named', async () => {
    const port = await freePort();
    const result = await cli(['clients', 'list'], { DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/none` });
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: `immogate: DATABASE_URL: cannot connect to PostgreSQL at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    });
  });

  it('a PORT already in use is named', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await cli(['server'], { PORT: String(port) });
      assert.deepEqual(result, { code: 1, stdout: '', stderr: `immogate: PORT: port ${port} is already in use on 127.0.0.1\n` });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('immogate token', () => {
  let first: TestClient;
  const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;

  before(async () => {
    first = await makeClient(server.pool, ['agency-t'], ['caas:*', 'leads:read'], ['sandbox']);
  });

  async function call(root: string, token: string) {
    return (await http('GET', `${server.base}${root}`, { headers: { authorization: `Bearer ${token}` } })).status;
  }

  it('with --client and --secret asks /oauth/token and prints only the token', async () => {
    const result = await cli([
      'token',
      '--api',
      'caas',
      '--env',
      'sandbox',
      '--agency',
      'agency-t',
      '--client',
      first.clientId,
      '--secret',
      first.secret,
      '--url',
      server.base,
    ]);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^eyJ\S+\n$/);
    const token = result.stdout.trim();
    assert.match(token, JWT);
    assert.equal(await call('/sandbox/caas/v4/classifieds', token), 200);
    assert.equal(await call('/sandbox/seeker-leads/v1/leads?minDate=0&maxDate=1', token), 401);
  });

  it('--json prints the whole answer; --scope narrows it; --env defaults to sandbox', async () => {
    const result = await cli([
      'token',
      '--api',
      'leads',
      '--agency',
      'agency-t',
      '--client',
      first.clientId,
      '--secret',
      first.secret,
      '--scope',
      'leads:read',
      '--url',
      server.base,
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout);
    assert.match(answer.access_token, JWT);
    assert.deepEqual(answer, { access_token: answer.access_token, expires_in: 86400, token_type: 'Bearer', scope: 'leads:read' });
    assert.equal(await call('/sandbox/seeker-leads/v1/leads?minDate=0&maxDate=1', answer.access_token), 200);
  });

  const issued = async (clientId: string) =>
    (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM token_issuance WHERE client_id = $1', [clientId])).rows[0]?.n ??
    0;
  const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

  it('without --secret mints through the database for the only client that may get it, recording the issuance once', async () => {
    const before = await issued(first.clientId);
    const tokens: string[] = [];
    for (const args of [[], ['--client', first.clientId]]) {
      const result = await cli(['token', '--api', 'caas', '--agency', 'agency-t', '--url', server.base, ...args]);
      assert.equal(result.stderr, '');
      assert.equal(result.code, 0);
      assert.equal(await call('/sandbox/caas/v4/classifieds', result.stdout.trim()), 200);
      tokens.push(result.stdout.trim());
    }
    // The second is the first token signed again: one issuance, as a client that reuses its token.
    assert.equal(await issued(first.clientId), before + 1);
    assert.deepEqual(claims(tokens[1] ?? ''), claims(tokens[0] ?? ''));
  });

  it('reuses its token for the same client, API, environment, agency and scopes only, while valid for more than an hour and not revoked', async () => {
    const reviewed = await makeClient(server.pool, ['agency-r', 'agency-s'], ['caas:*', 'leads:*'], ['sandbox', 'production']);
    const mint = async (...args: string[]) => {
      const result = await cli([
        'token',
        '--api',
        'caas',
        '--agency',
        'agency-r',
        '--client',
        reviewed.clientId,
        '--url',
        server.base,
        '--json',
        ...args,
      ]);
      assert.equal(result.stderr, '');
      assert.equal(result.code, 0);
      const answer = JSON.parse(result.stdout) as { access_token: string; expires_in: number; scope: string };
      return { ...answer, jti: claims(answer.access_token).jti };
    };
    const original = await mint();
    assert.equal(original.expires_in, 86400);
    const again = await mint();
    assert.equal(again.jti, original.jti);
    assert.ok(again.expires_in <= 86400 && again.expires_in > 86300, String(again.expires_in));
    assert.deepEqual({ ...claims(again.access_token) }, claims(original.access_token));
    assert.equal(await issued(reviewed.clientId), 1);
    // Each other claim is another token.
    const others = [
      await mint('--env', 'production'),
      await mint('--agency', 'agency-s'),
      await mint('--scope', 'caas:classifieds:read'),
      await mint('--api', 'leads'),
      await mint('--url', `${server.base}/`.replace('127.0.0.1', 'localhost')),
    ];
    assert.equal(new Set([original.jti, ...others.map((other) => other.jti)]).size, 6);
    assert.equal(await issued(reviewed.clientId), 6);
    // An hour or less to live: a new one, which is then the one reused. Rounded down: ::bigint
    // rounds to the nearest second, up to half a second past an hour, which a CLI call within that
    // half second (120 ms of start-up) still found valid for more than an hour.
    await server.pool.query('UPDATE cli_tokens SET exp = floor(extract(epoch FROM now()))::bigint + 3600 WHERE jti = $1', [original.jti]);
    const fresh = await mint();
    assert.notEqual(fresh.jti, original.jti);
    assert.equal((await mint()).jti, fresh.jti);
    // Revoked by a rotation: a new one, of the new generation, which works.
    assert.equal((await cli(['clients', 'rotate-secret', reviewed.clientId, '--revoke-tokens'])).code, 0);
    const after = await mint();
    assert.notEqual(after.jti, fresh.jti);
    assert.equal(claims(after.access_token).token_generation, 1);
    assert.equal(await call('/sandbox/caas/v4/classifieds', after.access_token), 200);
    assert.equal(await issued(reviewed.clientId), 8);
    const report = (await cliJson(['clients', 'report'])) as { clientId: string; tokens: number; reusesTokens: boolean }[];
    assert.deepEqual(
      report.filter((row) => row.clientId === reviewed.clientId).map((row) => [row.tokens, row.reusesTokens]),
      [[8, true]],
    );
  });

  it('errors: exit 1, the reason on stderr, nothing on stdout', async () => {
    const port = await freePort();
    const cases: [string[], string][] = [
      [
        ['--client', first.clientId, '--secret', 'wrong'],
        `the token endpoint of ${server.base} answered 401 invalid_client: client authentication failed`,
      ],
      [['--secret', first.secret], '--secret needs --client'],
      [
        ['--client', first.clientId, '--env', 'production'],
        `${first.clientId}: this client may get tokens for the sandbox environment only, not production`,
      ],
      [['--client', 'ig_nope'], 'no active client ig_nope'],
      [['--agency', 'nobody'], 'no active client may get caas tokens for nobody in sandbox; create one with immogate clients create'],
      [
        ['--client', first.clientId, '--scope', 'caas:*', '--api', 'leads'],
        `${first.clientId}: scope "caas:*" is not a scope of ${server.base}/sandbox/seeker-leads/v1`,
      ],
      [['--url', 'ftp://x'], '--url must use http or https, got "ftp://x"'],
    ];
    for (const [args, message] of cases) {
      const base = ['token', '--api', 'caas', '--agency', 'agency-t', '--url', server.base];
      assert.deepEqual(await cli([...base, ...args]), { code: 1, stdout: '', stderr: `immogate: ${message}\n` }, args.join(' '));
    }
    const down = `http://127.0.0.1:${port}`;
    assert.deepEqual(
      await cli(['token', '--api', 'caas', '--agency', 'agency-t', '--client', first.clientId, '--secret', first.secret, '--url', down]),
      {
        code: 1,
        stdout: '',
        stderr: `immogate: no immogate answers at ${down}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
      },
    );
    const second = await makeClient(server.pool, ['agency-t'], ['caas:classifieds:read'], ['sandbox']);
    assert.deepEqual(await cli(['token', '--api', 'caas', '--agency', 'agency-t', '--url', server.base]), {
      code: 1,
      stdout: '',
      stderr: `immogate: 2 clients may get caas tokens for agency-t in sandbox (${first.clientId}, ${second.clientId}): choose one with --client\n`,
    });
  });

  it('usage errors: exit 2', async () => {
    for (const [args, message] of [
      [
        ['token', '--api', 'nope', '--agency', 'a'],
        "error: option '--api <api>' argument 'nope' is invalid. Allowed choices are caas, listings, leads.",
      ],
      [['token', '--agency', 'a'], "error: required option '--api <api>' not specified"],
      [['token', '--api', 'caas'], "error: required option '--agency <id>' not specified"],
      [
        ['token', '--api', 'caas', '--agency', 'a', '--env', 'staging'],
        "error: option '--env <environment>' argument 'staging' is invalid. Allowed choices are sandbox, production.",
      ],
    ] as const) {
      const result = await cli([...args]);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.startsWith(`${message}\n`), result.stderr);
    }
  });
});

describe('immogate url, and the server token and demo find without --url', () => {
  const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;

  it('url prints the PUBLIC_URL the running server recorded (a port other than 8080), PUBLIC_URL when set', async () => {
    assert.notEqual(new URL(server.base).port, '8080');
    assert.deepEqual(await cli(['url']), { code: 0, stdout: `${server.base}\n`, stderr: '' });
    assert.deepEqual(await cli(['url', '--json']), { code: 0, stdout: `${JSON.stringify({ url: server.base }, null, 2)}\n`, stderr: '' });
    assert.deepEqual(await cli(['url'], { PUBLIC_URL: 'https://immogate.example.org/' }), {
      code: 0,
      stdout: 'https://immogate.example.org\n',
      stderr: '',
    });
  });

  it('token without --url: minted for, and asked of, the running server; --url and PUBLIC_URL come first', async () => {
    const client = await makeClient(server.pool, ['agency-u'], ['caas:*'], ['sandbox']);
    const call = async (token: string) =>
      (await http('GET', `${server.base}/sandbox/caas/v4/classifieds`, { headers: { authorization: `Bearer ${token}` } })).status;
    const minted = await cli(['token', '--api', 'caas', '--agency', 'agency-u']);
    assert.equal(minted.stderr, '');
    assert.match(minted.stdout.trim(), JWT);
    assert.equal(await call(minted.stdout.trim()), 200);
    const asked = await cli(['token', '--api', 'caas', '--agency', 'agency-u', '--client', client.clientId, '--secret', client.secret]);
    assert.equal(asked.stderr, '');
    assert.equal(await call(asked.stdout.trim()), 200);
    // PUBLIC_URL set: the token is of that issuer, which this server refuses.
    const elsewhere = await cli(['token', '--api', 'caas', '--agency', 'agency-u'], { PUBLIC_URL: 'https://immogate.example.org' });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.equal(await call(elsewhere.stdout.trim()), 401);
    const down = `http://127.0.0.1:${await freePort()}`;
    assert.deepEqual(
      await cli(['token', '--api', 'caas', '--agency', 'agency-u', '--client', client.clientId, '--secret', client.secret, '--url', down], {
        PUBLIC_URL: server.base,
      }),
      { code: 1, stdout: '', stderr: `immogate: no immogate answers at ${down}: connect ECONNREFUSED ${down.slice('http://'.length)}\n` },
    );
  });

  it('with two servers on one database, the one started last; once it stops, the other again', async () => {
    const second = await startTestServer(fixture.database);
    try {
      assert.notEqual(second.base, server.base);
      assert.deepEqual(await cli(['url']), {
        code: 0,
        stdout: `${second.base}\n`,
        stderr: `note: servers at other URLs serve this database too (${server.base}); each refuses the tokens of the others\n`,
      });
    } finally {
      await second.close();
    }
    assert.deepEqual(await cli(['url']), { code: 0, stdout: `${server.base}\n`, stderr: '' });
  });

  it('without a running server: says so on stderr and exits 1, url and token alike', async () => {
    const database = await createTestDatabase();
    try {
      const none = {
        code: 1,
        stdout: '',
        stderr: 'immogate: no running immogate serves this database (none is recorded): start one (immogate start), or set PUBLIC_URL\n',
      };
      assert.deepEqual(await runCli(['url'], { DATABASE_URL: database.url, PORT: '9123' }), none);
      assert.deepEqual(await runCli(['token', '--api', 'caas', '--agency', 'agency-u'], { DATABASE_URL: database.url, PORT: '9123' }), {
        ...none,
        stderr: none.stderr.replace('set PUBLIC_URL', 'give its --url (or PUBLIC_URL)'),
      });
    } finally {
      await database.drop();
    }
  });
});

describe('a DATA_DIR that holds no database', () => {
  it('every command but start, server and worker says so, exits 1 and creates nothing', async () => {
    const dir = temporaryDataDir('immogate-nodb-');
    try {
      for (const args of [
        ['clients', 'list'],
        ['clients', 'create', '--name', 'x', '--intermediary', 'a'],
        ['migrate'],
        ['token', '--api', 'caas', '--agency', 'a'],
        ['demo', '--url', server.base],
        ['leads', 'erase', '--email', 'a@example.org'],
        ['deliveries', 'redeliver', '--since', '2026-01-01T00:00:00Z'],
        ['secrets', 'rotate-key'],
      ]) {
        assert.deepEqual(
          await runCli(args, { DATABASE_URL: undefined, DATA_DIR: dir }),
          {
            code: 1,
            stdout: '',
            stderr: `immogate: DATA_DIR: ${dir} holds no immogate database: run this command with the DATA_DIR (or DATABASE_URL) of your server, or create one with immogate start\n`,
          },
          args.join(' '),
        );
      }
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('immogate migrate', () => {
  let empty: TestDatabase;
  before(async () => {
    empty = await createTestDatabase({ empty: true });
  });
  after(async () => {
    await empty.drop();
  });

  it('applies every migration to an empty database and reports it, creating no client', async () => {
    const all = listMigrations().map((m) => `${String(m.id).padStart(3, '0')}_${m.name}`);
    const result = await cli(['migrate', '--json'], { DATABASE_URL: empty.url });
    assert.equal(result.code, 0);
    assert.deepEqual(JSON.parse(result.stdout), { applied: all });
    const host = new URL(empty.url).host;
    assert.equal(result.stderr, [`migrating PostgreSQL at ${host}`, ...all.map((name) => `applied ${name}`), ''].join('\n'));
    // The sandbox demo client is the first server start's to create, so its secret gets shown.
    const pool = createPool(empty.url, 1);
    try {
      assert.deepEqual(await listClients(pool), []);
    } finally {
      await pool.end();
    }
  });

  it('applies nothing the second time', async () => {
    assert.deepEqual(await cli(['migrate', '--json'], { DATABASE_URL: empty.url }), {
      code: 0,
      stdout: '{\n  "applied": []\n}\n',
      stderr: `migrating PostgreSQL at ${new URL(empty.url).host}\n`,
    });
    assert.deepEqual(await cli(['migrate'], { DATABASE_URL: empty.url }), {
      code: 0,
      stdout: 'database is up to date\n',
      stderr: `migrating PostgreSQL at ${new URL(empty.url).host}\n`,
    });
  });
});
