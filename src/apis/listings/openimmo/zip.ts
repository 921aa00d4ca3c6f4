/*
 * An OpenImmo package: one XML, and in a ZIP the files its `anhang` elements name. Read in memory
 * (nothing is written to disk) and in two passes: the central directory first, where every entry's
 * name, sizes and method are refused or accepted before a single byte is inflated; then the
 * inflation, which yauzl stops at each entry's declared size (validateEntrySizes), so a forged
 * header cannot make an entry larger than what the first pass accepted.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { type OpenImmoLimits, OpenImmoRefused, RATIO_FLOOR_BYTES } from './limits.js';
import { decodeXml } from './xml.js';

export interface OpenImmoPackage {
  xml: string;
  /** The XML's entry name inside the ZIP; absent for a plain XML upload. */
  xmlName?: string;
  /** The other files, keyed by their normalized entry name (forward slashes, no leading `./`), case kept. */
  files: Map<string, Buffer>;
}

/** Refuses (OpenImmoRefused) a package that is not one XML plus files within the limits. */
export async function readPackage(body: Buffer, kind: 'zip' | 'xml', limits: OpenImmoLimits): Promise<OpenImmoPackage> {
  if (body.length > limits.maxBodyBytes)
    throw new OpenImmoRefused(413, `the upload has ${body.length} bytes, more than the limit of ${limits.maxBodyBytes} (maxBodyBytes)`);
  if (kind === 'xml') return { xml: decodeXml(body, limits), files: new Map() };

  const zip = await openZip(body);
  try {
    const entries = await listEntries(zip, limits);
    const xmlEntry = entries.find((entry) => isXmlName(entry.fileName)) as Entry;
    const files = new Map<string, Buffer>();
    let xml = '';
    for (const entry of entries) {
      const bytes = await inflate(zip, entry);
      if (entry === xmlEntry) xml = decodeXml(bytes, limits);
      else files.set(normalizeName(entry.fileName), bytes);
    }
    return { xml, xmlName: normalizeName(xmlEntry.fileName), files };
  } finally {
    zip.close();
  }
}

function openZip(body: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(body, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true }, (error, zip) => {
      if (error || !zip) reject(new OpenImmoRefused(400, `the upload is not a readable ZIP file: ${error?.message ?? 'no archive'}`));
      else resolve(zip);
    });
  });
}

/** Every file entry, once the whole directory passed the checks that need no inflating. */
function listEntries(zip: ZipFile, limits: OpenImmoLimits): Promise<Entry[]> {
  if (zip.entryCount > limits.maxEntries) {
    return Promise.reject(
      new OpenImmoRefused(413, `the ZIP has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries} (maxEntries)`),
    );
  }
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    const names = new Set<string>();
    let declared = 0;
    const refuse = (error: unknown) => {
      zip.removeAllListeners();
      zip.on('error', () => undefined);
      reject(error instanceof OpenImmoRefused ? error : zipError(error));
    };
    zip.on('error', refuse);
    zip.on('entry', (entry: Entry) => {
      try {
        if (!isSkipped(entry.fileName)) {
          checkEntry(entry, limits);
          const name = normalizeName(entry.fileName);
          if (names.has(name)) throw new OpenImmoRefused(400, `the ZIP holds the entry ${name} twice`);
          names.add(name);
          declared += entry.uncompressedSize;
          if (declared > limits.maxUncompressedBytes) {
            throw new OpenImmoRefused(
              413,
              `the ZIP's entries declare more than ${limits.maxUncompressedBytes} bytes uncompressed (maxUncompressedBytes)`,
            );
          }
          entries.push(entry);
        }
        zip.readEntry();
      } catch (error) {
        refuse(error);
      }
    });
    zip.on('end', () => {
      const xmls = entries.filter((entry) => isXmlName(entry.fileName)).map((entry) => normalizeName(entry.fileName));
      if (xmls.length === 0) reject(new OpenImmoRefused(400, 'the ZIP holds no OpenImmo XML (no entry ending in .xml)'));
      else if (xmls.length > 1)
        reject(new OpenImmoRefused(400, `the ZIP holds ${xmls.length} XML files: ${xmls.join(', ')}; send one per package`));
      else resolve(entries);
    });
    zip.readEntry();
  });
}

function checkEntry(entry: Entry, limits: OpenImmoLimits): void {
  const name = entry.fileName;
  if (entry.isEncrypted()) throw new OpenImmoRefused(400, `the ZIP entry ${name} is encrypted; send the package without a password`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new OpenImmoRefused(
      400,
      `the ZIP entry ${name} uses compression method ${entry.compressionMethod}; only stored (0) and deflated (8) entries are read`,
    );
  }
  if (isXmlName(name) && entry.uncompressedSize > limits.maxXmlBytes) {
    throw new OpenImmoRefused(
      413,
      `the XML ${name} declares ${entry.uncompressedSize} bytes, more than the limit of ${limits.maxXmlBytes} (maxXmlBytes)`,
    );
  }
  if (entry.uncompressedSize > RATIO_FLOOR_BYTES) {
    // A compressed size of 0 for data that is not empty is not a ratio but a forgery: refused likewise.
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (ratio > limits.maxEntryRatio) {
      throw new OpenImmoRefused(
        413,
        `the ZIP entry ${name} declares ${entry.uncompressedSize} bytes from ${entry.compressedSize} compressed, a ratio over ${limits.maxEntryRatio}:1 (maxEntryRatio)`,
      );
    }
  }
}

/** yauzl's name checks (absolute paths, drive letters, `..` segments) answered as a refusal that names the entry. */
function zipError(error: unknown): OpenImmoRefused {
  const message = error instanceof Error ? error.message : String(error);
  const named = /^(invalid relative path|absolute path|invalid characters in fileName): (.*)$/s.exec(message);
  if (named) {
    return new OpenImmoRefused(
      400,
      `the ZIP entry name ${named[2]} is not allowed (${named[1]}): entries must be relative paths without .. segments or drive letters`,
    );
  }
  if (/size mismatch/.test(message)) return new OpenImmoRefused(400, `the ZIP is damaged or forged: ${message}`);
  return new OpenImmoRefused(400, `the upload is not a readable ZIP file: ${message}`);
}

function inflate(zip: ZipFile, entry: Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream) {
        reject(new OpenImmoRefused(400, `the ZIP entry ${entry.fileName} cannot be read: ${error?.message ?? 'no data'}`));
        return;
      }
      const chunks: Buffer[] = [];
      let length = 0;
      stream.on('data', (chunk: Buffer) => {
        length += chunk.length;
        // yauzl errors past the declared size too; this keeps the bound even if that check were off.
        if (length > entry.uncompressedSize) stream.destroy(new Error('more data than its declared size'));
        else chunks.push(chunk);
      });
      stream.on('error', (cause: Error) =>
        reject(new OpenImmoRefused(400, `the ZIP entry ${entry.fileName} is damaged or lies about its size: ${cause.message}`)),
      );
      stream.on('end', () => resolve(Buffer.concat(chunks, length)));
    });
  });
}

/** Directories, and what macOS adds to a ZIP it makes (`__MACOSX/`, `._name`), which would count as a second XML. */
function isSkipped(name: string): boolean {
  const normalized = normalizeName(name);
  return normalized.endsWith('/') || normalized.startsWith('__MACOSX/') || /(^|\/)\._[^/]*$/.test(normalized);
}

function isXmlName(name: string): boolean {
  return name.toLowerCase().endsWith('.xml');
}

function normalizeName(name: string): string {
  let normalized = name.replaceAll('\\', '/');
  while (normalized.startsWith('./')) normalized = normalized.slice(2);
  return normalized.replace(/\/{2,}/g, '/');
}

/**
 * The file a `daten/pfad` names: relative to the ZIP root (what OpenImmo importers read), else
 * relative to the XML's folder (what a sender zipping a folder produces), each exactly and then
 * ignoring letter case (what a sender on Windows expects). A path leaving the package is nothing.
 */
export function findFile(files: ReadonlyMap<string, Buffer>, pfad: string, xmlName?: string): { name: string; data: Buffer } | undefined {
  const wanted = normalizeName(pfad.trim());
  if (wanted === '' || wanted.startsWith('/') || wanted.split('/').includes('..')) return undefined;
  const folder = xmlName?.includes('/') ? xmlName.slice(0, xmlName.lastIndexOf('/') + 1) : '';
  const candidates = folder ? [wanted, folder + wanted] : [wanted];
  for (const name of candidates) {
    const data = files.get(name);
    if (data) return { name, data };
  }
  const lowered = candidates.map((name) => name.toLowerCase());
  for (const [name, data] of files) if (lowered.includes(name.toLowerCase())) return { name, data };
  return undefined;
}
