/*
 * The statuses page of a classified, newest first. A DELETED classified keeps its statuses
 * readable: its DELETED status is how a client learns that the delete was done.
 */
import type pg from 'pg';
import type { Tenant } from '../../../platform/db/tenant.js';
import type { StatusPage, StatusesQuery } from '../model/statuses.js';
import * as repository from '../repository.js';
import { classifiedNotFound } from './classifieds.js';
import { decodeCursor, pageOf, pageSize } from './pages.js';

/**
 * `filter=latest`: the statuses of the classified's latest revision only, that is of its last
 * acknowledged write (every write records its RECEIVED status when acknowledged, so this is never
 * empty before the other filters). Newest first like every page, so its first item is the current
 * state of that write, and the rest tell how it got there. `portal`: items whose portals include
 * any of these.
 */
export async function listStatuses(pool: pg.Pool, tenant: Tenant, id: string, query: StatusesQuery): Promise<StatusPage> {
  const before = decodeCursor('statuses', query.nextToken);
  const size = pageSize(query.limit);
  const { rows, known } = await repository.listStatuses(pool, tenant, id, {
    before,
    statuses: query.status,
    portals: query.portal,
    latest: query.filter === 'latest',
    rows: size + 1,
  });
  if (!known) throw classifiedNotFound(id);
  return pageOf(rows, size, 'statuses');
}
