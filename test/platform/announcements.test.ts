/*
 * New work and new events are announced after the commit of the write that made them, not by a
 * NOTIFY in its transaction (src/platform/db/announcements.ts, migrations/025): a write's commit
 * no longer waits for the notification queue's lock that every notifying commit takes in turn.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPool, execute, transaction, type Pool } from '../../src/platform/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../helpers.js';

let database: TestDatabase;
let pool: Pool;
let listener: pg.Client;
const heard: { channel: string; payload: string | undefined }[] = [];

/** Queues a classified's work: the insert whose trigger announces 'caas:processing'. */
function queue(n: number) {
  return {
    name: 'test.queue',
    text: `INSERT INTO caas_processing_queue (classified_id, environment, agency_id) VALUES ($1, 'sandbox', 'agency-a')`,
    values: [`b0000000-0000-4000-8000-00000000000${n}`],
  };
}

/** What the listener heard within `ms`, and in the 200 ms after the first notification. */
async function heardWithin(ms: number): Promise<typeof heard> {
  const deadline = Date.now() + ms;
  while (heard.length === 0 && Date.now() < deadline) await sleep(10);
  if (heard.length > 0) await sleep(200);
  return heard.splice(0);
}

before(async () => {
  database = await createTestDatabase();
  pool = createPool(database.url, 2);
  listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  listener.on('notification', (message) => heard.push({ channel: message.channel, payload: message.payload }));
  await listener.query('LISTEN immogate_work');
  await listener.query('LISTEN immogate_events');
});

after(async () => {
  await listener.end();
  await pool.end();
  await database.drop();
});

describe('announcements after the commit', () => {
  it('a write queues no notification in its own transaction: the session is told by a notice, and nothing is sent', async () => {
    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    const notices: { code?: string; message?: string; detail?: string }[] = [];
    writer.on('notice', (notice) => notices.push({ code: notice.code, message: notice.message, detail: notice.detail }));
    try {
      await writer.query('BEGIN');
      await execute(writer, queue(1));
      await writer.query('COMMIT');
      assert.deepEqual(notices, [{ code: 'IGANN', message: 'immogate_work', detail: 'caas:processing' }]);
      // A connection of no pool of ours: the announcement stays with it.
      assert.deepEqual(await heardWithin(300), []);
    } finally {
      await writer.end();
    }
  });

  it("a pool's connection announces what its transaction made once it is given back, one notification per channel and payload", async () => {
    await transaction(pool, [queue(2), queue(3)]);
    assert.deepEqual(await heardWithin(5_000), [{ channel: 'immogate_work', payload: 'caas:processing' }]);
  });

  it("a status's event is announced to its tenant's long polls", async () => {
    await transaction(pool, [
      {
        name: 'test.status',
        text: `INSERT INTO classified_statuses (status_id, classified_id, environment, agency_id, revision, status, message, stage, portals)
               VALUES (gen_random_uuid(), $1, 'sandbox', 'agency-a', 1, 'DELETED', 'gone', 'accepted', '{SL}')`,
        values: [`b0000000-0000-4000-8000-000000000004`],
      },
    ]);
    assert.deepEqual(await heardWithin(5_000), [{ channel: 'immogate_events', payload: 'sandbox agency-a' }]);
  });
});
