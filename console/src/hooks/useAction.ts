/* A button's call (POST, PUT, DELETE) as page state: under way, its answer or its problem. */
import { useState } from 'preact/hooks';

export interface Action<T> {
  busy: boolean;
  result?: T;
  error?: unknown;
  /** Runs `work`; its answer or problem replaces the previous one. Resolves to the answer, or undefined on a problem. */
  run(work: () => Promise<T>): Promise<T | undefined>;
  clear(): void;
}

export function useAction<T>(): Action<T> {
  const [state, setState] = useState<{ busy: boolean; result?: T; error?: unknown }>({ busy: false });
  return {
    ...state,
    async run(work) {
      setState({ busy: true });
      try {
        const result = await work();
        setState({ busy: false, result });
        return result;
      } catch (error) {
        setState({ busy: false, error });
        return undefined;
      }
    },
    clear: () => setState({ busy: false }),
  };
}
