/*
 * The feed after `immogate restore`: transaction ids belong to the database that assigned them,
 * and the new database's run from wherever its own counter is. Every restored event and horizon
 * moves to xid 1, before anything the new database commits (their order among themselves becomes
 * their positions'), and the feed takes a new epoch, so a cursor of the database before is answered
 * 410 and read again from the oldest event rather than trusted to skip nothing.
 */
import type pg from 'pg';

/** In the restore's transaction, after the rows are loaded; nothing to do for a backup from before the feed. */
export async function restartFeedOrder(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ feed: string | null }>("SELECT to_regclass('event_feed_epoch')::text AS feed");
  if (!rows[0]?.feed) return;
  await client.query("UPDATE events SET xid = '1'::xid8");
  await client.query("UPDATE event_horizons SET xid = '1'::xid8");
  await client.query('UPDATE event_feed_epoch SET epoch = substr(md5(random()::text || clock_timestamp()::text), 1, 12)');
}
