/*
 * Where a server's CPU went during the measured runs, read from the .cpuprofile files that
 * `node --cpu-prof` writes when a process exits: the busy time per request, split into the parts
 * of a request's path (HTTP, JSON parse, validation, token, SQL driver, serialisation, our modules,
 * GC), and the functions with the most self time.
 */
import fs from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  scriptId: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** What V8 writes: a tree of frames, and the leaf node of each sample with the µs since the previous one. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * A stretch of time in µs of CLOCK_MONOTONIC, the clock of both process.hrtime and the profiles'
 * timestamps, so that windows taken in run.ts select the samples of other processes.
 */
export interface Window {
  from: number;
  to: number;
}

export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export const CATEGORIES = [
  'HTTP parse + Fastify routing',
  'JSON parse',
  'schema validation',
  'token check',
  'SQL driver',
  'serialisation',
  'our code',
  'GC',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

interface Kind {
  category: Category;
  /** Which module of ours, which package, which kind of native time. */
  detail: string;
}

/**
 * Packages by the part of a request they serve. Their own callees (node internals, builtins) count
 * with them; light-my-request (fastify.inject) serves no request from the network and stays "other".
 */
const PACKAGES: Record<string, Category> = {
  fastify: 'HTTP parse + Fastify routing',
  'find-my-way': 'HTTP parse + Fastify routing',
  'fast-querystring': 'HTTP parse + Fastify routing',
  'fast-decode-uri-component': 'HTTP parse + Fastify routing',
  'toad-cache': 'HTTP parse + Fastify routing',
  '@fastify/forwarded': 'HTTP parse + Fastify routing',
  '@fastify/proxy-addr': 'HTTP parse + Fastify routing',
  '@fastify/error': 'HTTP parse + Fastify routing',
  '@fastify/rate-limit': 'HTTP parse + Fastify routing',
  'secure-json-parse': 'JSON parse',
  ajv: 'schema validation',
  'ajv-formats': 'schema validation',
  'fast-uri': 'schema validation',
  'fast-deep-equal': 'schema validation',
  '@fastify/ajv-compiler': 'schema validation',
  jose: 'token check',
  pg: 'SQL driver',
  'pg-protocol': 'SQL driver',
  'pg-types': 'SQL driver',
  'pg-pool': 'SQL driver',
  'postgres-array': 'SQL driver',
  'postgres-bytea': 'SQL driver',
  'postgres-date': 'SQL driver',
  'postgres-interval': 'SQL driver',
  'pg-int8': 'SQL driver',
  'fast-json-stringify': 'serialisation',
  '@fastify/fast-json-stringify-compiler': 'serialisation',
};

/** Our modules that are one of the specific parts rather than "our code". */
const OUR_MODULES: [prefix: string, category: Category][] = [
  ['platform/auth/', 'token check'],
  ['platform/http/jsonBody.js', 'JSON parse'],
  ['platform/http/validation.js', 'schema validation'],
];

const HTTP = 'HTTP parse + Fastify routing';

function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const parts = url.slice(at + '/node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** The part of a request one frame belongs to, or undefined for frames that count with their caller (node internals, builtins). */
function kindOf(frame: CallFrame): Kind | undefined {
  const { url, functionName } = frame;
  const pkg = packageOf(url);
  if (pkg !== undefined) return { category: PACKAGES[pkg] ?? 'other', detail: pkg };
  // Ajv's compiled validators, evaluated (no URL) or generated ahead of time, are named validate<N>.
  if (/^validate\d+$/.test(functionName) && (url === '' || url.includes('/dist/')))
    return { category: 'schema validation', detail: 'validators' };
  const ours = url.indexOf('/dist/src/');
  if (ours >= 0) {
    const module = url.slice(ours + '/dist/src/'.length);
    const specific = OUR_MODULES.find(([prefix]) => module.startsWith(prefix));
    return { category: specific ? specific[1] : 'our code', detail: module };
  }
  if (url.startsWith('node:_http_') || url === 'node:http') return { category: HTTP, detail: 'node:http' };
  // Other evaluated code is fast-json-stringify's: its serializers are built with new Function.
  if (url === '' && frame.scriptId !== '0') return { category: 'serialisation', detail: 'serializers' };
  return undefined;
}

/**
 * One sample's part: the innermost frame that belongs to one, so a library's callees count with
 * it and a callback of ours that a library calls counts as ours. Two exceptions: our functions
 * that a validator or a serializer calls (custom keywords, toJSON) count with it, and the socket
 * writes of our database layer (pipeline mode corks pg's socket and flushes it itself) count as
 * SQL driver.
 */
function categorise(stack: CallFrame[]): Kind | 'idle' {
  const leaf = stack[0]!;
  if (leaf.functionName === '(idle)') return 'idle';
  if (leaf.functionName === '(garbage collector)') return { category: 'GC', detail: 'GC' };
  if (leaf.functionName === '(program)') return { category: 'other', detail: '(program): native code outside JS' };
  let socketWrite = false;
  for (let i = 0; i < stack.length; i++) {
    const frame = stack[i]!;
    if (frame.url === 'node:net') socketWrite = true;
    const kind = kindOf(frame);
    if (!kind) continue;
    if (kind.category !== 'our code') return kind;
    if (socketWrite && kind.detail.startsWith('platform/db/')) return { category: 'SQL driver', detail: `socket writes of ${kind.detail}` };
    for (const caller of stack.slice(i + 1)) {
      const above = kindOf(caller);
      if (!above) continue;
      if (above.category === 'schema validation' || above.category === 'serialisation') return above;
      break;
    }
    return kind;
  }
  if (leaf.url.startsWith('node:')) return { category: 'other', detail: 'node internals' };
  return { category: 'other', detail: leaf.url === '' ? 'builtins and native' : file(leaf) };
}

export interface Breakdown {
  files: string[];
  /** µs of samples inside the windows, idle included. */
  sampledUs: number;
  busyUs: number;
  /** µs by category, and within each by detail (module, package). */
  categories: Map<Category, { us: number; details: Map<string, number> }>;
  /** µs of self time by function ("name location"). */
  selfUs: Map<string, number>;
}

/** Where a frame's code lives, short: from node_modules or dist/ on, or what kind of code has no URL. */
function file(frame: CallFrame): string {
  const { url } = frame;
  const pkg = url.lastIndexOf('/node_modules/');
  const ours = url.indexOf('/dist/');
  return url === ''
    ? frame.scriptId === '0'
      ? '(native)'
      : '(evaluated)'
    : pkg >= 0
      ? url.slice(pkg + '/node_modules/'.length)
      : ours >= 0
        ? url.slice(ours + 1)
        : url;
}

function location(frame: CallFrame): string {
  return frame.lineNumber >= 0 ? `${file(frame)}:${frame.lineNumber + 1}` : file(frame);
}

/** Adds the samples of `profile` that fall inside `windows` to `into`. */
function add(into: Breakdown, profile: CpuProfile, windows: readonly Window[]): void {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const kinds = new Map<number, Kind | 'idle'>();
  const kindOfNode = (id: number) => {
    let kind = kinds.get(id);
    if (kind === undefined) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) stack.push(nodes.get(at)!.callFrame);
      kind = categorise(stack);
      kinds.set(id, kind);
    }
    return kind;
  };
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (us <= 0 || !windows.some((window) => time >= window.from && time < window.to)) continue;
    into.sampledUs += us;
    const id = profile.samples[i]!;
    const kind = kindOfNode(id);
    if (kind === 'idle') continue;
    into.busyUs += us;
    const category = into.categories.get(kind.category) ?? { us: 0, details: new Map<string, number>() };
    category.us += us;
    category.details.set(kind.detail, (category.details.get(kind.detail) ?? 0) + us);
    into.categories.set(kind.category, category);
    const frame = nodes.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${location(frame)}`;
    into.selfUs.set(name, (into.selfUs.get(name) ?? 0) + us);
  }
}

/** The samples of every file inside the windows (the measured runs), added up. */
export function breakdown(files: readonly string[], windows: readonly Window[]): Breakdown {
  const result: Breakdown = { files: [...files], sampledUs: 0, busyUs: 0, categories: new Map(), selfUs: new Map() };
  for (const file of files) add(result, JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, windows);
  return result;
}

const DETAILS_SHOWN = 8;
const TOP = 20;

/** The table of where each request's CPU goes, as text. */
export function describeBreakdown(
  scenario: string,
  result: Breakdown,
  figures: { requests: number; windowUs: number; postgresCpuUsPerRequest?: number | undefined },
): string {
  const { requests } = figures;
  const perRequest = (us: number) => (requests > 0 ? (us / requests).toFixed(1) : '-');
  const share = (us: number) => (result.busyUs > 0 ? `${((us / result.busyUs) * 100).toFixed(1)}%` : '-');
  const row = (label: string, us: number) => `${label.padEnd(72)} ${perRequest(us).padStart(9)} ${share(us).padStart(7)}`;
  const lines = [
    `${scenario}: CPU per request, from ${result.files.length} profile(s) over the measured runs (${(figures.windowUs / 1e6).toFixed(1)} s of runs, ${requests} requests answered)`,
    ...result.files.map((file) => `  ${file}`),
    '',
    row('immogate busy (profile total minus idle samples), µs/request', result.busyUs),
    `${'PostgreSQL processes (utime + stime from /proc), µs/request'.padEnd(72)} ${
      figures.postgresCpuUsPerRequest === undefined ? '-'.padStart(9) : figures.postgresCpuUsPerRequest.toFixed(1).padStart(9)
    }`,
    '',
    `${'category'.padEnd(72)} ${'µs/req'.padStart(9)} ${'share'.padStart(7)}`,
  ];
  for (const name of CATEGORIES) {
    const category = result.categories.get(name);
    lines.push(row(name, category?.us ?? 0));
    if (!category || name === 'GC') continue;
    const details = [...category.details].sort((a, b) => b[1] - a[1]);
    for (const [detail, us] of details.slice(0, DETAILS_SHOWN)) lines.push(row(`    ${detail}`, us));
    const rest = details.slice(DETAILS_SHOWN).reduce((sum, [, us]) => sum + us, 0);
    if (rest > 0) lines.push(row(`    ${details.length - DETAILS_SHOWN} more`, rest));
  }
  lines.push(
    '',
    `top ${TOP} functions by self time`,
    `${'function and location'.padEnd(72)} ${'µs/req'.padStart(9)} ${'share'.padStart(7)}`,
  );
  for (const [name, us] of [...result.selfUs].sort((a, b) => b[1] - a[1]).slice(0, TOP)) lines.push(row(name.slice(0, 72), us));
  return `${lines.join('\n')}\n`;
}
