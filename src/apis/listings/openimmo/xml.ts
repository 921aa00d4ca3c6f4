/*
 * The OpenImmo XML as a small tree of elements, read by saxes (a non-validating parser that never
 * fetches anything and expands only the five predefined entities).
 *
 * Names are matched by their local part only: OpenImmo documents carry no namespace today, an old
 * one up to 1.2.0, and some senders write an `imo:` prefix (declared or not) or `xmlns=""` on
 * children; none of that changes what an element means. A DTD is refused outright rather than
 * ignored, since it is what entity expansion attacks (XXE, billion laughs) ride on and no OpenImmo
 * sender needs one. The tree is bounded while it is built: depth, element count, text and
 * attribute length each stop the parse the moment they are passed.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { type OpenImmoLimits, OpenImmoRefused } from './limits.js';

export interface XmlElement {
  /** The local name, without prefix. */
  name: string;
  /** By local name; namespace declarations are left out. */
  attributes: Record<string, string>;
  children: XmlElement[];
  /** This element's own text and CDATA, concatenated, not trimmed (children's text not included). */
  text: string;
  /**
   * Where the element is, for messages: `/openimmo/anbieter[1]/immobilie[2]/geo/plz`. A step
   * carries its 1-based position among same-named siblings when that name repeats there, and
   * always for `anbieter` and `immobilie`, so that an object's path does not change with the
   * number of objects sent beside it.
   */
  path: string;
}

const ALWAYS_INDEXED = new Set(['anbieter', 'immobilie']);

/** Encodings whose bytes are UTF-8 (ASCII is a subset). */
const UTF8_NAMES = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);

/**
 * The document's text from its bytes: UTF-8 only, which is what OpenImmo senders write and what
 * importers expect. A document in another encoding is refused (415) rather than guessed at, since
 * a wrong guess would silently garble every umlaut of every listing.
 */
export function decodeXml(bytes: Buffer, limits: Pick<OpenImmoLimits, 'maxXmlBytes'>): string {
  if (bytes.length > limits.maxXmlBytes)
    throw new OpenImmoRefused(413, `the XML has ${bytes.length} bytes, more than the limit of ${limits.maxXmlBytes} (maxXmlBytes)`);
  if (
    (bytes[0] === 0xfe && bytes[1] === 0xff) ||
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0 && bytes[1] === 0x3c) ||
    (bytes[0] === 0x3c && bytes[1] === 0)
  ) {
    throw new OpenImmoRefused(415, 'the XML is UTF-16: only UTF-8 is accepted; export the file as UTF-8');
  }
  const head = bytes.subarray(0, 256).toString('latin1');
  const declared = /^(?:\uFEFF|\u00EF\u00BB\u00BF)?<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(head)?.[1];
  if (declared !== undefined && !UTF8_NAMES.has(declared.toLowerCase())) {
    throw new OpenImmoRefused(415, `the XML declares encoding="${declared}": only UTF-8 is accepted; export the file as UTF-8`);
  }
  try {
    // Strips a byte order mark; fatal, so that a Latin-1 file declared as UTF-8 is refused, not garbled.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new OpenImmoRefused(400, 'the XML is not valid UTF-8 although it is read as UTF-8; export the file as UTF-8');
  }
}

/** The document's root element; refuses (OpenImmoRefused) what is not well-formed XML or passes a limit. */
export function parseXml(
  input: string | Buffer,
  limits: Pick<OpenImmoLimits, 'maxXmlBytes' | 'maxDepth' | 'maxElements' | 'maxTextChars'>,
): XmlElement {
  const text = typeof input === 'string' ? input : decodeXml(input, limits);
  if (text.length > limits.maxXmlBytes)
    throw new OpenImmoRefused(413, `the XML has ${text.length} characters, more than the limit of ${limits.maxXmlBytes} (maxXmlBytes)`);
  // An undeclared prefix (`imo:` without xmlns:imo) is common enough to be read rather than refused.
  const parser = new SaxesParser({ xmlns: true, position: true, resolvePrefix: (prefix: string) => `urn:immogate:undeclared:${prefix}` });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  const where = () => `line ${parser.line}, column ${parser.column + 1}`;

  const tooLong = (what: string) =>
    new OpenImmoRefused(413, `${what} at ${where()} is longer than ${limits.maxTextChars} characters (maxTextChars)`);
  const appendText = (chunk: string) => {
    const top = stack[stack.length - 1];
    if (!top) return; // whitespace or a comment's neighbour outside the root; saxes refuses real text there
    if (top.text.length + chunk.length > limits.maxTextChars) throw tooLong(`the text of <${top.name}>`);
    top.text += chunk;
  };

  parser.on('doctype', () => {
    throw new OpenImmoRefused(
      400,
      `DTDs are not accepted: the XML has a <!DOCTYPE> at ${where()}; OpenImmo needs none, remove it (entities other than &amp; &lt; &gt; &quot; &apos; and character references are not expanded)`,
    );
  });
  parser.on('opentagstart', () => {
    elements += 1;
    if (elements > limits.maxElements)
      throw new OpenImmoRefused(413, `the XML has more than ${limits.maxElements} elements (maxElements); send fewer listings per file`);
    if (stack.length + 1 > limits.maxDepth)
      throw new OpenImmoRefused(413, `the XML nests elements more than ${limits.maxDepth} deep at ${where()} (maxDepth)`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === 'xmlns' || attribute.name === 'xmlns') continue;
      if (attribute.value.length > limits.maxTextChars) throw tooLong(`the attribute ${attribute.name} of <${tag.name}>`);
      attributes[attribute.local] = attribute.value;
    }
    const element: XmlElement = { name: tag.local, attributes, children: [], text: '', path: '' };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(element);
    else root = element;
    // A self-closing tag gets its closetag event right after, so it is pushed like any other.
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', appendText);
  parser.on('cdata', appendText);
  parser.on('error', (error) => {
    throw new OpenImmoRefused(400, `the XML is not well-formed: ${readable(error.message)}`);
  });

  parser.write(text).close();
  if (!root) throw new OpenImmoRefused(400, 'the XML has no root element');
  assignPaths(root, `/${root.name}`);
  return root;
}

/** saxes says `12:5: undefined entity.`; the developer reads `line 12, column 6: undefined entity`. */
function readable(message: string): string {
  const match = /^(\d+):(\d+): (.*?)\.?$/s.exec(message);
  return match ? `line ${match[1]}, column ${Number(match[2]) + 1}: ${match[3]}` : message;
}

function assignPaths(element: XmlElement, path: string): void {
  element.path = path;
  const counts = new Map<string, number>();
  for (const child of element.children) counts.set(child.name, (counts.get(child.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const child of element.children) {
    const position = (seen.get(child.name) ?? 0) + 1;
    seen.set(child.name, position);
    const indexed = ALWAYS_INDEXED.has(child.name) || (counts.get(child.name) ?? 0) > 1;
    assignPaths(child, `${path}/${child.name}${indexed ? `[${position}]` : ''}`);
  }
}

// --- Reading the tree ----------------------------------------------------------------------------

/** The first child of that local name. */
export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((candidate) => candidate.name === name);
}

/** Every child of that local name, in document order. */
export function childrenNamed(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((candidate) => candidate.name === name) : [];
}

/** An element with no text, no attribute and no child that is not itself empty: what a sender writes for "nothing". */
export function isEmpty(element: XmlElement): boolean {
  return element.text.trim() === '' && Object.keys(element.attributes).length === 0 && element.children.every(isEmpty);
}
