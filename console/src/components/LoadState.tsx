/* What a page says while its data loads, or when loading it failed. */
import type { Loaded } from '../hooks/useGet';
import { ProblemView } from './Problem';

export function LoadState({ loaded, what }: { loaded: Loaded<unknown>; what: string }) {
  if (loaded.error !== undefined) return <ProblemView error={loaded.error} />;
  if (loaded.loading && loaded.data === undefined)
    return (
      <p class="muted" role="status">
        Loading {what}…
      </p>
    );
  return null;
}
