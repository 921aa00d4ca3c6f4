/* The health of what the listing import depends on: the database, checked with a time limit. */
import type pg from 'pg';
import type { HealthStatus } from '../model/health.js';
import { probeDatabase } from '../repository.js';

/** A database that does not answer within this long counts as down: a health check must not hang. */
const DATABASE_TIMEOUT_MS = 2000;

export async function databaseStatus(pool: pg.Pool): Promise<HealthStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthStatus>((resolve) => {
    timer = setTimeout(() => resolve('FAIL'), DATABASE_TIMEOUT_MS);
  });
  const query = probeDatabase(pool).then(
    () => 'PASS' as const,
    () => 'FAIL' as const,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
