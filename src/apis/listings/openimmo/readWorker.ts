/*
 * The worker-thread side of reading an OpenImmo file (read.ts): unpacking, parsing and mapping a
 * file of up to the limits takes seconds of CPU, which on the worker's loop would hold every other
 * stream of the worker (webhooks, classified processing) that long. A refusal crosses back as data:
 * a class does not survive the structured clone.
 */
import { type OpenImmoLimits, OpenImmoRefused } from './limits.js';
import { mapTransfer, type Transfer } from './mapping.js';
import { parseXml } from './xml.js';
import { readPackage } from './zip.js';

export interface ReadTask {
  payload: Uint8Array;
  kind: 'zip' | 'xml';
  limits: OpenImmoLimits;
}

export type ReadOutcome =
  | { read: { transfer: Transfer; files: Map<string, Uint8Array>; xmlName?: string } }
  | { refused: { status: 400 | 413 | 415; reason: string } };

export default async function readOnWorker({ payload, kind, limits }: ReadTask): Promise<ReadOutcome> {
  const body = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  try {
    const { xml, files, xmlName } = await readPackage(body, kind, limits);
    const transfer = mapTransfer(parseXml(xml, limits), { limits });
    return { read: { transfer, files, ...(xmlName !== undefined ? { xmlName } : {}) } };
  } catch (error) {
    if (error instanceof OpenImmoRefused) return { refused: { status: error.status, reason: error.message } };
    throw error;
  }
}
