/*
 * The signed-in client's token usage and what the sandbox review (`immogate clients report`)
 * says of it: the same report, narrowed to the client.
 */
import Type from 'typebox';
import { REPORT_DAYS, REPORT_THRESHOLD, ReportRow } from '../auth/clientRoutes.js';
import { issuanceReport, type IssuanceReportRow } from '../auth/clients.js';
import type { Pool } from '../db/pool.js';
import { forbidden } from '../http/problems.js';
import type { ApiApp } from '../module.js';
import { sessionOf } from './sessions.js';

export const TokenUsage = Type.Object({
  clientId: Type.String(),
  days: Type.Integer(),
  threshold: Type.Integer(),
  rows: Type.Array(ReportRow),
  verdict: Type.String({ description: 'What the review says, in a sentence' }),
});

function verdictOf(rows: IssuanceReportRow[], threshold: number): string {
  const flagged = rows.filter((row) => !row.reusesTokens);
  const failures = rows.reduce((sum, row) => sum + row.failedAuthentications, 0);
  const reuse =
    flagged.length === 0
      ? `Tokens are reused: no day with more than ${threshold} tokens for one API and agency.`
      : `Not reusing tokens on ${flagged.map((row) => `${row.day} (${row.maxPerTarget} for one API and agency)`).join(', ')}: ` +
        'cache each token for its 24 hours; the review refuses production access to clients that ask for one per call.';
  return failures === 0 ? reuse : `${reuse} ${failures} failed authentication(s) with this client id: a stale or leaked secret?`;
}

export async function tokenUsageRoute(app: ApiApp, { pool }: { pool: Pool }): Promise<void> {
  app.get('/tokens', { schema: { response: { 200: TokenUsage } } }, async (request) => {
    const session = sessionOf(request);
    if (session.kind !== 'integrator') throw forbidden('Token usage is a client’s: the operator sees every client’s in the token report');
    const rows = await issuanceReport(pool, REPORT_DAYS, REPORT_THRESHOLD, session.clientId);
    return { clientId: session.clientId, days: REPORT_DAYS, threshold: REPORT_THRESHOLD, rows, verdict: verdictOf(rows, REPORT_THRESHOLD) };
  });
}
