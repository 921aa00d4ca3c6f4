/* The worker-thread side of jsonBody.ts: one large JSON body parsed and checked off the event loop. */
import { type JsonVerdict, judgeJson } from './jsonBody.js';

export default function judgeOnWorker(bytes: Uint8Array): JsonVerdict {
  return judgeJson(bytes);
}
