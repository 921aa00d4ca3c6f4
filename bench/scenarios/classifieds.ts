/*
 * The classifieds request scenarios: POST (one and two processes) and GET, with and without ETag.
 */
import type { Load } from '../driver.js';
import { USER_AGENT, CONNECTIONS, type Context, type Row, type Scenario } from './types.js';

function headers(context: Context): Record<string, string> {
  return { authorization: `Bearer ${context.token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' };
}

function postLoad(context: Context, base: string, token = context.token): Omit<Load, 'seconds'> {
  return {
    url: base,
    method: 'POST',
    path: '/caas/v4/classifieds',
    headers: { ...headers(context), authorization: `Bearer ${token}` },
    body: { classified: 'POST' },
    connections: CONNECTIONS,
  };
}

export const postClassifieds: Scenario = {
  name: 'post',
  about: 'POST /caas/v4/classifieds, ~5 KB classified with six media, unique offererEstateId per request, server only (no worker)',
  target: '>= 85% of baseline-b, p99 <= 50 ms (issue 25)',
  memory: true,
  sharedServer: true,
  met: (row) => (row.ofBaselineB === undefined ? undefined : row.ofBaselineB >= 0.85 && row.p99 <= 50),
  async setup(context) {
    return { load: postLoad(context, context.base) };
  },
};

/** The same load on two server processes sharing the port (what `immogate start --processes 2` runs). */
export const postTwoProcesses: Scenario = {
  name: 'post-2p',
  about: 'post, on two immogate processes sharing the port (node:cluster), server only',
  target: 'reference: 1 vs 2 processes (issue 10)',
  async setup(context) {
    const twin = await context.startImmogate({ BENCH_PROCESSES: '2' });
    // Its own address, so its own token audience.
    const token = await context.issueToken(twin.address, { root: '/caas/v4', agency: 'bench-agency', scopes: ['caas:*'] });
    return { load: postLoad(context, twin.address, token), stop: () => twin.stop() };
  },
  note(row, rows) {
    const one = rows.find((candidate) => candidate.scenario === 'post');
    return one ? `2 processes: ${(row.rps / one.rps).toFixed(2)}x the req/s of 1 (post)` : undefined;
  },
};

/** Posts one classified to read back; its ETag is "1". */
async function oneClassified(context: Context): Promise<string> {
  const { classifiedJson } = await import('../body.js');
  const response = await fetch(`${context.base}/caas/v4/classifieds`, {
    method: 'POST',
    headers: headers(context),
    body: classifiedJson(`GET-${Date.now()}`),
  });
  if (response.status !== 202) throw new Error(`POST for the GET scenario failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { classifiedId: string }).classifiedId;
}

/** GET of one classified, with `extra` request headers. */
function getOne(name: string, about: string, extra: Record<string, string>, judged: boolean): Scenario {
  return {
    name,
    about,
    target: judged ? '>= 80% of baseline-r (issue 25)' : "reference (get's target: >= 80% of baseline-r)",
    sharedServer: true,
    ...(judged ? { met: (row: Row) => (row.ofBaselineR === undefined ? undefined : row.ofBaselineR >= 0.8) } : {}),
    async setup(context) {
      const id = await oneClassified(context);
      const { 'content-type': _, ...get } = headers(context);
      return {
        load: {
          url: context.base,
          method: 'GET',
          path: `/caas/v4/classifieds/${id}`,
          headers: { ...get, ...extra },
          connections: CONNECTIONS,
        },
      };
    },
  };
}

export const getClassified = getOne('get', 'GET /caas/v4/classifieds/{id}: 200 with the full classified and its ETag', {}, true);
export const getNotModified = getOne(
  'get-304',
  'GET /caas/v4/classifieds/{id} with If-None-Match of the current ETag: 304',
  { 'if-none-match': '"1"' },
  false,
);
