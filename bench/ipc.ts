/*
 * Question and answer with a bench helper process over its IPC channel.
 */
import type { ChildProcess } from 'node:child_process';

/** Sends `message` to a bench helper process and resolves with its next message (its answer). */
export function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error(`the helper process exited before answering "${message}"`));
    child.once('exit', onExit);
    child.once('message', (answer: T) => {
      child.off('exit', onExit);
      resolve(answer);
    });
    child.send(message);
  });
}
