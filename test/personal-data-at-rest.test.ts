/*
 * What a refused request carried is never written anywhere under DATA_DIR: not into the embedded
 * cluster's log (a failed statement is logged with its text, and its values are bound, never
 * part of it), not into its tables or WAL (duplicates are found before anything is written).
 * GDPR erasure could not reach any of those.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { minimalClassified } from './fixtures/classifieds.js';
import { assertProblem, freePort, http, USER_AGENT } from './helpers.js';
import { demoClientOf, killLaunched, launch, removeDataDir, stop, temporaryDataDir, waitReady, type Immogate } from './processes.js';

const STEP = { timeout: 120_000 };

let dataDir: string;
let server: Immogate;

before(() => {
  dataDir = temporaryDataDir('immogate-at-rest-');
});

after(async () => {
  await killLaunched();
  await removeDataDir(dataDir);
});

/** Every file under `dir` whose bytes contain `marker`. */
function filesContaining(dir: string, marker: string): string[] {
  const needle = Buffer.from(marker, 'utf8');
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (fs.readFileSync(file).includes(needle)) found.push(path.relative(dir, file));
  }
  return found;
}

describe('refused requests leave nothing under DATA_DIR', () => {
  it('a duplicate classified, a duplicated media, a colliding update and a refused lead, each carrying a marker', STEP, async () => {
    server = launch(['start'], await freePort(), { DATABASE_URL: undefined, DATA_DIR: dataDir });
    await waitReady(server);
    const demo = demoClientOf(server.stdout);
    const token = async (root: string) => {
      const result = await http('POST', `${server.base}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: demo.clientId,
          client_secret: demo.secret,
          audience: `${server.base}${root}`,
          intermediary_id: 'demo-agency',
        },
      });
      assert.equal(result.status, 200, result.text);
      return (result.body as { access_token: string }).access_token;
    };
    const caas = await token('/sandbox/caas/v4');
    const leads = await token('/sandbox/seeker-leads/v1');
    const call = (method: string, url: string, bearer: string, body: unknown) =>
      http(method, `${server.base}${url}`, { headers: { authorization: `Bearer ${bearer}`, 'user-agent': USER_AGENT }, body });

    const stored = minimalClassified();
    stored.data.metaData.source.offererEstateId = 'AT-REST-1';
    stored.media = [{ url: 'https://cdn.example.org/at-rest/1.jpg', mediaType: 'PICTURE' }];
    const created = await call('POST', '/sandbox/caas/v4/classifieds', caas, stored);
    assert.equal(created.status, 202, created.text);
    const id = (created.body as { classifiedId: string }).classifiedId;

    const marker = `zq${randomBytes(12).toString('hex')}`;
    const carrying = (estateId: string, mediaUrl: string) => {
      const body = minimalClassified();
      body.data.metaData.source.offererEstateId = estateId;
      body.data.location.street = `Rue ${marker}`;
      body.data.texts = { description: { fr: `Appelez ${marker} au 06 12 34 56 78` } };
      body.media = [{ url: mediaUrl, mediaType: 'PICTURE', title: marker }];
      return body;
    };
    const duplicate = await call(
      'POST',
      '/sandbox/caas/v4/classifieds',
      caas,
      carrying('AT-REST-1', `https://cdn.example.org/at-rest/${marker}.jpg`),
    );
    assertProblem(
      duplicate,
      400,
      'Duplicated classified',
      `A classified with offererEstateId "AT-REST-1" already exists: classifiedId ${id}`,
    );
    const media = await call('POST', '/sandbox/caas/v4/classifieds', caas, carrying('AT-REST-2', 'https://cdn.example.org/at-rest/1.jpg'));
    const mediaId = /mediaId ([0-9a-f-]{36}) /.exec(String((media.body as { detail?: string }).detail))?.[1];
    assertProblem(
      media,
      400,
      'Duplicated media',
      `The media url "https://cdn.example.org/at-rest/1.jpg" was already sent as mediaId ${mediaId} of classifiedId ${id}`,
    );
    const other = minimalClassified();
    other.data.metaData.source.offererEstateId = 'AT-REST-3';
    const otherId = ((await call('POST', '/sandbox/caas/v4/classifieds', caas, other)).body as { classifiedId: string }).classifiedId;
    const colliding = await call(
      'PUT',
      `/sandbox/caas/v4/classifieds/${id}`,
      caas,
      carrying('AT-REST-3', 'https://cdn.example.org/at-rest/1.jpg'),
    );
    assertProblem(
      colliding,
      400,
      'Duplicated classified',
      `A classified with offererEstateId "AT-REST-3" already exists: classifiedId ${otherId}`,
    );

    const lead = await call('POST', '/sandbox/seeker-leads/v1/leads', leads, {
      lastName: marker,
      email: 'seeker@example.org',
      phoneNumbers: [{ number: '+33 6 12 34 56 78' }],
      message: `Rappelez-moi, ${marker}`,
      classifiedId: 'not-a-classi',
      submittedDate: '2026-11-23T10:00:00Z',
    });
    assertProblem(lead, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: '/classifiedId', reason: 'must match pattern "^([0-9]{2})([1-9A-NP-Z]{10})$".' }],
      errorSource: 'body',
    });

    // A clean stop: PostgreSQL checkpoints, so whatever it had of these requests would be on disk now.
    assert.deepEqual(await stop(server), { code: 0, signal: null });
    assert.deepEqual(filesContaining(dataDir, marker), []);
    // The search does find what was stored, and what the cluster logs.
    assert.notDeepEqual(filesContaining(dataDir, 'AT-REST-3'), []);
    assert.notDeepEqual(filesContaining(path.join(dataDir, 'postgres'), 'database system is ready to accept connections'), []);
  });
});
