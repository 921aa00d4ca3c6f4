/*
 * Loaded into every test file's process (test/run.ts): once the file's after hooks start, a
 * process still alive a minute later holds something open that its tests left (a server, a
 * pool's sockets, a timer). It would keep the run waiting forever; instead the file fails,
 * naming what is left.
 */
import { after } from 'node:test';

// A minute: longer than any file's teardown; its own test sets less.
const GRACE_MS = Number(process.env.IMMOGATE_TEST_LEAK_GRACE_MS ?? 60_000);

// Only in the processes that run a test file, not in the runner that starts them.
if (process.env.NODE_TEST_CONTEXT !== undefined) after(armWatchdog);

function armWatchdog(): void {
  setTimeout(() => {
    // The process's own stdio pipes are not the file's.
    const open = process.getActiveResourcesInfo().filter((resource) => resource !== 'PipeWrap' && resource !== 'TTYWrap');
    process.stderr.write(`left open by this file's tests ${GRACE_MS / 1000} s after they ended: ${open.join(', ') || 'unknown'}\n`);
    process.exit(1);
  }, GRACE_MS).unref();
}
