/*
 * The console's OpenImmo pages in a real browser (Debian's Chromium through playwright-core)
 * against a running immogate with its worker: files posted through the API (a VOLL ZIP with
 * pictures and refused objects, a ZIP refused as a whole) are listed newest first with their
 * status, umfang, size and a count per action; an import's page shows each object as the API
 * answers it, links each listing it wrote, and the problem of the refused file; Try a payload
 * imports an OpenImmo XML, says it is no dry run, and shows the outcome once the worker applied it.
 * The pages are saved as screenshots (dist/screenshots, or CONSOLE_SCREENSHOTS).
 */
import assert from 'node:assert/strict';
import fs, { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { BROWSER_MISSING, useBrowser } from '../fixtures/browser.js';
import { mixedPackage, rentApartment, simpleTransfer, zipOf } from '../fixtures/openimmo/documents.js';
import { REPO_ROOT, USER_AGENT, http, useServer, waitFor } from '../helpers.js';

const AGENCY = 'agency-openimmo-console';
const ROOT = '/sandbox/import-listings/v1';
const SCREENSHOTS = path.resolve(REPO_ROOT, process.env.CONSOLE_SCREENSHOTS ?? 'dist/screenshots');
const LAPTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 812 };
const READER = { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Europe/Paris' };
const ACTIONS = ['created', 'updated', 'unchanged', 'deleted', 'refused'] as const;

interface Issue {
  path: string;
  reason: string;
}
interface ImportObject {
  objektnrExtern: string | null;
  path: string;
  action: (typeof ACTIONS)[number];
  externalListingId?: string;
  errors?: Issue[];
  warnings?: Issue[];
}
interface Import {
  importId: string;
  status: string;
  umfang?: string;
  sizeBytes: number;
  objects: ImportObject[];
  problem?: { status: number; title: string; detail: string };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** The text of each row of a table body as it reads, cell by cell (header cells of the row included). */
async function rowsOf(table: Locator): Promise<string[][]> {
  const rows = await table.locator('tbody tr').all();
  return Promise.all(
    rows.map(async (row) => (await row.locator('th, td').allInnerTexts()).map((cell) => cell.replace(/\s+/g, ' ').trim())),
  );
}

async function text(locator: Locator): Promise<string> {
  return (await locator.allInnerTexts()).join(' ').replace(/\s+/g, ' ').trim();
}

/** "2 created, 1 refused", as the pages count an import's objects. */
function counts(objects: ImportObject[]): string {
  const shown = ACTIONS.map((action) => [action, objects.filter((object) => object.action === action).length] as const)
    .filter(([, count]) => count > 0)
    .map(([action, count]) => `${count} ${action}`);
  return shown.length > 0 ? shown.join(', ') : 'none';
}

/** The row the objects table shows for `object`. */
function rowOf(object: ImportObject): string[] {
  const issues = [
    ...(object.errors ?? []).map((issue) => `error ${issue.path}: ${issue.reason}`),
    ...(object.warnings ?? []).map((issue) => `warning ${issue.path}: ${issue.reason}`),
  ];
  return [
    `${object.objektnrExtern ?? 'none'} ${object.path}`,
    object.action,
    object.externalListingId ?? '—',
    issues.length > 0 ? issues.join(' ').replace(/\s+/g, ' ') : '—',
  ];
}

/** An import's size as the pages give it. */
function sizeOf(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function uncaught(errors: string[]): string[] {
  return errors.filter((error) => error.startsWith('uncaught'));
}

describe("the console's OpenImmo imports in a real browser", { skip: BROWSER_MISSING }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'immogate-openimmo-console-'));
  const fixture = useServer({
    worker: true,
    env: { DATA_DIR: dataDir },
    client: { intermediaries: [AGENCY], scopes: ['clim:*'] },
  });
  const chromium = useBrowser();
  let base: string;
  let token: string;
  let page: Page;
  let errors: string[];
  let failed: Import;
  let voll: Import;

  before(async () => {
    await fixture.ready();
    base = fixture.server.base;
    token = await fixture.token({ root: ROOT, intermediary: AGENCY });
  });

  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  async function read(importId: string): Promise<Import> {
    const answer = await http('GET', `${base}${ROOT}/openimmo-imports/${importId}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as Import;
  }

  /** Posts a file as a CRM does and waits for the worker to finish it. */
  async function imported(body: Buffer, contentType: string): Promise<Import> {
    const response = await fetch(`${base}${ROOT}/openimmo-imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'content-type': contentType },
      body: new Uint8Array(body),
    });
    const answer = await response.text();
    assert.equal(response.status, 202, answer);
    const { importId } = JSON.parse(answer) as { importId: string };
    return waitFor(
      `import ${importId} to be applied`,
      () => read(importId),
      (found) => found.status !== 'PROCESSING',
      300,
      100,
    );
  }

  it('lists the imports posted through the API newest first, with status, umfang, size and a count per action', async () => {
    failed = await imported(zipOf({ 'a.xml': '<openimmo/>', 'b.xml': '<openimmo/>' }), 'application/zip');
    assert.equal(failed.status, 'FAILED');
    const { xml, files } = mixedPackage();
    voll = await imported(zipOf({ 'export.xml': xml, ...files }), 'application/zip');
    assert.equal(voll.status, 'DONE');
    // The package holds what the pages must show: listings written, objects refused with their errors, warnings.
    assert.ok(voll.objects.some((object) => object.action === 'created' && object.warnings !== undefined));
    assert.ok(voll.objects.some((object) => object.action === 'refused' && object.errors !== undefined));

    ({ page, errors } = await chromium.newPage(READER));
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { name: 'Integrator sign-in' }).waitFor();
    await page.getByLabel('Client ID', { exact: true }).fill(fixture.client.clientId);
    await page.getByLabel('Client secret', { exact: true }).fill(fixture.client.secret);
    await page.getByLabel('Agency', { exact: true }).fill(AGENCY);
    await page.getByLabel('Environment', { exact: true }).selectOption('sandbox');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Listings' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), ['Listings', 'OpenImmo imports', 'Try a payload', 'Tokens']);

    await nav.getByRole('link', { name: 'OpenImmo imports' }).click();
    await page.getByRole('heading', { level: 1, name: 'OpenImmo imports' }).waitFor();
    const list = page.getByRole('table', { name: 'OpenImmo imports, newest first' });
    await list.waitFor();
    const rows = await rowsOf(list);
    assert.equal(rows.length, 2);
    const [newer, older] = rows;
    assert.deepEqual(newer?.slice(1, 5), ['DONE', 'VOLL', sizeOf(voll.sizeBytes), counts(voll.objects)]);
    assert.deepEqual(older?.slice(1, 5), ['FAILED', '—', sizeOf(failed.sizeBytes), 'none']);
    assert.match(newer?.[0] ?? '', /\d{4}/);
    assert.equal(await list.getByRole('link').count(), 2);
    await shot(page, 'openimmo-imports');
  });

  it("shows an import's objects as the API answers them and links each listing it wrote", async () => {
    await page.getByRole('table', { name: 'OpenImmo imports, newest first' }).getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: 'OpenImmo import' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/openimmo/${voll.importId}`);
    const objects = page.getByRole('table', { name: `Objects, in document order: ${counts(voll.objects)}` });
    await objects.waitFor();
    assert.deepEqual(await rowsOf(objects), voll.objects.map(rowOf));
    // Each issue's element in code; each listing written or found unchanged a link to its page, a deleted one named only.
    const linked = voll.objects.filter(
      (object) => object.externalListingId !== undefined && ['created', 'updated', 'unchanged'].includes(object.action),
    );
    assert.ok(linked.length > 0);
    assert.deepEqual(
      await objects.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href'))),
      linked.map((object) => `/console/listings/${encodeURIComponent(object.externalListingId ?? '')}`),
    );
    const issues = voll.objects.reduce((sum, object) => sum + (object.errors?.length ?? 0) + (object.warnings?.length ?? 0), 0);
    assert.equal(await objects.locator('.issues code').count(), issues);
    assert.match(await text(page.locator('.facts')), new RegExp(`STATUS DONE UMFANG VOLL .* IMPORTID ${voll.importId}`));
    await shot(page, 'openimmo-import');

    await page.setViewportSize(PHONE);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'wider than a 375 px phone');
    await page.setViewportSize(LAPTOP);

    const first = linked[0]?.externalListingId ?? '';
    await objects.getByRole('link', { name: first, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Listing ${first}` }).waitFor();
    await page.locator('.facts').getByText('listingId').waitFor();
  });

  it('shows the problem of an import refused as a whole', async () => {
    await page.goto(`${base}/console/openimmo/${failed.importId}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(
      await text(alert),
      `${failed.problem?.title} (HTTP ${failed.problem?.status}) ${failed.problem?.detail}`.replace(/\s+/g, ' '),
    );
    assert.match(await text(alert), /the ZIP holds 2 XML files/);
    await page.getByText('No object: the file named none.').waitFor();
    assert.equal(await page.getByRole('table').count(), 0);
  });

  it('imports an OpenImmo XML from Try a payload, says it is no dry run, and shows the outcome the worker recorded', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Try a payload' }).click();
    await page.getByRole('heading', { level: 1, name: 'Try a payload' }).waitFor();
    await page.getByLabel('an OpenImmo XML').check();
    assert.match(
      await text(page.locator('.notice')),
      new RegExp(
        `^This imports, it is not a dry run\\. Each object of the XML becomes a listing of agency ${AGENCY} in the sandbox environment`,
      ),
    );
    assert.equal(await page.getByRole('button', { name: 'Validate' }).count(), 0);

    // The example the page offers is a valid transfer: it imports one listing.
    await page.getByRole('button', { name: 'Insert an example OpenImmo XML' }).click();
    assert.match(await page.getByLabel('Payload (OpenImmo XML)').inputValue(), /<objektnr_extern>OI-1001<\/objektnr_extern>/);
    await page.getByRole('button', { name: 'Import' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    const example = result.getByRole('table', { name: /^Objects, in document order/ });
    await example.waitFor();
    const exampleRows = await rowsOf(example);
    assert.deepEqual(
      exampleRows.map((row) => row.slice(0, 3)),
      [['OI-1001 /openimmo/anbieter[1]/immobilie[1]', 'created', 'OI-1001']],
      JSON.stringify(exampleRows),
    );
    assert.equal((await http('GET', `${base}${ROOT}/listings/OI-1001`, { headers: { authorization: `Bearer ${token}` } })).status, 200);

    // A pasted file: an object refused beside one written, each as the API records it.
    const xml = simpleTransfer([
      rentApartment({ objektnrExtern: 'UI-OI-1' }),
      rentApartment({ objektnrExtern: 'UI-OI-2', kaltmiete: '-5' }),
    ]);
    await page.getByLabel('Payload (OpenImmo XML)').fill(xml);
    await page.getByRole('button', { name: 'Import' }).click();
    const outcome = result.getByRole('table', { name: /^Objects, in document order/ });
    await outcome.getByText('UI-OI-2').waitFor();
    const importId =
      (await result
        .getByRole('link', { name: /^import / })
        .locator('code')
        .textContent()) ?? '';
    const recorded = await read(importId);
    assert.equal(recorded.status, 'DONE');
    assert.deepEqual(await rowsOf(outcome), recorded.objects.map(rowOf));
    assert.deepEqual(
      recorded.objects.map((object) => `${object.objektnrExtern} ${object.action}`),
      ['UI-OI-1 created', 'UI-OI-2 refused'],
    );
    await shot(page, 'validate-openimmo');

    // The list has them too, newest first, each linking its page.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'OpenImmo imports' }).click();
    const list = page.getByRole('table', { name: 'OpenImmo imports, newest first' });
    await list.waitFor();
    const ids = (await list.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).map((href) =>
      String(href).replace('/console/openimmo/', ''),
    );
    assert.equal(ids.length, 4);
    assert.deepEqual([ids[0], ids[2], ids[3]], [importId, voll.importId, failed.importId]);
    const listed = await Promise.all(ids.map((id) => read(id)));
    assert.deepEqual(
      (await rowsOf(list)).map((row) => row.slice(1, 5)),
      listed.map((found) => [found.status, found.umfang ?? '—', sizeOf(found.sizeBytes), counts(found.objects)]),
    );
    assert.deepEqual(
      listed.map((found) => counts(found.objects)),
      ['1 created, 1 refused', '1 created', counts(voll.objects), 'none'],
    );
    assert.deepEqual(uncaught(errors), []);
  });
});
