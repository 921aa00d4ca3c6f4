/*
 * The import graph of src/: the platform never imports an API, no API imports another, the
 * platform's own parts import only their layer and those below it (PLATFORM_LAYERS), and no
 * module imports itself through others (type-only imports count: a cycle of types is still a
 * tangle a reader has to unpick). Read from the TypeScript sources, so no build layout matters.
 * And the CLI loads the server only for the commands that run one. And no statement bounds a
 * subquery under IN (...) with a LIMIT: see `limitedSubqueriesUnderIn`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { WEBHOOK_SOURCES } from '../src/apis/commands.js';
import { API_MODULES } from '../src/apis/index.js';
import { deliverySourcesOf } from '../src/platform/module.js';
import { REPO_ROOT } from './helpers.js';

const SOURCE = path.join(REPO_ROOT, 'src');
// Static imports and re-exports (`from '...'`), side-effect imports and dynamic import() of relative modules.
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g;
// The same without dynamic import(): what loading a module loads with it. `import type` loads nothing.
const STATIC_SPECIFIER = /^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'|^import\s+'(\.{1,2}\/[^']+)'/gms;

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : [],
    );
}

/** Each module (path relative to src/) with the modules of src/ it imports. */
function importGraph(specifier = SPECIFIER): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SOURCE)) {
    const text = fs.readFileSync(file, 'utf8');
    const targets = [...text.matchAll(specifier)]
      .map((match) => path.resolve(path.dirname(file), (match[1] ?? match[2]) as string).replace(/\.js$/, '.ts'))
      .filter((target) => target.startsWith(SOURCE) && target.endsWith('.ts'));
    graph.set(path.relative(SOURCE, file), [...new Set(targets.map((target) => path.relative(SOURCE, target)))]);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan), each sorted. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The API folder a module belongs to (`apis/leads/routes/x.ts` → `leads`), if any. */
function apiOf(module: string): string | undefined {
  const [top, api, ...rest] = module.split(path.sep);
  return top === 'apis' && rest.length > 0 ? api : undefined;
}

/**
 * The layers of src/platform, bottom first (docs/architecture.md draws them): a module imports its
 * own layer and those below, never one above. Each folder or file directly under platform/ is in
 * exactly one.
 */
const PLATFORM_LAYERS: readonly { name: string; parts: readonly string[] }[] = [
  {
    name: 'foundations',
    parts: [
      'caught.ts',
      'deadline.ts',
      'log.ts',
      'memo.ts',
      'niceness.ts',
      'text.ts',
      'workerThreads.ts',
      'catalogue.ts',
      'dataDir.ts',
      'diskSpace.ts',
    ],
  },
  { name: 'database', parts: ['db'] },
  { name: 'secrets', parts: ['secrets'] },
  { name: 'records', parts: ['telemetry', 'listeners.ts'] },
  { name: 'work', parts: ['work'] },
  { name: 'metrics', parts: ['metrics.ts'] },
  { name: 'http', parts: ['http'] },
  { name: 'access', parts: ['auth', 'blobs'] },
  { name: 'delivery', parts: ['delivery'] },
  { name: 'feed and samples', parts: ['events', 'samples'] },
  { name: 'plug-in point', parts: ['module.ts'] },
  { name: 'assembly', parts: ['openapi.ts', 'operator.ts', 'backup.ts'] },
  { name: 'console', parts: ['console'] },
  { name: "platform's own declarations", parts: ['tasks.ts', 'sealedColumns.ts'] },
];

/** The folder or file directly under platform/ that `module` is part of (`platform/db/pool.ts` → `db`), if any. */
function platformPartOf(module: string): string | undefined {
  const [top, part] = module.split(path.sep);
  return top === 'platform' ? part : undefined;
}

/** Each import inside platform/ from a layer to a higher one, naming both modules and both layers. */
function upwardPlatformImports(graph: Map<string, string[]>): string[] {
  const layerOf = (module: string) => PLATFORM_LAYERS.findIndex((layer) => layer.parts.includes(platformPartOf(module) as string));
  return [...graph].flatMap(([module, targets]) => {
    const from = layerOf(module);
    // A part in no layer is named by the test of the layers' list.
    if (from < 0) return [];
    return targets
      .filter((target) => platformPartOf(target) !== undefined && layerOf(target) > from)
      .map(
        (target) =>
          `${module} (layer ${PLATFORM_LAYERS[from]?.name}) imports ${target} (layer ${PLATFORM_LAYERS[layerOf(target)]?.name}), a layer above it`,
      );
  });
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads every module', () => {
    assert.ok(graph.size > 100, `${graph.size} modules`);
    assert.ok((graph.get(path.join('apis', 'classifieds', 'index.ts')) ?? []).length > 0);
  });

  it('has no arrow from platform/ to apis/', () => {
    const upward = [...graph].flatMap(([module, targets]) =>
      module.startsWith(`platform${path.sep}`)
        ? targets.filter((target) => target.startsWith(`apis${path.sep}`)).map((target) => `${module} -> ${target}`)
        : [],
    );
    assert.deepEqual(upward, []);
  });

  it('has no arrow from one API to another', () => {
    const across = [...graph].flatMap(([module, targets]) => {
      const from = apiOf(module);
      return from === undefined
        ? []
        : targets.filter((target) => apiOf(target) !== undefined && apiOf(target) !== from).map((target) => `${module} -> ${target}`);
    });
    assert.deepEqual(across, []);
  });

  it('has no cycle', () => {
    assert.deepEqual(cycles(graph), []);
  });
});

describe('the layers of src/platform', () => {
  const graph = importGraph();

  it('hold every folder and file of platform/, each in one layer', () => {
    const parts = fs
      .readdirSync(path.join(SOURCE, 'platform'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
      .map((entry) => entry.name);
    const listed = PLATFORM_LAYERS.flatMap((layer) => layer.parts);
    assert.deepEqual(
      parts
        .filter((part) => !listed.includes(part))
        .map(
          (part) =>
            `src/platform/${part} is in no layer: add it to PLATFORM_LAYERS in test/architecture.test.ts, in the lowest layer above everything it imports`,
        ),
      [],
    );
    assert.deepEqual(
      listed.filter((part, index) => listed.indexOf(part) !== index || !parts.includes(part)),
      [],
      'each part of PLATFORM_LAYERS is listed once and exists',
    );
  });

  it('import only their own layer and those below it', () => {
    assert.deepEqual(upwardPlatformImports(graph), []);
  });
});

/** Every module that loading `module` loads (itself included). */
function loadedWith(graph: Map<string, string[]>, module: string, seen = new Set<string>()): Set<string> {
  if (seen.has(module)) return seen;
  seen.add(module);
  for (const next of graph.get(module) ?? []) loadedWith(graph, next, seen);
  return seen;
}

describe('the CLI', () => {
  it('loads the HTTP server, the worker and the API modules only for the commands that use them', () => {
    const loaded = loadedWith(importGraph(STATIC_SPECIFIER), 'cli.ts');
    assert.ok(loaded.has(path.join('platform', 'db', 'open.ts')), [...loaded].join(' '));
    const heavy = ['app.ts', 'runtime.ts', 'cluster.ts', path.join('apis', 'index.ts'), path.join('platform', 'work', 'worker.ts')];
    assert.deepEqual(
      heavy.filter((module) => loaded.has(module)),
      [],
    );
  });

  it('and the primary of immogate start, which serves nothing, loads neither', () => {
    const loaded = loadedWith(importGraph(STATIC_SPECIFIER), 'cluster.ts');
    const heavy = ['app.ts', 'runtime.ts', path.join('apis', 'index.ts'), path.join('platform', 'work', 'worker.ts')];
    assert.deepEqual(
      heavy.filter((module) => loaded.has(module)),
      [],
    );
  });

  it('names the webhook sources the API modules declare', () => {
    assert.deepEqual([...WEBHOOK_SOURCES].sort(), Object.keys(deliverySourcesOf(API_MODULES)).sort());
  });
});

/**
 * Each `IN (SELECT ... LIMIT ...)` in the SQL of src/, as `file: text`. Under an UPDATE or DELETE
 * such a subquery may be planned on the inner side of a join and run again per row; each run
 * skips the rows the statement has already changed (and, with SKIP LOCKED, rows others hold), so
 * the statement goes past its LIMIT: in CI a claim of 2 ran all 40 items of a test's stream at once. A
 * MATERIALIZED CTE runs once.
 */
function limitedSubqueriesUnderIn(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SOURCE)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\bIN\s*\(\s*SELECT\b/g)) {
      let depth = 0;
      let end = match.index;
      for (; end < text.length; end++) {
        if (text[end] === '(') depth++;
        else if (text[end] === ')' && --depth === 0) break;
      }
      const subquery = text.slice(match.index, end + 1);
      if (/\bLIMIT\b/.test(subquery)) found.push(`${path.relative(SOURCE, file)}: ${subquery.replace(/\s+/g, ' ')}`);
    }
  }
  return found;
}

describe('the SQL of src/', () => {
  it('bounds no subquery under IN (...) with a LIMIT: a batch goes through a MATERIALIZED CTE', () => {
    assert.deepEqual(limitedSubqueriesUnderIn(), []);
  });
});

/**
 * Each emitter of src/ that an outside failure makes emit 'error' (a pg client or pool, a socket
 * or server, a child process), as `file: name`, whose file does not listen for its 'error' as
 * often as it makes one of that name. An 'error' event nobody listens for throws: a database
 * killed under a start-up connection crashed the process with a stack instead of being retried.
 */
function emittersWithoutErrorListener(): string[] {
  const MADE =
    /\b(?:const|let)\s+(\w+)\s*=\s*(?:new pg\.(?:Client|Pool)\(|(?:net\.)?createServer\(|net\.(?:connect|createConnection)\(|tls\.connect\(|spawn\(|cluster\.fork\()/g;
  const missing: string[] = [];
  for (const file of sourceFiles(SOURCE)) {
    const text = fs.readFileSync(file, 'utf8');
    const made = new Map<string, number>();
    for (const match of text.matchAll(MADE)) made.set(match[1] as string, (made.get(match[1] as string) ?? 0) + 1);
    for (const [name, count] of made) {
      const listened = [...text.matchAll(new RegExp(`\\b${name}\\.(?:on|once)\\('error'`, 'g'))].length;
      if (listened < count) missing.push(`${path.relative(SOURCE, file)}: ${name}`);
    }
  }
  return missing;
}

describe('the emitters of src/', () => {
  it("each listens for its 'error': no outside failure throws from an event", () => {
    assert.deepEqual(emittersWithoutErrorListener(), []);
  });
});
