/*
 * Reads an OpenImmo file on a worker thread (readWorker.ts) and gives back what crossed as plain
 * bytes as Buffers again: the ZIP's files and the attachments' inline contents.
 */
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

/** The transfer and files of `payload`, or the refusal of the whole file. */
export async function readFile(
  payload: Buffer,
  kind: 'zip' | 'xml',
  limits: OpenImmoLimits,
): Promise<ReadFile | { status: 400 | 413 | 415; reason: string }> {
  const outcome = await threads.run<ReadOutcome>({ payload, kind, limits });
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
