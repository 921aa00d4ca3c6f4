/*
 * Paging. The APIs page with opaque cursors that only go forward, so the pager keeps the cursors
 * of the pages already seen to go back; lists an API answers whole (a week of token counts) are
 * paged here, in the browser.
 */
import { useState } from 'preact/hooks';

export interface Cursor {
  /** The cursor of the page shown; undefined for the first. */
  current: string | undefined;
  /** 1 for the first page. */
  page: number;
  next(cursor: string): void;
  previous(): void;
  /** Back to the first page (when a filter changes). */
  reset(): void;
}

export function useCursor(): Cursor {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  return {
    current: stack[stack.length - 1],
    page: stack.length,
    next: (cursor) => setStack([...stack, cursor]),
    previous: () => setStack(stack.length > 1 ? stack.slice(0, -1) : stack),
    reset: () => setStack([undefined]),
  };
}

export function Pager({
  label,
  page,
  onPrevious,
  onNext,
  shown,
}: {
  label: string;
  page: number;
  onPrevious?: () => void;
  onNext?: () => void;
  /** What the page holds, e.g. "20 classifieds". */
  shown?: string;
}) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" onClick={onPrevious} disabled={!onPrevious}>
        <span aria-hidden="true">← </span>Previous
      </button>
      <span class="pager-page">
        Page {page}
        {shown ? <span class="muted"> · {shown}</span> : null}
      </span>
      <button type="button" onClick={onNext} disabled={!onNext}>
        Next<span aria-hidden="true"> →</span>
      </button>
    </nav>
  );
}

/** A cursor page's pager: Next when the answer has a next cursor. */
export function CursorPager({
  label,
  cursor,
  next,
  shown,
}: {
  label: string;
  cursor: Cursor;
  next: string | undefined | null;
  shown?: string;
}) {
  return (
    <Pager
      label={label}
      page={cursor.page}
      shown={shown}
      onPrevious={cursor.page > 1 ? cursor.previous : undefined}
      onNext={next ? () => cursor.next(next) : undefined}
    />
  );
}

/** A list answered whole, shown `size` items a page. */
export function useLocalPages<T>(items: readonly T[], size = 20): { items: T[]; pager: (label: string) => preact.JSX.Element } {
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages);
  return {
    items: items.slice((current - 1) * size, current * size),
    pager: (label) => (
      <Pager
        label={label}
        page={current}
        shown={`${items.length} in all, ${pages} page${pages === 1 ? '' : 's'}`}
        onPrevious={current > 1 ? () => setPage(current - 1) : undefined}
        onNext={current < pages ? () => setPage(current + 1) : undefined}
      />
    ),
  };
}
