/*
 * What the judge makes of one answer, and of the whole pass. A failure is any 5xx, any violation
 * Prism found in an answer (unless test/judge/allow-list.json names it as a defect of the real
 * published document), and any request the document refuses that the server accepted. A request
 * the document allows that the server refuses is a bound the document does not state: listed with
 * its reproduction, a failure too unless a rule only prose can state explains it (`PROSE_RULES`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers.js';
import type { Case } from './cases.js';
import type { Violation } from './prism.js';

export interface Outcome {
  api: string;
  request: Case;
  method: string;
  url: string;
  status: number;
  contentType: string;
  violations: Violation[];
  text: string;
}

export interface AllowedViolation {
  operation: string;
  status: string;
  /** Prism's location of the violation, dot-joined (`response.body`, `response.body.errors`). */
  location: string;
  code: string;
  /** Why this is a defect of the published document, not of immogate. */
  why: string;
}

export const ALLOW_LIST_FILE = path.join(REPO_ROOT, 'test/judge/allow-list.json');

export function readAllowList(): AllowedViolation[] {
  const entries = JSON.parse(fs.readFileSync(ALLOW_LIST_FILE, 'utf8')) as AllowedViolation[];
  for (const entry of entries) {
    for (const key of ['operation', 'status', 'location', 'code', 'why'] as const) {
      if (typeof entry[key] !== 'string' || entry[key] === '')
        throw new Error(`allow-list: an entry has no ${key}: ${JSON.stringify(entry)}`);
    }
  }
  return entries;
}

/**
 * Refusals of requests the document allows that prose explains: the operation, the problem type
 * the server answers, and the rule. Nothing else may refuse a request its document allows.
 */
export const PROSE_RULES: Array<{ operation: RegExp; status: number; type: string; reason?: RegExp; rule: string }> = [
  { operation: /./, status: 404, type: '/problems/not-found', rule: 'an id this run did not create, or a subscription it does not have' },
  {
    operation: /./,
    status: 400,
    type: '/problems/bad-request',
    reason: /^(is not a (cursor|nextToken|nextPageToken) this (feed|endpoint) returned|must be the leadId of a lead of this agency)\.$/,
    rule: 'an opaque cursor (nextToken, nextPageToken, after, start) is one the server returned: any other string is refused',
  },
  {
    operation: /^(createClassified|validateClassified)$/,
    status: 400,
    type: '/problems/duplicated-classified',
    rule: 'an offererEstateId already live',
  },
  { operation: /^updateClassified$/, status: 412, type: '/problems/precondition-failed', rule: 'If-Match names another revision' },
];

/** A validate operation answers 200 with its verdict: `valid: false` is its refusal. */
function refusedByValidate(outcome: Outcome): boolean {
  if (!/^validate/.test(outcome.request.operationId) || outcome.status !== 200) return false;
  try {
    return (JSON.parse(outcome.text) as { valid?: unknown }).valid === false;
  } catch {
    return false;
  }
}

function reasonsOf(text: string): string[] {
  try {
    const errors = (JSON.parse(text) as { errors?: unknown }).errors;
    return Array.isArray(errors) ? errors.map((error) => String((error as { reason?: unknown }).reason)) : [];
  } catch {
    return [];
  }
}

export type Kind =
  | 'no answer'
  | 'server error'
  | 'response violation'
  | 'accepted though the document refuses'
  | 'refused though the document allows';

export interface Finding {
  kind: Kind;
  outcome: Outcome;
  detail: string;
}

function problemType(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { type?: unknown };
    return typeof parsed.type === 'string' ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The findings in one answer, and the violations the allow-list let through (with the entry that
 * did). `asIntended` says whether the answer's body matches its documented schema read as its
 * authors meant it (oneOf as anyOf, allOf parts merged): an allow-list entry for a `oneOf`
 * violation holds only then, and then covers the errors Prism reports from the alternatives too.
 */
export function judge(
  outcome: Outcome,
  allowList: readonly AllowedViolation[],
  asIntended: (outcome: Outcome) => boolean,
): { findings: Finding[]; allowed: AllowedViolation[] } {
  const findings: Finding[] = [];
  const allowed: AllowedViolation[] = [];
  const operation = outcome.request.operationId;
  if (outcome.status === 0) findings.push({ kind: 'no answer', outcome, detail: outcome.text.slice(0, 1200) });
  if (outcome.status >= 500) findings.push({ kind: 'server error', outcome, detail: outcome.text.slice(0, 300) });
  const requestViolations = outcome.violations.filter((v) => v.location[0] === 'request' && v.severity === 'Error');
  const responseViolations = outcome.violations.filter((v) => v.location[0] === 'response');
  const entryFor = (violation: Violation) =>
    allowList.find(
      (candidate) =>
        candidate.operation === operation &&
        candidate.status === String(outcome.status) &&
        violation.location.join('.').startsWith(candidate.location) &&
        candidate.code === String(violation.code),
    );
  const overlap = responseViolations.map(entryFor).find((entry) => entry?.code === 'oneOf');
  if (overlap && asIntended(outcome)) allowed.push(overlap);
  else {
    for (const violation of responseViolations) {
      const entry = entryFor(violation);
      if (entry && entry.code !== 'oneOf') allowed.push(entry);
      else
        findings.push({
          kind: 'response violation',
          outcome,
          detail: `${violation.location.join('.')} ${violation.code}: ${violation.message}`,
        });
    }
  }
  const accepted = outcome.status >= 200 && outcome.status < 300 && !refusedByValidate(outcome);
  if (requestViolations.length > 0 && accepted) {
    findings.push({
      kind: 'accepted though the document refuses',
      outcome,
      detail: requestViolations.map((v) => `${v.location.join('.')} ${v.code}: ${v.message}`).join('; '),
    });
  }
  // Only a positive case: a bent one Prism lets through is Prism's lenient reading (an empty `?limit=` it takes as absent).
  // A 429 refuses a rate, not the request: the per-client and per-subscription limits count the pass's own pace.
  const refused = (outcome.status >= 400 && outcome.status < 500 && outcome.status !== 429) || refusedByValidate(outcome);
  if (requestViolations.length === 0 && outcome.request.intent === 'positive' && refused) {
    const type = problemType(outcome.text) ?? '';
    const reasons = reasonsOf(outcome.text);
    const explained = PROSE_RULES.some(
      (rule) =>
        rule.operation.test(operation) &&
        rule.status === outcome.status &&
        rule.type === type &&
        (rule.reason === undefined || (reasons.length > 0 && reasons.every((reason) => rule.reason?.test(reason)))),
    );
    if (!explained) findings.push({ kind: 'refused though the document allows', outcome, detail: outcome.text.slice(0, 400) });
  }
  return { findings, allowed };
}
