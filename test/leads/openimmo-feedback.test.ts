/*
 * GET /leads/{leadId}/openimmo-feedback through real HTTP: the whole XML document of a lead with
 * characters to escape and to drop, read back by a real XML parser (saxes) for well-formedness and
 * the order of the elements; the answers GET /leads/{leadId} gives for another agency's lead, the
 * other environment's, an unknown and a malformed id, and a missing scope; the document after the
 * author's erasure; the route in the OpenAPI document, marked as an extension. And the writer's
 * escaping and the mapping of what a POSTed lead cannot carry (no classified, lone surrogates).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { SaxesParser } from 'saxes';
import type { Lead } from '../../src/apis/leads/model/lead.js';
import { feedbackDocument, xmlText } from '../../src/apis/leads/services/openimmoFeedback.js';
import { assertProblem as problem, http, type HttpResult, type TestServer, useServer } from '../helpers.js';

type Body = Record<string, any>;

const ROOT = '/seeker-leads/v1';
const SANDBOX = '/sandbox/seeker-leads/v1';
const ADMIN_TOKEN = 'operator-token-0123456789abcdef';
const XML = 'application/xml; charset=utf-8';

const fixture = useServer({ env: { ADMIN_TOKEN }, client: { intermediaries: ['agency-oi', 'agency-other'], scopes: ['leads:*'] } });
let server: TestServer;
let token: string;
let otherAgencyToken: string;
let sandboxToken: string;
let createOnlyToken: string;
let since: number;

before(async () => {
  await fixture.ready();
  server = fixture.server;
  since = Math.floor(Date.now() / 1000) - 1;
  token = await fixture.token({ root: ROOT, intermediary: 'agency-oi' });
  otherAgencyToken = await fixture.token({ root: ROOT, intermediary: 'agency-other' });
  sandboxToken = await fixture.token({ root: SANDBOX, intermediary: 'agency-oi' });
  createOnlyToken = await fixture.token({ root: ROOT, intermediary: 'agency-oi', scope: 'leads:create' });
});

/** The message as the seeker wrote it: a line feed, a CR LF, characters to escape, and a BEL and a VT XML cannot carry. */
const MESSAGE = 'Guten Tag,\nist die Wohnung noch frei? It\'s <dringend> & "bald".\r\nTschüss\u0007 und\u000b Ende 🏠';

function lead(overrides: Body = {}): Body {
  return {
    firstName: 'Jürgen "Jo"',
    lastName: 'Müller & Söhne <GmbH>',
    gender: 'MALE',
    email: 'j.mueller@example.org',
    language: 'DE',
    phoneNumbers: [
      { number: '030 1234567' },
      { type: 'MOBILE', number: '+49 171 2345678', verified: true },
      { type: 'LANDLINE', number: '+49 30 7654321' },
    ],
    message: MESSAGE,
    classifiedId: '12ABCDEFGHJK',
    // 23:30 on 1 May in UTC: the document's date is the UTC day.
    submittedDate: '2024-05-02T01:30:00+02:00',
    ...overrides,
  };
}

/** A GET waiting out the rate limit, which these tests do not exercise. */
async function read(path: string, bearer = token, root = ROOT): Promise<HttpResult> {
  for (let i = 0; i < 50; i++) {
    const result = await http('GET', `${server.base}${root}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
    if (result.status !== 429) return result;
    await sleep(200);
  }
  throw new Error(`still rate limited: GET ${path}`);
}

/** Submits a lead and answers its leadId, found through GET /leads. */
async function submitted(body: Body, bearer = token, root = ROOT): Promise<string> {
  const result = await http('POST', `${server.base}${root}/leads`, { headers: { authorization: `Bearer ${bearer}` }, body });
  assert.equal(result.status, 200, result.text);
  const { requestId } = result.body as Body;
  const page = await read(`/leads?minDate=${since}&maxDate=${since + 86400}`, bearer, root);
  assert.equal(page.status, 200, page.text);
  const found = (page.body as Body).items.find((item: Body) => item.metadata.requestId === requestId);
  assert.ok(found, `lead ${requestId} not listed`);
  return found.metadata.leadId;
}

function feedback(leadId: string, bearer = token, root = ROOT): Promise<HttpResult> {
  return read(`/leads/${leadId}/openimmo-feedback`, bearer, root);
}

/** Each element as a real XML parser reads it: its path and, for an element holding text, the text. */
function parsed(xml: string): { declaration: { version?: string; encoding?: string }; elements: [string, string?][] } {
  const parser = new SaxesParser();
  const declaration: { version?: string; encoding?: string } = {};
  const elements: [string, string?][] = [];
  const open: { path: string; text: string; children: number; entry: [string, string?] }[] = [];
  parser.on('xmldecl', (decl) => Object.assign(declaration, { version: decl.version, encoding: decl.encoding }));
  parser.on('opentag', (tag) => {
    const parent = open.at(-1);
    if (parent) parent.children++;
    const path = parent ? `${parent.path}/${tag.name}` : tag.name;
    assert.deepEqual(Object.keys(tag.attributes), [], path);
    const entry: [string, string?] = [path];
    open.push({ path, text: '', children: 0, entry });
    elements.push(entry);
  });
  parser.on('text', (text) => {
    const current = open.at(-1);
    if (current) current.text += text;
  });
  parser.on('closetag', () => {
    const done = open.pop();
    assert.ok(done);
    if (done.children === 0) done.entry[1] = done.text;
    // Between child elements, only the indentation.
    else assert.match(done.text, /^\s*$/, done.path);
  });
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
  return { declaration, elements };
}

function assertXml(result: HttpResult, expected: string): void {
  assert.equal(result.status, 200, result.text);
  assert.equal(result.headers.get('content-type'), XML);
  // Leads carry their authors' contact data: no cache keeps this answer either.
  assert.equal(result.headers.get('cache-control'), 'no-store');
  assert.equal(result.text, expected);
}

describe('GET /leads/{leadId}/openimmo-feedback', () => {
  it('answers the whole OpenImmo-Feedback document of the lead, escaped, which an XML parser reads back', async () => {
    const leadId = await submitted(lead());
    const result = await feedback(leadId);
    assertXml(
      result,
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<openimmo_feedback>',
        '  <version>1.2.7</version>',
        '  <sender>',
        '    <name>immogate</name>',
        '    <datum>2024-05-01</datum>',
        '    <makler_id>agency-oi</makler_id>',
        '  </sender>',
        '  <objekt>',
        '    <portal_obj_id>12ABCDEFGHJK</portal_obj_id>',
        '    <interessent>',
        `      <int_id>${leadId}</int_id>`,
        '      <anrede>Herr</anrede>',
        '      <vorname>Jürgen &quot;Jo&quot;</vorname>',
        '      <nachname>Müller &amp; Söhne &lt;GmbH&gt;</nachname>',
        '      <tel>+49 30 7654321</tel>',
        '      <mobil>+49 171 2345678</mobil>',
        '      <email>j.mueller@example.org</email>',
        '      <anfrage>Guten Tag,',
        'ist die Wohnung noch frei? It&apos;s &lt;dringend&gt; &amp; &quot;bald&quot;.&#13;',
        'Tschüss und Ende 🏠</anfrage>',
        '    </interessent>',
        '  </objekt>',
        '</openimmo_feedback>',
        '',
      ].join('\n'),
    );
    // What a CRM's reader gets: the values as written, less the BEL and the VT, the CR kept.
    assert.deepEqual(parsed(result.text), {
      declaration: { version: '1.0', encoding: 'UTF-8' },
      elements: [
        ['openimmo_feedback'],
        ['openimmo_feedback/version', '1.2.7'],
        ['openimmo_feedback/sender'],
        ['openimmo_feedback/sender/name', 'immogate'],
        ['openimmo_feedback/sender/datum', '2024-05-01'],
        ['openimmo_feedback/sender/makler_id', 'agency-oi'],
        ['openimmo_feedback/objekt'],
        ['openimmo_feedback/objekt/portal_obj_id', '12ABCDEFGHJK'],
        ['openimmo_feedback/objekt/interessent'],
        ['openimmo_feedback/objekt/interessent/int_id', leadId],
        ['openimmo_feedback/objekt/interessent/anrede', 'Herr'],
        ['openimmo_feedback/objekt/interessent/vorname', 'Jürgen "Jo"'],
        ['openimmo_feedback/objekt/interessent/nachname', 'Müller & Söhne <GmbH>'],
        ['openimmo_feedback/objekt/interessent/tel', '+49 30 7654321'],
        ['openimmo_feedback/objekt/interessent/mobil', '+49 171 2345678'],
        ['openimmo_feedback/objekt/interessent/email', 'j.mueller@example.org'],
        ['openimmo_feedback/objekt/interessent/anfrage', MESSAGE.replace('\u0007', '').replace('\u000b', '')],
      ],
    });
  });

  it('leaves out what the lead has not: no first name, a salutation for OTHER, a mobile number; an untyped number is the tel', async () => {
    const leadId = await submitted({
      lastName: 'Durand',
      gender: 'OTHER',
      email: 'durand@example.org',
      phoneNumbers: [{ number: '+33 1 23 45 67 89' }],
      message: 'Bonjour',
      classifiedId: '99ZYXWVUTSRQ',
      submittedDate: '2024-06-30T23:59:59',
    });
    assertXml(
      await feedback(leadId),
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<openimmo_feedback>',
        '  <version>1.2.7</version>',
        '  <sender>',
        '    <name>immogate</name>',
        '    <datum>2024-06-30</datum>',
        '    <makler_id>agency-oi</makler_id>',
        '  </sender>',
        '  <objekt>',
        '    <portal_obj_id>99ZYXWVUTSRQ</portal_obj_id>',
        '    <interessent>',
        `      <int_id>${leadId}</int_id>`,
        '      <nachname>Durand</nachname>',
        '      <tel>+33 1 23 45 67 89</tel>',
        '      <email>durand@example.org</email>',
        '      <anfrage>Bonjour</anfrage>',
        '    </interessent>',
        '  </objekt>',
        '</openimmo_feedback>',
        '',
      ].join('\n'),
    );
  });

  it("is the 404 of GET /leads/{leadId} for another agency's lead, the other environment's and an unknown one", async () => {
    const leadId = await submitted(lead());
    problem(await feedback(leadId, otherAgencyToken), 404, 'Not found', `No lead ${leadId}`);
    problem(await feedback(leadId, sandboxToken, SANDBOX), 404, 'Not found', `No lead ${leadId}`);
    const unknown = '00000000-0000-4000-8000-000000000000';
    problem(await feedback(unknown), 404, 'Not found', `No lead ${unknown}`);
    // The sandbox's own lead is there for the sandbox token only.
    const sandboxLead = await submitted(lead(), sandboxToken, SANDBOX);
    assert.equal((await feedback(sandboxLead, sandboxToken, SANDBOX)).status, 200);
    problem(await feedback(sandboxLead), 404, 'Not found', `No lead ${sandboxLead}`);
  });

  it('is the 400 of GET /leads/{leadId} for a malformed leadId', async () => {
    const result = await feedback('not-a-uuid');
    problem(result, 400, 'Bad request', 'Your request has not been validated', {
      errors: [{ name: 'leadId', reason: 'must match format "uuid".' }],
      errorSource: 'requestParameter',
    });
    const json = await read('/leads/not-a-uuid');
    assert.deepEqual({ ...(result.body as Body), instance: null }, { ...(json.body as Body), instance: null });
  });

  it('needs the scope leads:read', async () => {
    const leadId = await submitted(lead());
    problem(await feedback(leadId, createOnlyToken), 403, 'Forbidden', 'The access token lacks the scope leads:read');
  });

  it("carries after the author's erasure what GET /leads/{leadId} still shows: the lead's id and the email", async () => {
    const email = 'erase.me@example.org';
    const leadId = await submitted(lead({ email }));
    const erased = await http('POST', `${server.base}/admin/leads/erasures`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { email },
    });
    assert.equal(erased.status, 200, erased.text);
    assert.deepEqual(erased.body, { email, leadsErased: 1, notificationsScrubbed: 0 });
    const json = await read(`/leads/${leadId}`);
    assert.equal(json.status, 200, json.text);
    assert.deepEqual((json.body as Body).contactRequest, {
      firstName: null,
      lastName: null,
      name: null,
      gender: null,
      email,
      language: null,
      phoneNumbers: [],
      message: null,
    });
    const result = await feedback(leadId);
    assertXml(
      result,
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<openimmo_feedback>',
        '  <version>1.2.7</version>',
        '  <sender>',
        '    <name>immogate</name>',
        '    <datum>2024-05-01</datum>',
        '    <makler_id>agency-oi</makler_id>',
        '  </sender>',
        '  <objekt>',
        '    <portal_obj_id>12ABCDEFGHJK</portal_obj_id>',
        '    <interessent>',
        `      <int_id>${leadId}</int_id>`,
        '      <email>erase.me@example.org</email>',
        '    </interessent>',
        '  </objekt>',
        '</openimmo_feedback>',
        '',
      ].join('\n'),
    );
    parsed(result.text);
  });

  it('is in the OpenAPI document: an extension answering application/xml, with the scope of GET /leads/{leadId}', async () => {
    const result = await http('GET', `${server.base}${ROOT}/openapi.json`);
    assert.equal(result.status, 200);
    const paths = (result.body as { paths: Record<string, Record<string, Body>> }).paths;
    const operation = paths['/leads/{leadId}/openimmo-feedback']?.get;
    assert.ok(operation, Object.keys(paths).join(', '));
    assert.equal(operation['x-immogate-extension'], true);
    assert.equal(operation.operationId, 'getLeadOpenImmoFeedback');
    assert.equal(operation['x-scope'], 'leads:read');
    assert.deepEqual(operation.tags, ['Leads']);
    assert.deepEqual(operation.responses['200'], {
      description: 'The OpenImmo-Feedback document of the lead.',
      content: { 'application/xml': { schema: { type: 'string' } } },
    });
    assert.equal(paths['/leads/{leadId}']?.get?.['x-immogate-extension'], undefined);
  });
});

describe('the OpenImmo-Feedback writer', () => {
  it('escapes the five characters, keeps a CR as a reference, drops what XML 1.0 cannot carry', () => {
    assert.equal(xmlText(`a&b<c>d"e'f`), 'a&amp;b&lt;c&gt;d&quot;e&apos;f');
    assert.equal(xmlText('tab\there\nline\r\n'), 'tab\there\nline&#13;\n');
    assert.equal(xmlText('\u0000\u0001\u0008\u000b\u000c\u000e\u001f|\u007f\u0085'), '|\u007f\u0085');
    // A pair is one character; a surrogate alone, either half, is none; U+FFFE and U+FFFF neither.
    assert.equal(xmlText('\ud83c\udfe0 \ud83c x \udfe0 \ufffe\uffff\ufffd'), '\ud83c\udfe0  x  \ufffd');
    assert.equal(xmlText('\ud83c'), '');
  });

  it('writes a lead without a classified and with nothing left of a name as an interessent alone', () => {
    const lead: Lead = {
      metadata: {
        leadId: '11111111-1111-4111-8111-111111111111',
        category: 'AGENCY',
        ingestionDate: '2025-01-01T00:00:00.000Z',
        submittedDate: '2024-12-31T22:00:00.000Z',
        requestId: '22222222-2222-4222-8222-222222222222',
        agencyId: 'A&B',
      },
      contactRequest: {
        firstName: '\u0001\u0002',
        lastName: 'Roe',
        name: 'Roe',
        gender: 'FEMALE',
        email: 'roe@example.org',
        language: 'EN',
        phoneNumbers: [{ type: 'MOBILE', number: '0171 1' }],
        message: null,
      },
      property: { classifiedId: null },
    };
    const xml = feedbackDocument(lead);
    assert.equal(
      xml,
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<openimmo_feedback>',
        '  <version>1.2.7</version>',
        '  <sender>',
        '    <name>immogate</name>',
        '    <datum>2024-12-31</datum>',
        '    <makler_id>A&amp;B</makler_id>',
        '  </sender>',
        '  <objekt>',
        '    <interessent>',
        '      <int_id>11111111-1111-4111-8111-111111111111</int_id>',
        '      <anrede>Frau</anrede>',
        '      <nachname>Roe</nachname>',
        '      <mobil>0171 1</mobil>',
        '      <email>roe@example.org</email>',
        '    </interessent>',
        '  </objekt>',
        '</openimmo_feedback>',
        '',
      ].join('\n'),
    );
    assert.equal(parsed(xml).elements.length, 13);
  });
});
