/*
 * Fair claiming: which of a queue's due items a worker takes when it has free slots.
 *
 * Items belong to lanes (a webhook subscription; an agency's classifieds). A claim walks every
 * lane that has claimable items, by a loose index scan over an index (lane..., due) WHERE
 * claimable: one index descent per lane, however many items the lane holds. Of each lane it reads
 * at most the lane's free share of its oldest due items; the candidates are then cut to each
 * coarser share (an agency, a receiver's host) and taken in turns: every agency's first item
 * before any agency's second, oldest first within a turn. A worker counts its shares by what it
 * runs itself (`busy`), so each worker is fair with its own slots without asking any other.
 *
 * So a lane whose items pile up (a hanging receiver, a slow media host) holds at most its caps of
 * a worker's slots, its backlog costs the claim one index descent, and any other lane's next item
 * is claimed as soon as a slot is free. Without it a claim took the oldest due items, and a
 * backlog of one agency took every slot until it was worked off.
 *
 * Candidates are locked as they are read (FOR UPDATE SKIP LOCKED), so two workers claiming at
 * once take different items; a candidate cut by a share stays locked only until the claim's
 * statement ends. Nothing here waits for a lock.
 */

/** A share of a worker's slots: the items whose key is the same count against one cap. */
export interface FairShare {
  /** SQL expression of the share's key over the queue row of `alias`, e.g. `'a:' || q.environment || '/' || q.agency_id`. */
  key(alias: string): string;
  /** The placeholder of the parameter holding the cap, e.g. `$6`. */
  cap: string;
}

export interface FairQueue {
  table: string;
  /** The column identifying an item (its key in the claimed rows, `id`). */
  id: string;
  /** The column of the time an item is due (claimable from then on). */
  due: string;
  /** What else makes a row of `q` claimable: the predicate of the lanes index. */
  claimable(alias: string): string;
  /** The columns of a lane, leading an index (lane..., due) WHERE claimable. */
  lane: readonly string[];
  /** The lane's own share first (its key over the lane's columns only), then coarser ones. */
  shares: readonly [FairShare, ...FairShare[]];
  /** The share whose turns order the claim (an index into shares): the agency's. */
  turns: number;
}

export interface FairClaimParameters {
  /** Placeholder of the number of items wanted. */
  limit: string;
  /** Placeholders of the worker's running items per share key: text[] and int[] of the same length. */
  busyKeys: string;
  busyCounts: string;
}

const columns = (alias: string, names: readonly string[]) => names.map((name) => `${alias}.${name}`).join(', ');

/**
 * The CTEs (to follow `WITH RECURSIVE`) that end in `picked (id, shares)`: at most `limit` items
 * due now, claimed fairly, each with the keys of its shares (shares[1] the lane's, in the order
 * of `queue.shares`). The caller's next CTE claims them. `candidates` and `picked` are
 * MATERIALIZED: each runs once. Folded into the caller's UPDATE, the pick could be run again per
 * row, and each run skips what the statement already claimed: a claim past its limit.
 */
export function fairPick(queue: FairQueue, parameters: FairClaimParameters): string {
  const { table, id, due, lane, shares } = queue;
  const [own] = shares;
  const caps = shares.map((share) => share.cap);
  // Level n ranks the candidates that kept within the share of level n - 1 by the share of level n
  // (its key is shares[n + 1] in SQL, which counts from 1), in the order of the level before.
  const levels = caps.slice(1).map(
    (_, index) => `
    level_${index + 1} AS (
      SELECT c.*, row_number() OVER (PARTITION BY c.shares[${index + 2}] ORDER BY c.rank_${index}, c.due)
                  + coalesce((SELECT n FROM busy WHERE key = c.shares[${index + 2}]), 0) AS rank_${index + 1}
        FROM level_${index} c
       WHERE c.rank_${index} <= ${caps[index]}),`,
  );
  const last = levels.length;
  return `
    busy AS (SELECT key, n FROM unnest(${parameters.busyKeys}::text[], ${parameters.busyCounts}::int[]) AS b (key, n)),
    lanes AS (
      (SELECT ${columns('q', lane)} FROM ${table} q WHERE ${queue.claimable('q')} ORDER BY ${columns('q', lane)} LIMIT 1)
      UNION ALL
      SELECT next.* FROM lanes l CROSS JOIN LATERAL (
        SELECT ${columns('q', lane)} FROM ${table} q
         WHERE ${queue.claimable('q')} AND (${columns('q', lane)}) > (${columns('l', lane)})
         ORDER BY ${columns('q', lane)} LIMIT 1) next),
    candidates AS MATERIALIZED (
      SELECT c.* FROM lanes l CROSS JOIN LATERAL (
        SELECT q.${id} AS id, q.${due} AS due, ARRAY[${shares.map((share) => share.key('q')).join(', ')}] AS shares FROM ${table} q
         WHERE ${queue.claimable('q')} AND (${columns('q', lane)}) = (${columns('l', lane)}) AND q.${due} <= now()
         ORDER BY q.${due}
         LIMIT greatest(0, ${own.cap} - coalesce((SELECT n FROM busy WHERE key = ${own.key('l')}), 0))
           FOR UPDATE SKIP LOCKED) c),
    level_0 AS (
      SELECT c.*, row_number() OVER (PARTITION BY c.shares[1] ORDER BY c.due)
                  + coalesce((SELECT n FROM busy WHERE key = c.shares[1]), 0) AS rank_0
        FROM candidates c),${levels.join('')}
    picked AS MATERIALIZED (
      SELECT c.id, c.shares FROM level_${last} c WHERE c.rank_${last} <= ${caps[last]}
       ORDER BY c.rank_${queue.turns}, c.due LIMIT ${parameters.limit})`;
}

/** The worker's running items per share key, as the two arrays fairPick's parameters take. */
export function busyArrays(busy: ReadonlyMap<string, number>): [string[], number[]] {
  return [[...busy.keys()], [...busy.values()]];
}
