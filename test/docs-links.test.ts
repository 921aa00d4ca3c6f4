/*
 * Every relative link of the README and of docs/ leads somewhere: the file exists, and a #fragment
 * names a heading of the Markdown file it points into, as GitHub makes a heading's anchor.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from './helpers.js';

const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a page outside fenced blocks and inline code, where a link is a link. */
function prose(text: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) lines.push(line.replace(/`[^`]*`/g, ''));
  }
  return lines;
}

/**
 * The anchors GitHub gives a page's headings: the heading's text as rendered, lower case, without
 * punctuation but `-` and `_`, each space a `-`; a repeated one gets `-1`, `-2`, ...
 */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const rendered = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  page: string;
  target: string;
}

function relativeLinksOf(page: string): Link[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, page), 'utf8');
  return prose(text)
    .flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? ''))
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ page, target }));
}

describe('the links of the README and docs/', () => {
  const links = PAGES.flatMap(relativeLinksOf);

  it('are there to check: the README links into docs/', () => {
    assert.ok(
      links.some((link) => link.page === 'README.md' && link.target.startsWith('docs/')),
      JSON.stringify(links),
    );
  });

  it('each lead to a file that exists, and to a heading of it when they name one', () => {
    const broken: string[] = [];
    for (const { page, target } of links) {
      const [file = '', fragment] = target.split('#');
      const resolved = file === '' ? path.join(REPO_ROOT, page) : path.resolve(path.dirname(path.join(REPO_ROOT, page)), decodeURI(file));
      if (!fs.existsSync(resolved)) {
        broken.push(`${page}: ${target}: no file ${path.relative(REPO_ROOT, resolved)}`);
        continue;
      }
      if (fragment === undefined) continue;
      if (!resolved.endsWith('.md')) {
        broken.push(`${page}: ${target}: a #fragment into a file that is not Markdown`);
        continue;
      }
      const anchors = anchorsOf(fs.readFileSync(resolved, 'utf8'));
      if (!anchors.has(decodeURIComponent(fragment)))
        broken.push(`${page}: ${target}: no heading #${fragment} in ${path.relative(REPO_ROOT, resolved)}`);
    }
    assert.deepEqual(broken, []);
  });

  it('make anchors as GitHub does', () => {
    const anchors = anchorsOf('# Idempotent writes: Idempotency-Key\n## `immogate clients create`\n## Walkthrough\n## Walkthrough\n');
    assert.deepEqual([...anchors], ['idempotent-writes-idempotency-key', 'immogate-clients-create', 'walkthrough', 'walkthrough-1']);
  });
});
