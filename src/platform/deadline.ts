/*
 * A deadline that also ends when a caller's signal aborts: the signal to hand to a call that must
 * stop at whichever comes first. The caller's signal is often long-lived (a worker's, for the
 * process's life), so it is followed through a listener that end() removes, not AbortSignal.any():
 * Node keeps each signal made that way in the long-lived source's set for ever (nodejs/node#55351),
 * and the worker's RSS grew 60 MB in 10 minutes.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Clears the timer and stops following the caller's signal: call it once the call ended. */
  end(): void;
}

/** Create it only once nothing can throw before end() is reached: a timer left behind holds the process open. */
export function deadline(ms: number, caller?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const callerAborted = () => controller.abort();
  caller?.addEventListener('abort', callerAborted, { once: true });
  if (caller?.aborted) controller.abort();
  return {
    signal: controller.signal,
    end() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', callerAborted);
    },
  };
}
