/*
 * A lead as an OpenImmo-Feedback document (GET /leads/{leadId}/openimmo-feedback), the XML a CRM's
 * OpenImmo import reads its portal enquiries from. The document is written from the facts of
 * /work/shared/reference/openimmo-facts.md §5 (names and the order of each element's children: the
 * schema uses sequences, so a validating reader refuses children out of order); no schema text.
 *
 * It is built from the lead exactly as GET /leads/{leadId} answers it (readLead), so both agree on
 * everything, erasure included: after it the document still names the lead, its date, its agency,
 * its classified and the e-mail address the JSON keeps, and nothing else of the author.
 *
 * The mapping (docs/leads.md#openimmo-feedback has it as a table):
 *   version                        1.2.7
 *   sender/name                    immogate
 *   sender/datum                   submittedDate, its UTC day (YYYY-MM-DD)
 *   sender/makler_id               metadata.agencyId (the token's intermediary)
 *   objekt/portal_obj_id           property.classifiedId (left out when the lead has none)
 *   objekt/interessent/int_id      metadata.leadId
 *                      anrede      gender: MALE "Herr", FEMALE "Frau", else left out
 *                      vorname     firstName
 *                      nachname    lastName
 *                      tel         the first LANDLINE number, else the first one without a type
 *                      mobil       the first MOBILE number
 *                      email       email
 *                      anfrage     message
 * The lead carries no object number of the agency's own (oobj_id), no company, postal address or
 * preferred channel, and no requested action (wunsch): those elements are left out, not guessed.
 * An element whose value is null or empty is left out too.
 */
import type pg from 'pg';
import type { Tenant } from '../../../platform/db/tenant.js';
import type { Lead, PhoneNumber } from '../model/lead.js';
import { readLead } from './leads.js';

export const OPENIMMO_FEEDBACK_VERSION = '1.2.7';
/** sender/name: the portal the feedback comes from. */
export const FEEDBACK_SENDER_NAME = 'immogate';
export const XML_CONTENT_TYPE = 'application/xml; charset=utf-8';

const SALUTATIONS: Readonly<Record<string, string>> = { MALE: 'Herr', FEMALE: 'Frau' };

/**
 * `value` as XML character data: &, <, >, " and ' escaped, a carriage return as a character
 * reference (a reader would otherwise turn it into a line feed), and every character XML 1.0 does
 * not allow left out: the C0 controls but tab, line feed and carriage return, lone surrogates,
 * U+FFFE and U+FFFF. Leaving them out rather than refusing the lead: a lead the JSON API serves
 * is served here too, less the characters no XML document can carry.
 */
export function xmlText(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      // A pair is one character (U+10000 and above, allowed); a high surrogate alone is none.
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (code >= 0xdc00 && code <= 0xdfff) continue;
    if (code === 0xfffe || code === 0xffff) continue;
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) continue;
    switch (code) {
      case 0x26:
        out += '&amp;';
        break;
      case 0x3c:
        out += '&lt;';
        break;
      case 0x3e:
        out += '&gt;';
        break;
      case 0x22:
        out += '&quot;';
        break;
      case 0x27:
        out += '&apos;';
        break;
      case 0x0d:
        out += '&#13;';
        break;
      default:
        out += value.charAt(i);
    }
  }
  return out;
}

const NAME = /^[a-z_][a-z0-9_-]*$/;

/**
 * A small writer of element-only XML, two spaces per level, one element per line. Names are ours,
 * checked anyway; text goes through xmlText, and an element with no text left is not written.
 */
class XmlWriter {
  private readonly lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  private readonly open: string[] = [];

  private indent(): string {
    return '  '.repeat(this.open.length);
  }

  start(name: string): this {
    if (!NAME.test(name)) throw new Error(`not an element name of ours: ${name}`);
    this.lines.push(`${this.indent()}<${name}>`);
    this.open.push(name);
    return this;
  }

  end(): this {
    const name = this.open.pop();
    if (name === undefined) throw new Error('no element open');
    this.lines.push(`${this.indent()}</${name}>`);
    return this;
  }

  element(name: string, value: string | null | undefined): this {
    if (!NAME.test(name)) throw new Error(`not an element name of ours: ${name}`);
    const text = value === null || value === undefined ? '' : xmlText(value);
    if (text !== '') this.lines.push(`${this.indent()}<${name}>${text}</${name}>`);
    return this;
  }

  toString(): string {
    if (this.open.length > 0) throw new Error(`elements left open: ${this.open.join(', ')}`);
    return `${this.lines.join('\n')}\n`;
  }
}

function firstNumber(phoneNumbers: readonly PhoneNumber[], matches: (phone: PhoneNumber) => boolean): string | undefined {
  return phoneNumbers.find(matches)?.number;
}

/** The OpenImmo-Feedback document of `lead` (see the mapping above), UTF-8 XML with its declaration. */
export function feedbackDocument(lead: Lead): string {
  const { metadata, contactRequest: contact, property } = lead;
  const phones = contact.phoneNumbers;
  const landline = firstNumber(phones, (phone) => phone.type === 'LANDLINE') ?? firstNumber(phones, (phone) => phone.type === undefined);
  const mobile = firstNumber(phones, (phone) => phone.type === 'MOBILE');
  const xml = new XmlWriter().start('openimmo_feedback').element('version', OPENIMMO_FEEDBACK_VERSION);
  xml
    .start('sender')
    .element('name', FEEDBACK_SENDER_NAME)
    .element('datum', metadata.submittedDate.slice(0, 10))
    .element('makler_id', metadata.agencyId)
    .end();
  xml.start('objekt').element('portal_obj_id', property.classifiedId);
  xml
    .start('interessent')
    .element('int_id', metadata.leadId)
    .element('anrede', contact.gender === null ? undefined : SALUTATIONS[contact.gender])
    .element('vorname', contact.firstName)
    .element('nachname', contact.lastName)
    .element('tel', landline)
    .element('mobil', mobile)
    .element('email', contact.email)
    .element('anfrage', contact.message)
    .end();
  return xml.end().end().toString();
}

/** The feedback document of one lead of the tenant: a 404 problem when it has no such lead, as GET /leads/{leadId}. */
export async function readLeadFeedback(pool: pg.Pool, tenant: Tenant, leadId: string): Promise<string> {
  return feedbackDocument(await readLead(pool, tenant, leadId));
}
