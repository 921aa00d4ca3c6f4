/*
 * A page of the console: its title in the document and as the h1, which takes focus when the page
 * is opened by navigation so a screen reader announces where it landed.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let firstPage = true;

export function Page({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · immogate console`;
  }, [title]);
  useEffect(() => {
    // The first page of a visit keeps the browser's own focus; later ones move it to their heading.
    if (firstPage) firstPage = false;
    else heading.current?.focus();
  }, []);
  return (
    <>
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions ? <div class="page-actions">{actions}</div> : null}
      </div>
      {children}
    </>
  );
}
