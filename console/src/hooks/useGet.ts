/*
 * A GET of the console's backend as page state: the answer, the problem, whether a call is under
 * way, and reload. A later path replaces an earlier one whose answer comes late.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload(): void;
}

/** GETs `path` (nothing when null) whenever it or `again` changes, or reload is called. */
export function useGet<T>(path: string | null, again?: unknown): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  // tick and again are signals to read again.
  useEffect(() => {
    if (path === null) {
      setState({ loading: false });
      return;
    }
    const call = ++latest.current;
    setState((previous) => ({ data: previous.data, loading: true }));
    get<T>(path).then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error: unknown) => call === latest.current && setState({ error, loading: false }),
    );
  }, [path, tick, again]);
  return { ...state, reload: () => setTick((value) => value + 1) };
}
