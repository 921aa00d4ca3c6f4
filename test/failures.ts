/*
 * A test reporter for test/run.ts, beside the TAP or spec one: it writes one line per failed test
 * (its file, its name, the first line of its error) for run.ts to print last. CI shows the tail of
 * a run's output, and a failure deep in a 10-minute TAP stream was not in it.
 */
import path from 'node:path';

interface FailEvent {
  type: string;
  data: { name: string; nesting: number; file?: string; details?: { error?: unknown } };
}

function firstLine(error: unknown): string {
  // The runner wraps a test's error: the test's own is its cause.
  const own = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const text = own instanceof Error ? own.message : String(own);
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 300);
}

export default async function* failures(source: AsyncIterable<FailEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A failed suite repeats its failed tests' failure; the tests themselves are named.
    const error = details?.error;
    if (error instanceof Error && (error as { failureType?: string }).failureType === 'subtestsFailed') continue;
    // Named as in the checkout (test/..., packages/client/test/...), not by the compiled copy under dist/.
    const where = file === undefined ? '' : `${path.relative(path.join(process.cwd(), 'dist'), file)}: `;
    yield `${where}${name}: ${firstLine(error)}\n`;
  }
}
