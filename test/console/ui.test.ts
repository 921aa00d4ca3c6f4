/*
 * The console in a real browser (Debian's Chromium through playwright-core) against a running
 * immogate with its worker, a media server and a webhook receiver on loopback: an integrator signs
 * in, finds a classified made through the API and reads its timeline to its terminal status and a
 * media's reason; opens a lead notification's attempts, presses Redeliver and the receiver gets the
 * second attempt; validates a broken payload and sees the rule named; an operator signs in and
 * creates a client whose secret then gets a token, and rotates a secret revoking the tokens. Each step asserts what the page shows, and the
 * main pages are saved as screenshots (dist/screenshots, or CONSOLE_SCREENSHOTS, e.g. docs/screenshots). The browser is the shared
 * fixture's (test/fixtures/browser.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { BROWSER_MISSING, useBrowser } from '../fixtures/browser.js';
import { minimalClassified } from '../fixtures/classifieds.js';
import { leadRequest } from '../fixtures/leads.js';
import { Receiver } from '../fixtures/receiver.js';
import { freePort, http, REPO_ROOT, useServer, waitFor } from '../helpers.js';

const AGENCY = 'agency-console';
const ADMIN_TOKEN = 'console-operator-token-0123456789';
const SCREENSHOTS = path.resolve(REPO_ROOT, process.env.CONSOLE_SCREENSHOTS ?? 'dist/screenshots');
const BUSY = '{"error":"busy, try again later"}';
const LAPTOP = { width: 1280, height: 860 };
const PHONE = { width: 375, height: 812 };
/** The pages as a reader in Paris sees them, on a laptop. */
const READER = { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Europe/Paris' };

/** Loopback media: /ok/* an image, anything else 404. */
function startMediaServer(): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/ok/')) response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(2048, 1));
    else response.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? false, animations: 'disabled' });
}

/** The text of each row of a table body as it reads, cell by cell (header cells of the row included). */
async function rowsOf(table: Locator): Promise<string[][]> {
  const rows = await table.locator('tbody tr').all();
  return Promise.all(
    rows.map(async (row) => (await row.locator('th, td').allInnerTexts()).map((cell) => cell.replace(/\s+/g, ' ').trim())),
  );
}

/** The text of an element as it reads (line breaks as rendered), its runs of white space made one space. */
async function text(locator: Locator): Promise<string> {
  return (await locator.allInnerTexts()).join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * The page's uncaught exceptions: its console also logs the refusals the pages handle (the 401 of
 * the session read before signing in, of a wrong secret), which are not errors.
 */
function uncaught(errors: string[]): string[] {
  return errors.filter((error) => error.startsWith('uncaught'));
}

/** Whether the page is no wider than its viewport (nothing to scroll sideways but the tables' own regions). */
async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

describe('the console in a real browser', { skip: BROWSER_MISSING }, () => {
  const fixture = useServer({
    worker: true,
    // One retry an hour away: the only second attempt a test sees is the one Redeliver asks for.
    env: { ALLOW_PRIVATE_TARGETS: 'true', ADMIN_TOKEN, WEBHOOK_RETRY_SCHEDULE: '3600' },
    client: { intermediaries: [AGENCY], scopes: ['caas:*', 'clim:*', 'leads:*'] },
  });
  const chromium = useBrowser();
  let base: string;
  let media: Server;
  let mediaBase: string;
  let receiver: Receiver;
  let integrator: Page;
  let integratorErrors: string[];

  before(async () => {
    await fixture.ready();
    base = fixture.server.base;
    media = await startMediaServer();
    mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
    receiver = await Receiver.start({ body: (status) => (status >= 300 ? BUSY : '') });
  });

  after(async () => {
    await receiver?.close();
    await new Promise((resolve) => media?.close(resolve));
  });

  /** A sandbox call of the fixture's client to `root`, as a CRM makes it. */
  async function api(method: string, root: string, route: string, body?: unknown) {
    const token = await fixture.token({ root: `/sandbox${root}`, intermediary: AGENCY });
    return http(method, `${base}/sandbox${root}${route}`, { headers: { authorization: `Bearer ${token}` }, body });
  }

  it('signs an integrator in with Client ID, Client secret, Agency and Environment, and refuses a wrong secret readably', async () => {
    ({ page: integrator, errors: integratorErrors } = await chromium.newPage(READER));
    const page = integrator;
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { name: 'Integrator sign-in' }).waitFor();
    await shot(page, 'sign-in');

    await page.getByLabel('Client ID', { exact: true }).fill(fixture.client.clientId);
    await page.getByLabel('Client secret', { exact: true }).fill('not-the-secret');
    await page.getByLabel('Agency', { exact: true }).fill(AGENCY);
    await page.getByLabel('Environment', { exact: true }).selectOption('sandbox');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    assert.match(await text(refusal), /HTTP 401/);

    await page.getByLabel('Client secret', { exact: true }).fill(fixture.client.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Classifieds' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/classifieds');
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), [
      'Classifieds',
      'Listings',
      'OpenImmo imports',
      'Leads',
      'Webhooks',
      'Try a payload',
      'Tokens',
    ]);
    assert.match(await text(page.locator('header .who')), new RegExp(`agency ${AGENCY} · sandbox`));
  });

  it('finds a classified created through the API and shows its timeline to the terminal status, with the reason of a failed media', async () => {
    const page = integrator;
    const body = minimalClassified();
    body.portals = ['SL'];
    body.data.estateType = 'APARTMENT';
    body.data.estateSubType = { apartment: 'LOFT' };
    body.data.metaData.source.offererEstateId = 'UI-1001';
    body.media = [
      { url: `${mediaBase}/ok/living.jpg`, mediaType: 'PICTURE' },
      { url: `${mediaBase}/missing/kitchen.jpg`, mediaType: 'PICTURE' },
    ];
    const created = await api('POST', '/caas/v4', '/classifieds', body);
    assert.equal(created.status, 202, created.text);
    const id = (created.body as { classifiedId: string }).classifiedId;
    await waitFor(
      'the classified to be processed',
      () => api('GET', '/caas/v4', `/classifieds/${id}/statuses?filter=latest`),
      (result) => (result.body as { items: { status: string }[] }).items.some((item) => item.status === 'CREATED_WITH_MEDIA_ERROR'),
    );

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Classifieds' }).click();
    await page.getByLabel('offererEstateId').fill('UI-1001');
    await page.getByRole('button', { name: 'Filter' }).click();
    const list = page.getByRole('table', { name: 'Classifieds, newest first' });
    await list.getByRole('link', { name: 'UI-1001' }).waitFor();
    const [row] = await rowsOf(list);
    assert.match(row?.[0] ?? '', /^UI-1001$/);
    assert.match(row?.[1] ?? '', /^CREATED_WITH_MEDIA_ERROR accepted · /);
    assert.equal(row?.[5], id);
    await shot(page, 'classifieds');

    await list.getByRole('link', { name: 'UI-1001' }).click();
    await page.getByRole('heading', { level: 1, name: 'Classified UI-1001' }).waitFor();
    const timeline = page.getByRole('list', { name: 'Statuses, newest first' });
    await timeline.waitFor();
    const heads = await timeline.locator('h3').allInnerTexts();
    assert.deepEqual(
      heads.map((head) => head.split(/\s+/)[0]),
      ['CREATED_WITH_MEDIA_ERROR', 'CREATING', 'RECEIVED'],
    );
    const terminal = timeline.getByRole('article').first();
    assert.match(await text(terminal), /Accepted on SL; 1 of 2 media could not be used/);
    assert.deepEqual(await rowsOf(terminal.getByRole('table')), [
      [`${mediaBase}/ok/living.jpg`, 'CREATED', '—'],
      [`${mediaBase}/missing/kitchen.jpg`, 'DOWNLOADING_FAILED', 'the server answered 404'],
    ]);
    await shot(page, 'classified');

    await page.setViewportSize(PHONE);
    assert.equal(await fitsWidth(page), true, 'the timeline is wider than a 375 px phone');
    await shot(page, 'classified-phone');
    await page.setViewportSize(LAPTOP);
  });

  it("shows a lead notification's attempts, and Redeliver sends a second attempt the receiver gets", async () => {
    const page = integrator;
    const url = receiver.script('/leads', { status: 503 });
    const subscribed = await api('POST', '/seeker-leads/v1', '/webhook/subscriptions', { url, apiKey: 'console-test-api-key-0123456789' });
    assert.equal(subscribed.status, 201, subscribed.text);
    const lead = await api('POST', '/seeker-leads/v1', '/leads', leadRequest({ firstName: 'Clara', message: 'Can I visit on Saturday?' }));
    assert.equal(lead.status, 200, lead.text);
    const now = Math.floor(Date.now() / 1000);
    const found = await api('GET', '/seeker-leads/v1', `/leads?minDate=${now - 3600}&maxDate=${now + 60}`);
    const leadId = (found.body as { items: { metadata: { leadId: string } }[] }).items.at(-1)?.metadata.leadId;
    await waitFor(
      'the first attempt',
      async () => receiver.requestsTo('/leads').length,
      (count) => count === 1,
    );

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const subscriptions = page.getByRole('table', { name: 'Lead subscriptions' });
    await subscriptions.locator('tbody th').filter({ hasText: url }).waitFor();
    // Every webhook's deliveries at first: a lead-only integrator finds theirs without touching the filter.
    const source = page.getByLabel('Webhook', { exact: true });
    assert.equal(await source.inputValue(), '');
    assert.equal(await text(source.locator('option:checked')), 'All webhooks');
    const deliveries = page.getByRole('table', { name: 'Deliveries, newest first' });
    await deliveries.getByText(url).waitFor();
    await waitFor(
      'the attempt to be listed',
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).last().click();
        return rowsOf(deliveries);
      },
      (rows) => rows[0]?.[4] === '503',
      40,
      250,
    );
    const [listed] = await rowsOf(deliveries);
    // The row says what it carries: the lead, by id.
    assert.deepEqual(listed?.slice(1, 6), [`lead ${leadId}`, 'PENDING', '1', '503', url]);
    await shot(page, 'webhooks');

    await deliveries.getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: 'Delivery of a lead notification' }).waitFor();
    const attempts = page.getByRole('list', { name: 'Attempts, newest first' });
    const first = attempts.getByRole('article', { name: /^Attempt 1/ });
    await first.waitFor();
    assert.match(
      await text(first),
      /^Attempt 1 503 TIME .+ STATUS CODE 503 LATENCY \d+ ms ERROR receiver answered HTTP 503 Request headers sent Response body received \{ "error": "busy, try again later" \}$/,
    );

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Redelivery queued').waitFor();
    await waitFor(
      'the second attempt at the receiver',
      async () => receiver.requestsTo('/leads'),
      (requests) => requests.length === 2,
    );
    const [one, two] = receiver.requestsTo('/leads');
    assert.equal(two?.headers['webhook-id'], one?.headers['webhook-id']);
    assert.equal(two?.body, one?.body);
    // The page reads the delivery again while it is pending: DELIVERED once the second attempt is answered.
    await page.locator('.facts .badge', { hasText: 'DELIVERED' }).waitFor();
    const second = attempts.getByRole('article', { name: /^Attempt 2/ });
    await second.waitFor();
    assert.match(
      await text(second),
      /^Attempt 2 200 TIME .+ STATUS CODE 200 LATENCY \d+ ms ERROR — Request headers sent Response body received: empty$/,
    );
    await second.getByText('Request headers sent').click();
    const sent = Object.fromEntries((await rowsOf(second.getByRole('table'))).map(([name, value]) => [name, value]));
    assert.equal(sent['webhook-id'], two?.headers['webhook-id']);
    assert.equal(sent['webhook-signature'], two?.headers['webhook-signature']);
    assert.deepEqual(
      (await attempts.locator('h3').allInnerTexts()).map((head) => head.split(/\s+/).slice(0, 2).join(' ')),
      ['Attempt 2', 'Attempt 1'],
    );
    await shot(page, 'delivery', { fullPage: true });
  });

  it('marks test events, shows why a delivery got no status, and lists leads, subscriptions and deliveries newest first', async () => {
    const page = integrator;
    const refusing = `http://127.0.0.1:${await freePort()}/gone`;
    const subscribed = await api('POST', '/seeker-leads/v1', '/webhook/subscriptions', {
      url: refusing,
      apiKey: 'console-test-api-key-9876543210',
    });
    assert.equal(subscribed.status, 201, subscribed.text);
    const later = await api('POST', '/seeker-leads/v1', '/leads', leadRequest({ firstName: 'Dora', message: 'Is there a garage?' }));
    assert.equal(later.status, 200, later.text);

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Leads' }).click();
    const leads = page.getByRole('table', { name: 'Leads, newest first' });
    await leads.waitFor();
    assert.deepEqual(
      (await rowsOf(leads)).map((row) => row[1]?.split(' ')[0]),
      ['Dora', 'Clara'],
    );

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    const subscriptions = page.getByRole('table', { name: 'Lead subscriptions, newest first' });
    await subscriptions.locator('tbody th').filter({ hasText: refusing }).waitFor();
    assert.deepEqual(
      (await rowsOf(subscriptions)).map((row) => row[0]?.split(' ')[0]),
      [refusing, `${receiver.base}/leads`],
    );
    await page.getByRole('button', { name: `Send test event to ${refusing}` }).click();
    await page.getByText('A signed sample lead was queued').waitFor();

    const deliveries = page.getByRole('table', { name: 'Deliveries, newest first' });
    const rows = await waitFor(
      'the refused attempt to be listed',
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).last().click();
        await page.waitForLoadState('networkidle');
        return rowsOf(deliveries);
      },
      (listed) => listed[0]?.[4]?.startsWith('connection refused') === true,
      40,
      250,
    );
    const [test, dora, doraToo, clara] = rows;
    // Newest first: the test event, then Dora's lead (to both subscriptions), then Clara's.
    assert.match(test?.[1] ?? '', /^TEST lead [0-9a-f-]{36}$/);
    assert.deepEqual(test?.slice(2, 6), ['PENDING', '1', `connection refused by ${new URL(refusing).host}`, refusing]);
    assert.match(dora?.[1] ?? '', /^lead [0-9a-f-]{36}$/);
    assert.equal(doraToo?.[1], dora?.[1]);
    assert.notEqual(clara?.[1], dora?.[1]);
    assert.match(clara?.[1] ?? '', /^lead /);
    await shot(page, 'webhooks');
  });

  it('loads every page with no failed request and nothing in the browser console', async () => {
    const { page } = await chromium.newPage(READER);
    const failed: string[] = [];
    const logged: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') logged.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => logged.push(`uncaught: ${error.message}`));
    await page.goto(`${base}/console/`);
    // The sign-in page's read of the session (a 401 before signing in) is not one of the pages checked.
    await page.getByRole('heading', { name: 'Integrator sign-in' }).waitFor();
    await page.waitForLoadState('networkidle');
    failed.length = 0;
    logged.length = 0;
    await page.getByLabel('Client ID', { exact: true }).fill(fixture.client.clientId);
    await page.getByLabel('Client secret', { exact: true }).fill(fixture.client.secret);
    await page.getByLabel('Agency', { exact: true }).fill(AGENCY);
    await page.getByLabel('Environment', { exact: true }).selectOption('sandbox');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Classifieds' }).waitFor();
    const pages: [string, string][] = [
      ['classifieds', 'Classifieds'],
      ['listings', 'Listings'],
      ['openimmo', 'OpenImmo imports'],
      ['leads', 'Leads'],
      ['webhooks', 'Webhooks'],
      ['validate', 'Try a payload'],
      ['tokens', 'Tokens'],
    ];
    for (const [path, heading] of pages) {
      await page.goto(`${base}/console/${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.deepEqual({ page: path, failed, logged }, { page: path, failed: [], logged: [] });
    }
    // No status webhook is set: the page says so, from a 200.
    await page.goto(`${base}/console/webhooks`);
    await page.getByText('No status webhook is set: statuses are only polled.').waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual({ failed, logged }, { failed: [], logged: [] });
  });

  it('validates a broken payload without writing it and names the rule each portal would break', async () => {
    const page = integrator;
    const broken = minimalClassified();
    broken.portals = ['SL', 'BUCOM'];
    broken.data.metaData.source.offererEstateId = 'UI-BROKEN';
    broken.data.prices.rent.baseRent.amount = 0;
    const payload = JSON.stringify(broken, null, 2);
    const expected = await api('POST', '/caas/v4', '/classifieds/validate', broken);
    assert.equal(expected.status, 200, expected.text);

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Try a payload' }).click();
    await page.getByRole('heading', { level: 1, name: 'Try a payload' }).waitFor();
    await page.getByLabel('a classified').check();
    await page.getByLabel('Payload (JSON)').fill(payload);
    await page.getByRole('button', { name: 'Validate' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByText('SL_RENTAL_PRICE_REQUIRED').waitFor();
    assert.match(await text(result), /The schema passes, but SL would refuse it\./);
    const answer = expected.body as {
      portals: { portal: string; requested: boolean; accepted: boolean; violations: { rule: string; name: string; reason: string }[] }[];
    };
    const verdicts = [...answer.portals.filter((portal) => portal.requested), ...answer.portals.filter((portal) => !portal.requested)];
    const shown = await result.locator('.portals > li').allInnerTexts();
    assert.deepEqual(
      shown.map((item) => item.replace(/\s+/g, ' ').trim()),
      verdicts.map((portal) =>
        [
          portal.portal,
          portal.accepted ? 'accepted' : 'rejected',
          ...portal.violations.map((violation) => `${violation.rule}: ${violation.name} ${violation.reason}`),
        ].join(' '),
      ),
    );
    assert.ok(verdicts.some((portal) => portal.violations.some((violation) => violation.rule === 'SL_RENTAL_PRICE_REQUIRED')));
    await shot(page, 'validate', { fullPage: true });

    const listed = await api('GET', '/caas/v4', '/classifieds?offererEstateId=UI-BROKEN');
    assert.deepEqual(listed.body, { items: [] });
    assert.deepEqual(uncaught(integratorErrors), []);
  });

  it('signs an operator in with the Admin token and creates a client whose secret, shown once, gets a token', async () => {
    const { page, errors } = await chromium.newPage(READER);
    await page.goto(`${base}/console/`);
    await page.getByRole('link', { name: 'Operator' }).click();
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clients' }).waitFor();
    await page.getByRole('table', { name: 'Clients' }).getByText(fixture.client.clientId).waitFor();

    await page.getByText('Create a client').click();
    const form = page.getByRole('form', { name: 'Create a client' });
    await form.getByLabel('Name').fill('Console CRM');
    await form.getByLabel('Agencies').fill('agency-new, agency-other');
    await form.getByLabel('Scopes').fill('caas:* leads:read');
    await form.getByLabel('production').check();
    await form.getByRole('button', { name: 'Create the client' }).click();
    const created = page.locator('.secret-once');
    await created.getByRole('heading', { name: 'Client "Console CRM" created' }).waitFor();
    const facts = await created.locator('dd').allInnerTexts();
    const [clientId, secret] = facts;
    assert.match(clientId ?? '', /^\S+$/);
    assert.deepEqual(facts.slice(2), ['agency-new, agency-other', 'sandbox, production']);
    const table = page.getByRole('table', { name: 'Clients, newest first' });
    await table.getByText(clientId ?? '').waitFor();
    // Newest first: the client just made heads the list.
    assert.equal((await rowsOf(table))[0]?.[0]?.includes('Console CRM'), true);
    await shot(page, 'clients');

    const token = await http('POST', `${base}/oauth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        audience: `${base}/caas/v4`,
        intermediary_id: 'agency-other',
      },
    });
    assert.equal(token.status, 200, token.text);
    assert.equal((token.body as { scope: string }).scope, 'caas:*');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.locator('.secret-once').count(), 0);
    assert.deepEqual(uncaught(errors), []);
  });

  it("rotates a client's secret and revokes its tokens from the Clients page: the old token is refused, the new secret's works", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const made = await http('POST', `${base}/admin/clients`, {
      headers: admin,
      body: { name: 'Rotating CRM', intermediaries: [AGENCY], scopes: ['leads:*'] },
    });
    assert.equal(made.status, 201, made.text);
    const { client } = made.body as { client: { clientId: string } };
    const leadsToken = async (secret: string) => {
      const granted = await http('POST', `${base}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: secret,
          audience: `${base}/sandbox/seeker-leads/v1`,
          intermediary_id: AGENCY,
        },
      });
      assert.equal(granted.status, 200, granted.text);
      return (granted.body as { access_token: string }).access_token;
    };
    const read = (token: string) =>
      http('GET', `${base}/sandbox/seeker-leads/v1/webhook/subscriptions`, { headers: { authorization: `Bearer ${token}` } });
    const older = await leadsToken((made.body as { clientSecret: string }).clientSecret);
    assert.equal((await read(older)).status, 200);

    const { page, errors } = await chromium.newPage(READER);
    await page.goto(`${base}/console/operator`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clients' }).waitFor();

    // Rotating alone says what becomes of the tokens; cancelled here.
    await page.getByRole('button', { name: 'Rotate secret of Rotating CRM' }).click();
    assert.equal(
      await text(page.getByRole('alertdialog').locator('p')),
      'Rotate the secret of "Rotating CRM"? Its current secret stops working at once and its console sessions end; ' +
        'the tokens it already holds work until they expire (24 hours at most).',
    );
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Rotate and revoke tokens of Rotating CRM' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.equal(
      await text(dialog.locator('p')),
      'Rotate the secret of "Rotating CRM" and revoke its tokens? Its current secret stops working at once, its console sessions ' +
        'end, and every token it was issued before stops working within 10 seconds.',
    );
    assert.deepEqual(await dialog.getByRole('button').allInnerTexts(), ['Rotate and revoke tokens', 'Cancel']);
    await dialog.getByRole('button', { name: 'Rotate and revoke tokens' }).click();
    const shown = page.locator('.secret-once');
    await shown.getByRole('heading', { name: 'New secret of "Rotating CRM"; its earlier tokens are revoked' }).waitFor();
    const [clientId, secret] = await shown.locator('dd').allInnerTexts();
    assert.equal(clientId, client.clientId);

    assert.equal((await read(await leadsToken(secret ?? ''))).status, 200);
    const refused = await waitFor(
      'the older token to be refused',
      () => read(older),
      (result) => result.status === 401,
      240,
      50,
    );
    assert.equal(
      (refused.body as { detail: string }).detail,
      "The access token is not valid: it was revoked when its client's secret was rotated",
    );
    assert.deepEqual(uncaught(errors), []);
  });
});
