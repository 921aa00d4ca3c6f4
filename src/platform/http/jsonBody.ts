/*
 * The JSON body parser: UTF-8 only, prototype-poisoning safe, repeated member names refused, depth
 * and size bounded; the raw text is kept for routes that store it as sent.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { MAX_FIELD_ERRORS, badRequest, type FieldError } from './problems.js';
import { messageOf } from '../caught.js';
import { WorkerThreads } from '../workerThreads.js';

declare global {
  interface String {
    /** ES2024 (Node 20 has it; the ES2022 library typings do not). */
    isWellFormed(): boolean;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The JSON body as it was sent, once parsed: a handler storing the body as JSON passes this
     * text on instead of serialising the parsed value again (validation neither adds defaults to
     * a body nor coerces it, so the two are the same document).
     */
    rawJson: string | null;
  }
}

/**
 * Bounds on any JSON body, far beyond every document of the three contracts (the classified's
 * deepest path has 9 levels, its largest object about 100 members, its longest array the points of
 * a geometry). Checked before schema validation, so a body cannot make the validator collect
 * an error per item of a huge array.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_ITEMS = 10_000;
export const MAX_JSON_MEMBERS = 1_000;

/**
 * Bodies above this size are parsed and checked on a worker thread. Measured
 * (test/hostile/event-loop.test.ts): JSON.parse of 1 MiB of small values (88,000 members, or
 * 200,000 array items) takes 10-40 ms here, and with the checks after it, on a machine whose two
 * cores other processes share, that kept GET /ready waiting past 100 ms. The parsed value comes
 * back by structured clone, which the loop reads 3-10 times faster than JSON.parse reads the text.
 * Below the size, a worker's round trip would cost more than the parsing.
 */
const WORKER_ABOVE_BYTES = 64 * 1024;

/** Said by our parser and by Fastify's own check, whichever sees an empty JSON body first. */
export const EMPTY_BODY = 'The body is empty but the content type is application/json.';

/**
 * What a JSON body is: its value and its text (the bytes decoded once, kept as `rawJson`), or what
 * the 400 refusing it says (plain data, so a worker can send it).
 */
export type JsonVerdict = { value: unknown; text: string } | { refusal: { errors: FieldError[]; detail?: string; found?: number } };

/**
 * JSON bodies read as bytes, so invalid UTF-8 is refused rather than silently replaced by U+FFFD
 * and stored; parsed with the parser's own message kept ("Unexpected token } in JSON at position
 * 41"), so a client learns where its document broke; prototype-poisoning keys refused; then every
 * value checked for what PostgreSQL or JavaScript cannot hold faithfully (see inspectJson).
 * `bytes` is not empty.
 */
export function judgeJson(bytes: Uint8Array): JsonVerdict {
  if (!isUtf8(bytes))
    return { refusal: { errors: [{ name: '', reason: 'must be encoded in valid UTF-8.' }], detail: 'The body is not valid UTF-8' } };
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = sjson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    // Well-formed JSON is refused only for a member that could poison prototypes once merged.
    return wellFormed(body)
      ? { refusal: { errors: [{ name: '', reason: 'must not contain a __proto__ or constructor.prototype member.' }] } }
      : { refusal: { errors: [{ name: '', reason: `is not valid JSON: ${messageOf(error)}.` }], detail: 'The body is not valid JSON' } };
  }
  // U+0000 and lone surrogates can only come from \u escapes (raw ones are not valid UTF-8 or JSON).
  const { errors, found, members } = inspectJson(value, body.includes('\\u'));
  if (found > 0) return { refusal: { errors, found } };
  // JSON.parse keeps the last of two equal member names without a word; a proxy, a log reader or
  // the client's own code may read the first. The text naming more members than the value holds
  // is the cheap sign; only then is the text read again to say where.
  if (countMemberNames(body) > members) {
    const pointer = firstRepeatedMember(body) ?? '';
    return { refusal: { errors: [{ name: pointer, reason: 'must not be given twice in the same object.' }] } };
  }
  return { value, text: body };
}

function wellFormed(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** The JSON parser of every JSON route; the APIs speak nothing else. */
export function installJsonBodies(app: FastifyInstance): void {
  // Large bodies are parsed on worker threads (see WORKER_ABOVE_BYTES), ended with the app.
  const workers = new WorkerThreads(new URL('./jsonWorker.js', import.meta.url));
  app.addHook('onClose', () => workers.close());
  app.decorateRequest('rawJson', null);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes: Buffer, done) => {
    if (bytes.length === 0) {
      done(badRequest([{ name: '', reason: EMPTY_BODY }], 'body'));
      return;
    }
    const answer = (verdict: JsonVerdict) => {
      if ('refusal' in verdict) {
        const { errors, detail, found } = verdict.refusal;
        done(badRequest(errors, 'body', detail, found));
        return;
      }
      request.rawJson = verdict.text;
      done(null, verdict.value);
    };
    if (bytes.length <= WORKER_ABOVE_BYTES) answer(judgeJson(bytes));
    else workers.run<JsonVerdict>(bytes).then(answer, (error: unknown) => done(error instanceof Error ? error : new Error(String(error))));
  });
}

/** One container being walked: an array and its next index, or an object, its member names and the one being visited. */
type Frame =
  | { kind: 'array'; items: unknown[]; next: number }
  | { kind: 'object'; object: object; keys: string[]; next: number; key: string };

/** The pointer of the value each frame of the stack is at. */
function pointerOf(stack: Frame[]): string {
  let pointer = '';
  for (const frame of stack) pointer += `/${escapeStep(frame.kind === 'object' ? frame.key : String(frame.next - 1))}`;
  return pointer;
}

function escapeStep(step: string): string {
  return step.replace(/~/g, '~0').replace(/\//g, '~1');
}

function stringReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000).';
  // A lone surrogate (\ud800) is no Unicode character: PostgreSQL refuses it and UTF-8 cannot encode it.
  if (!text.isWellFormed()) return 'must be valid Unicode (it holds a lone UTF-16 surrogate).';
  return undefined;
}

function numberReason(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'must be a finite number.';
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return `must be an integer between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (a larger one is not read exactly).`;
  }
  return undefined;
}

/**
 * What JSON can say but the stores cannot keep faithfully: U+0000 and lone surrogates (refused
 * by PostgreSQL), numbers beyond double precision (`1e400` parses to Infinity and would be
 * stored as null); and containers beyond the bounds above. Iterative, so no body can exhaust the
 * stack; beyond MAX_FIELD_ERRORS errors are only counted, so no body can make its answer large.
 * `checkStrings` false skips the strings, for a text without \u escapes, the only way JSON can hold either.
 */
export function inspectJson(root: unknown, checkStrings = true): { errors: FieldError[]; found: number; members: number } {
  const errors: FieldError[] = [];
  let found = 0;
  let members = 0;
  const stack: Frame[] = [];
  // The pointer is composed only for a value reported: `atRoot` or the stack says where it is.
  const report = (atRoot: boolean, reason: string): void => {
    found += 1;
    if (errors.length < MAX_FIELD_ERRORS) errors.push({ name: atRoot ? '' : pointerOf(stack), reason });
  };
  const visit = (value: unknown, atRoot: boolean): void => {
    if (typeof value === 'string') {
      if (!checkStrings) return;
      const reason = stringReason(value);
      if (reason) report(atRoot, reason);
    } else if (typeof value === 'number') {
      const reason = numberReason(value);
      if (reason) report(atRoot, reason);
    } else if (Array.isArray(value)) {
      if (stack.length >= MAX_JSON_DEPTH) {
        report(atRoot, `must not nest deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`);
      } else if (value.length > MAX_JSON_ITEMS) {
        report(atRoot, `must not hold more than ${MAX_JSON_ITEMS} items.`);
      } else {
        stack.push({ kind: 'array', items: value, next: 0 });
      }
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (stack.length >= MAX_JSON_DEPTH) {
        report(atRoot, `must not nest deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`);
      } else if (keys.length > MAX_JSON_MEMBERS) {
        report(atRoot, `must not hold more than ${MAX_JSON_MEMBERS} members.`);
      } else {
        members += keys.length;
        stack.push({ kind: 'object', object: value, keys, next: 0, key: '' });
      }
    }
  };
  visit(root, true);
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    if (frame.kind === 'array') {
      if (frame.next >= frame.items.length) {
        stack.pop();
        continue;
      }
      frame.next += 1;
      visit(frame.items[frame.next - 1], false);
      continue;
    }
    const key = frame.keys[frame.next];
    if (key === undefined) {
      stack.pop();
      continue;
    }
    frame.next += 1;
    frame.key = key;
    const keyReason = checkStrings ? stringReason(key) : undefined;
    if (keyReason) {
      report(false, keyReason);
      continue;
    }
    visit(Reflect.get(frame.object, key), false);
  }
  return { errors, found, members };
}

/** The index of the quote closing the string whose opening quote is at `open`, in well-formed JSON. */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
}

function afterWhitespace(text: string, at: number): number {
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i += 1;
  }
}

/** How many member names well-formed JSON text holds: strings followed by a colon. */
export function countMemberNames(text: string): number {
  let count = 0;
  let open = text.indexOf('"');
  while (open !== -1) {
    const next = afterWhitespace(text, closingQuote(text, open) + 1);
    if (text.charCodeAt(next) === 0x3a) count += 1;
    open = text.indexOf('"', next);
  }
  return count;
}

/** The pointer of the first member name given twice in one object of well-formed JSON text. */
export function firstRepeatedMember(text: string): string | undefined {
  // Per open container: the names seen (objects) and the step to its current child.
  const stack: { names: Set<string> | null; step: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const close = closingQuote(text, i);
      const next = afterWhitespace(text, close + 1);
      const top = stack[stack.length - 1];
      if (text[next] === ':' && top?.names) {
        // The slice is one JSON string literal: it parses to a string.
        const name = String(JSON.parse(text.slice(i, close + 1)));
        if (top.names.has(name)) {
          const parent = stack.slice(0, -1).map((frame) => `/${escapeStep(frame.step)}`);
          return `${parent.join('')}/${escapeStep(name)}`;
        }
        top.names.add(name);
        top.step = name;
      }
      i = close + 1;
      continue;
    }
    if (c === '{') stack.push({ names: new Set(), step: '' });
    else if (c === '[') stack.push({ names: null, step: '0' });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top && top.names === null) top.step = String(Number(top.step) + 1);
    }
    i += 1;
  }
  return undefined;
}
