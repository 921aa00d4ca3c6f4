/*
 * The OpenImmo intake: a posted file is checked for what can be known at once (type, size, the
 * first bytes), stored with its work in one transaction and acknowledged with 202; a worker then
 * reads it (bounded: limits.ts), maps each `immobilie` and applies it (apply.ts), and a VOLL
 * transfer deletes the provider's listings the file no longer names. Nothing of the file is read
 * on the request's event loop but its first bytes.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { BlobStore } from '../../../platform/blobs/index.js';
import type { Outbound } from '../../../platform/delivery/outbound.js';
import { type TenantScope, withTenant } from '../../../platform/db/tenant.js';
import { decodeSeqToken, encodeSeqToken } from '../../../platform/http/cursors.js';
import { badRequest, notFound, Problem, tooManyRequests } from '../../../platform/http/problems.js';
import { mediaType } from '../../../platform/http/mediaType.js';
import type { Logger } from '../../../platform/log.js';
import type { ImportObject, ImportPage, ImportProblem, OpenImmoImport } from '../model/openimmo.js';
import { type ApplyContext, applyObject, retireListing } from './apply.js';
import {
  claimedPayload,
  finishImport,
  findImport,
  type ImportRow,
  insertImport,
  providerListingsNotIn,
  recentImports,
  unfinishedImports,
} from './imports.js';
import { DEFAULT_OPENIMMO_LIMITS, type OpenImmoLimits } from './limits.js';
import { readFile } from './read.js';

/** The content types a file may be posted as, by what they are. */
export const OPENIMMO_CONTENT_TYPES: Readonly<Record<string, 'zip' | 'xml'>> = {
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
  'application/xml': 'xml',
  'text/xml': 'xml',
};

/** Imports of one agency not finished yet, beyond which a new one is refused (429): each holds its file until done. */
export const MAX_UNFINISHED_IMPORTS = 5;
export const UNFINISHED_RETRY_AFTER_SECONDS = 10;

/** The kind of a Content-Type header, or a 415. */
export function kindOf(contentType: string | undefined): 'zip' | 'xml' {
  const type = mediaType(contentType);
  const kind = type === undefined ? undefined : OPENIMMO_CONTENT_TYPES[type];
  if (kind !== undefined) return kind;
  throw new Problem(
    415,
    'Unsupported media type',
    `Content type ${contentType ? `"${contentType}"` : '(none)'} is not accepted; send application/zip (an OpenImmo ZIP) or application/xml (the XML alone)`,
    { errors: [{ name: 'Content-Type', reason: 'must be application/zip or application/xml' }], errorSource: 'contentType' },
  );
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/** What the first bytes tell at once: a ZIP that is none, an XML that does not start like one. */
function checkFirstBytes(kind: 'zip' | 'xml', body: Buffer): void {
  const refuse = (reason: string) => {
    throw badRequest([{ name: '', reason }], 'body', 'The file is not an OpenImmo transfer');
  };
  if (body.length === 0) refuse('is empty: send the OpenImmo ZIP or XML.');
  if (kind === 'zip') {
    if (body.subarray(0, 4).equals(EMPTY_ZIP_MAGIC)) refuse('is an empty ZIP: it holds no OpenImmo XML.');
    if (!body.subarray(0, 4).equals(ZIP_MAGIC)) refuse('is not a ZIP file (it does not start with PK\\x03\\x04).');
    return;
  }
  const start = body
    .subarray(0, 64)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (!start.startsWith('<')) refuse('is not XML: it does not start with "<".');
}

/** POST: the import stored with its work; the 202 follows only once both are committed. */
export async function acceptImport(pool: pg.Pool, tenant: TenantScope, kind: 'zip' | 'xml', body: Buffer): Promise<string> {
  checkFirstBytes(kind, body);
  const id = randomUUID();
  await withTenant(pool, tenant, async (client) => {
    // Counted in the transaction that adds one: two racing posts may both pass at the bound, no more.
    if ((await unfinishedImports(client, tenant, MAX_UNFINISHED_IMPORTS)) >= MAX_UNFINISHED_IMPORTS) {
      throw tooManyRequests(
        UNFINISHED_RETRY_AFTER_SECONDS,
        `This agency has ${MAX_UNFINISHED_IMPORTS} OpenImmo imports still processing; post the next one when one of them is done`,
      );
    }
    await insertImport(client, tenant, { id, kind, payload: body });
  });
  return id;
}

function asImport(row: ImportRow): OpenImmoImport {
  return {
    importId: row.id,
    status: row.status,
    ...(row.umfang !== null ? { umfang: row.umfang } : {}),
    createdAt: row.created_at.toISOString(),
    ...(row.finished_at !== null ? { finishedAt: row.finished_at.toISOString() } : {}),
    sizeBytes: Number(row.size_bytes),
    objects: row.objects,
    ...(row.warnings.length > 0 ? { warnings: row.warnings } : {}),
    ...(row.problem !== null ? { problem: row.problem } : {}),
  };
}

export async function readImport(pool: pg.Pool, tenant: TenantScope, id: string): Promise<OpenImmoImport> {
  const row = await withTenant(pool, tenant, (client) => findImport(client, tenant, id));
  if (row === undefined) throw notFound(`No OpenImmo import with importId "${id}"`);
  return asImport(row);
}

export const IMPORTS_PAGE_SIZE = 20;

/** Runs of an import that ended in an error before it is failed: with the backoff, about half an hour. */
export const MAX_ATTEMPTS = 10;

/** The list: newest first, IMPORTS_PAGE_SIZE a page, a keyset token (platform/http/cursors.ts) of the last one's arrival. */
export async function listImports(pool: pg.Pool, tenant: TenantScope, pageToken?: string): Promise<ImportPage> {
  const before = pageToken === undefined ? undefined : decodeSeqToken('o', pageToken);
  if (pageToken !== undefined && before === undefined) {
    throw badRequest([{ name: 'nextPageToken', reason: 'is not a nextPageToken this endpoint returned.' }], 'requestParameter');
  }
  const rows = await withTenant(pool, tenant, (client) => recentImports(client, tenant, IMPORTS_PAGE_SIZE + 1, before));
  const page = rows.slice(0, IMPORTS_PAGE_SIZE);
  const last = page.at(-1);
  return {
    imports: page.map(asImport),
    nextPageToken: rows.length > IMPORTS_PAGE_SIZE && last ? encodeSeqToken('o', Number(last.seq)) : null,
  };
}

export interface RunContext {
  pool: pg.Pool;
  workerId: string;
  rules: ApplyContext['rules'];
  store: () => Promise<BlobStore>;
  outbound: Outbound;
  logger: Logger;
  limits?: OpenImmoLimits;
  signal?: AbortSignal;
}

function problemOf(refused: { status: 400 | 413 | 415; reason: string }): ImportProblem {
  const title = refused.status === 413 ? 'Payload too large' : refused.status === 415 ? 'Unsupported media type' : 'Bad request';
  return { status: refused.status, title, detail: refused.reason };
}

/**
 * Runs a claimed import to its end: every object applied in document order, then a VOLL
 * transfer's retirements, then the outcome recorded. Throws when that could not be done (the
 * database went away): the import goes back to the queue and runs again, which ends as once.
 */
export async function runImport(
  claimed: { id: string; environment: string; agency_id: string; kind: 'zip' | 'xml'; attempts: number },
  context: RunContext,
) {
  const { pool, workerId } = context;
  const tenant = { environment: claimed.environment, agencyId: claimed.agency_id } as TenantScope;
  const payload = await claimedPayload(pool, claimed.id, workerId);
  if (payload === undefined) return;
  if (claimed.attempts > MAX_ATTEMPTS) {
    // Each run ended in an error of ours (a database outage backs off too, for minutes): the file is given up, said so.
    const detail = `The import could not be applied in ${MAX_ATTEMPTS} attempts; quote its importId when reporting it`;
    await finishImport(pool, claimed.id, workerId, {
      status: 'FAILED',
      objects: [],
      problem: { status: 500, title: 'Internal server error', detail },
    });
    return;
  }
  const read = await readFile(payload, claimed.kind, context.limits ?? DEFAULT_OPENIMMO_LIMITS, context.signal);
  if (!('transfer' in read)) {
    await finishImport(pool, claimed.id, workerId, { status: 'FAILED', objects: [], problem: problemOf(read) });
    return;
  }
  const { transfer, files, xmlName } = read;
  const objects: ImportObject[] = [];
  for (const provider of transfer.providers) {
    const applying: ApplyContext = {
      pool,
      tenant,
      rules: context.rules,
      store: context.store,
      outbound: context.outbound,
      files,
      ...(xmlName !== undefined ? { xmlName } : {}),
      provider: provider.key,
      ...(context.signal !== undefined ? { signal: context.signal } : {}),
    };
    for (const object of provider.objects) {
      context.signal?.throwIfAborted();
      objects.push(await applyObject(object, applying));
    }
    if (transfer.umfang !== 'VOLL') continue;
    const named = provider.objects.flatMap((object) =>
      object.objektnrExtern !== undefined && object.action !== 'delete' ? [object.objektnrExtern] : [],
    );
    const absent = await withTenant(pool, tenant, (client) => providerListingsNotIn(client, tenant, provider.key, named));
    for (const listing of absent) {
      const retired = await retireListing(applying, listing, provider.path);
      if (retired !== undefined) objects.push(retired);
    }
  }
  const done = await finishImport(pool, claimed.id, workerId, {
    status: 'DONE',
    umfang: transfer.umfang,
    objects,
    warnings: transfer.warnings,
  });
  const counts: Record<string, number> = {};
  for (const object of objects) counts[object.action] = (counts[object.action] ?? 0) + 1;
  context.logger.info({ importId: claimed.id, recorded: done, ...counts }, 'OpenImmo import applied');
}
