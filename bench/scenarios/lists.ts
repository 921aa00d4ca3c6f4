/*
 * GET /classifieds pages for an offerer with a thousand and one with a million classifieds.
 */
import { encodeCursor } from '../../src/apis/classifieds/services/pages.js';
import { classifiedJson } from '../body.js';
import { CONNECTIONS, USER_AGENT, type Context, type Row, type Scenario } from './types.js';

/**
 * GET /caas/v4/classifieds, pages of 250, for an offerer with 1,000 and one with
 * 1,000,000 classifieds. The rows are bulk-inserted with SQL (INSERT ... SELECT generate_series),
 * each with the payload a real POST stored, so that the pages carry realistic items. The load
 * asks for pages all through the offerer's classifieds (the first page and pages from cursors at
 * evenly spread depths), so a deep page has to be as cheap as the first.
 */
const ENVIRONMENT = 'production';
const PAGE = 250;
/** Distinct pages the load asks for: the first one and this many minus one from cursors. */
const PAGES = 100;
const BATCH = 50_000;

/** The payload of a classified as POST /classifieds stored it, as JSON text in which `marker` stands for the offererEstateId. */
async function storedPayload(context: Context): Promise<{ text: string; marker: string }> {
  const marker = `SEEDMARKER${Date.now()}`;
  const response = await fetch(`${context.base}/caas/v4/classifieds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${context.token}`, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
    body: classifiedJson(marker),
  });
  if (response.status !== 202) throw new Error(`POST of the seed template failed: ${response.status} ${await response.text()}`);
  const { classifiedId } = (await response.json()) as { classifiedId: string };
  const { rows } = await context.pool.query<{ text: string }>('SELECT payload::text AS text FROM classifieds WHERE id = $1', [
    classifiedId,
  ]);
  return { text: rows[0]!.text, marker };
}

async function liveCount(context: Context, agency: string): Promise<number> {
  const { rows } = await context.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM classifieds WHERE environment = $1 AND agency_id = $2 AND deleted_at IS NULL',
    [ENVIRONMENT, agency],
  );
  return rows[0]!.n;
}

/**
 * Brings `agency` to `count` live classifieds, in batches of 50,000 rows per statement on two
 * connections at once (one per core of the bench machine), then VACUUM ANALYZE: the planner sees
 * the table as it is and autovacuum has nothing left to do while the load runs. GET /classifieds
 * reads the classifieds table only (payload and seq), so nothing else is seeded. Rows already
 * there (an external DATABASE_URL used before) are kept.
 */
async function seed(context: Context, agency: string, count: number): Promise<void> {
  const have = await liveCount(context, agency);
  if (have >= count) return;
  const template = await storedPayload(context);
  const started = Date.now();
  const batches: [number, number][] = [];
  for (let from = have + 1; from <= count; from += BATCH) batches.push([from, Math.min(count, from + BATCH - 1)]);
  let done = have;
  const insertBatches = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      await context.pool.query(
        `INSERT INTO classifieds (id, environment, agency_id, offerer_estate_id, revision, payload)
         SELECT gen_random_uuid(), $1, $2, $3 || i, 1, replace($4, $5, $3 || i)::jsonb
           FROM generate_series($6::int, $7::int) AS i`,
        [ENVIRONMENT, agency, `${agency}-`, template.text, template.marker, batch[0], batch[1]],
      );
      done += batch[1] - batch[0] + 1;
      const seconds = (Date.now() - started) / 1000;
      process.stderr.write(
        `${agency}: ${done.toLocaleString('en')} of ${count.toLocaleString('en')} classifieds seeded (${Math.round((done - have) / seconds)} rows/s)\n`,
      );
    }
  };
  await Promise.all([insertBatches(), insertBatches()]);
  process.stderr.write(`${agency}: VACUUM ANALYZE classifieds\n`);
  await context.pool.query('VACUUM (ANALYZE) classifieds');
  process.stderr.write(`${agency}: seeded in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

/**
 * The paths of the load: the first page, then pages from cursors at evenly spread depths. A
 * cursor is the seq of the row at a given rank (oldest first), from rank 251 up, so that every
 * page from it is full.
 */
async function pagePaths(context: Context, agency: string, count: number): Promise<string[]> {
  const ranks = Array.from({ length: PAGES - 1 }, (_, k) => PAGE + 1 + Math.floor((k * (count - PAGE - 1)) / (PAGES - 2)));
  const { rows } = await context.pool.query<{ seq: number }>(
    `SELECT seq FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS rank
                        FROM classifieds WHERE environment = $1 AND agency_id = $2 AND deleted_at IS NULL) ranked
      WHERE rank = ANY($3::bigint[]) ORDER BY seq`,
    [ENVIRONMENT, agency, ranks],
  );
  const base = `/caas/v4/classifieds?limit=${PAGE}`;
  return [base, ...rows.map((row) => `${base}&nextToken=${encodeURIComponent(encodeCursor('classifieds', row.seq))}`)];
}

function list(name: string, count: number, about: string, target: string, note?: Scenario['note'], met?: Scenario['met']): Scenario {
  const agency = `bench-list-${name.slice('list-'.length)}`;
  return {
    name,
    about,
    target,
    ...(note ? { note } : {}),
    ...(met ? { met } : {}),
    sharedServer: true,
    // The two are compared: neither may profit from code the other warmed up in the server.
    warmUpSeconds: 3,
    async setup(context) {
      await seed(context, agency, count);
      const token = await context.issueToken(context.base, { root: '/caas/v4', agency, scopes: ['caas:classifieds:read'] });
      const headers = { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT };
      const paths = await pagePaths(context, agency, await liveCount(context, agency));
      // Every page must be full, or the comparison would be of smaller answers.
      for (const path of [paths[0]!, paths[1]!, paths.at(-1)!]) {
        const response = await fetch(`${context.base}${path}`, { headers });
        const items = response.status === 200 ? ((await response.json()) as { items: unknown[] }).items.length : -1;
        if (items !== PAGE) throw new Error(`${name}: ${path} gave ${response.status} with ${items} items, not ${PAGE}`);
      }
      return { load: { url: context.base, method: 'GET', path: paths[0]!, paths, headers, connections: CONNECTIONS } };
    },
  };
}

export const list1k = list(
  'list-1k',
  1_000,
  'GET /caas/v4/classifieds, pages of 250 (the first and 99 from cursors at spread depths) of an offerer with 1,000 classifieds',
  'reference for list-1m',
);

export const list1m = list(
  'list-1m',
  1_000_000,
  'the same for an offerer with 1,000,000 classifieds (SQL bulk load, VACUUM ANALYZE)',
  'p50 <= 1.5x the p50 of list-1k (issue 6)',
  (row: Row, rows: readonly Row[]) => {
    const small = rows.find((r) => r.scenario === 'list-1k');
    if (!small) return 'p50 not compared: list-1k did not run in this invocation';
    const ratio = row.p50 / small.p50;
    // Throughput too: a few connections stalled by loopback retransmissions lower the others' p50.
    return (
      `p50 ${row.p50} ms is ${ratio.toFixed(2)}x the ${small.p50} ms of list-1k (target <= 1.5x: ${ratio <= 1.5 ? 'met' : 'not met'}); ` +
      `throughput ${Math.round(row.rps)} pages/s, ${(row.rps / small.rps).toFixed(2)}x list-1k's ${Math.round(small.rps)}`
    );
  },
  (row: Row, rows: readonly Row[]) => {
    const small = rows.find((r) => r.scenario === 'list-1k');
    return small ? row.p50 <= 1.5 * small.p50 : undefined;
  },
);
