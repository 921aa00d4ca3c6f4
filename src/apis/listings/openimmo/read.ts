/*
 * Reads an OpenImmo file on a worker thread (readWorker.ts) and gives back what crossed as plain
 * bytes as Buffers again: the ZIP's files and the attachments' inline contents.
 */
import { deadline } from '../../../platform/deadline.js';
import { WorkerThreads } from '../../../platform/workerThreads.js';
import type { OpenImmoLimits } from './limits.js';
import type { Transfer } from './mapping.js';
import type { ReadOutcome } from './readWorker.js';

export interface ReadFile {
  transfer: Transfer;
  files: Map<string, Buffer>;
  xmlName?: string;
}

// One pool per process; its idle threads end after a minute and never hold the process open.
const threads = new WorkerThreads(new URL('./readWorker.js', import.meta.url));

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * How long reading one file may take. Every part of it is bounded (limits.ts), so a file within the
 * limits reads in seconds; past this the machine is overloaded, and the import is tried again later
 * rather than holding a thread.
 */
export const READ_DEADLINE_MS = 60_000;

/**
 * The transfer and files of `payload`, or the refusal of the whole file. Throws when reading took
 * longer than `deadlineMs` (the thread is ended), or when `signal` (the worker stopping) aborted it.
 */
export async function readFile(
  payload: Buffer,
  kind: 'zip' | 'xml',
  limits: OpenImmoLimits,
  signal?: AbortSignal,
  deadlineMs = READ_DEADLINE_MS,
): Promise<ReadFile | { status: 400 | 413 | 415; reason: string }> {
  const limit = deadline(deadlineMs, signal);
  const outcome = await threads
    .run<ReadOutcome>({ payload, kind, limits }, limit.signal)
    .catch((error: unknown) => {
      if (signal?.aborted || !limit.signal.aborted) throw error;
      throw new Error(`reading the file took longer than ${deadlineMs / 1000} s; the import is tried again later`);
    })
    .finally(() => limit.end());
  if ('refused' in outcome) return outcome.refused;
  const { transfer, files, xmlName } = outcome.read;
  for (const provider of transfer.providers) {
    for (const object of provider.objects) {
      for (const attachment of object.attachments) if (attachment.inline !== undefined) attachment.inline = asBuffer(attachment.inline);
    }
  }
  const buffers = new Map([...files].map(([name, bytes]) => [name, asBuffer(bytes)]));
  return { transfer, files: buffers, ...(xmlName !== undefined ? { xmlName } : {}) };
}
