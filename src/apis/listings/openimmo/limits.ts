/*
 * The bounds of an OpenImmo intake and the refusal of a whole file. An upload comes from a CRM
 * that may be misconfigured or hostile; every bound below is checked before the work it bounds
 * (a ZIP's declared sizes before inflating, an element's depth before building it), so a file past
 * one costs little more than reading its headers.
 */

export interface OpenImmoLimits {
  /** The upload (a ZIP or a plain XML) as received. */
  maxBodyBytes: number;
  /** Entries of a ZIP, directories included. */
  maxEntries: number;
  /** The sum of the uncompressed sizes a ZIP declares: everything is held in memory, nothing goes to disk. */
  maxUncompressedBytes: number;
  /** The OpenImmo XML itself, uncompressed: it is decoded to one string and parsed into a tree. */
  maxXmlBytes: number;
  /** Uncompressed/compressed of one entry declaring more than RATIO_FLOOR_BYTES. */
  maxEntryRatio: number;
  /** `immobilie` elements in one document, across all providers. */
  maxObjects: number;
  /** Nesting of elements, the root counting 1. */
  maxDepth: number;
  /** Characters of one element's text (text and CDATA together) or of one attribute value. */
  maxTextChars: number;
  /** Elements in one document. */
  maxElements: number;
  /** `anhang` elements of one `immobilie`. */
  maxAttachmentsPerObject: number;
}

/**
 * Why these defaults. A real package is one XML plus JPEGs and PDFs, which do not compress: a
 * 64 MiB upload therefore holds about 64 MiB of files, and 256 MiB uncompressed leaves room for
 * an XML that compresses tenfold while bounding what one upload may hold in memory. 128 MiB of XML
 * is some 4000 richly described listings, twice maxObjects (2000, more than a large agency's stock;
 * a bigger one can send per-branch providers in several TEIL packages). 1000 entries cover those
 * listings' pictures at a package of the size the body allows. A deflated entry rarely exceeds
 * 20:1 (an XML) while a bomb reaches 1000:1: 200:1 sits between. The tree costs a few hundred
 * bytes an element: 1,000,000 elements (500 a listing at maxObjects; a listing with 30 pictures
 * and every flag uses about 300) stay within a few hundred MB. OpenImmo nests 7 deep; 32 leaves
 * the `user_defined_anyfield` slots room. 1 MiB of text is 250 times the longest text a listing
 * rule accepts and fits an inline (base64) picture of 750 KiB. 200 attachments is the listing
 * model's own bound on media.
 */
export const DEFAULT_OPENIMMO_LIMITS: Readonly<OpenImmoLimits> = Object.freeze({
  maxBodyBytes: 64 * 1024 * 1024,
  maxEntries: 1000,
  maxUncompressedBytes: 256 * 1024 * 1024,
  maxXmlBytes: 128 * 1024 * 1024,
  maxEntryRatio: 200,
  maxObjects: 2000,
  maxDepth: 32,
  maxTextChars: 1024 * 1024,
  maxElements: 1_000_000,
  maxAttachmentsPerObject: 200,
});

/** An entry declaring at most this many bytes is taken whatever its ratio: it cannot hurt. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/**
 * A refusal of the whole file, answered with its status: 400 a file that is not a readable
 * OpenImmo package, 413 one past a limit, 415 one in an encoding we do not read. The message is
 * shown to the CRM's developer as it is, so it says what was found and what to change.
 */
export class OpenImmoRefused extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    reason: string,
  ) {
    super(reason);
    this.name = 'OpenImmoRefused';
  }
}
