/* The client's token usage over the last days and the review's verdict on it (`immogate clients report`). */
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { useLocalPages } from '../components/Pager';
import { TokenDaysTable } from '../components/TokenDays';
import { useGet } from '../hooks/useGet';
import type { TokenUsage } from '../types';

export function TokensPage() {
  const loaded = useGet<TokenUsage>('/tokens');
  const usage = loaded.data;
  const pages = useLocalPages(usage?.rows ?? []);
  const flagged = usage?.rows.some((row) => !row.reusesTokens) ?? false;
  return (
    <Page title="Tokens">
      <p>
        A token is valid for 24 hours: cache it and reuse it. The review counts the tokens your client gets each day for each API and
        agency; more than the threshold for one of them flags the day.
      </p>
      <LoadState loaded={loaded} what="the token usage" />
      {usage ? (
        <>
          <div class={`verdict ${flagged ? 'warn' : 'ok'}`} role="status">
            <p class="label">The review says</p>
            <p>
              <strong>{usage.verdict}</strong>
            </p>
            <p class="muted small">
              Client <code>{usage.clientId}</code> · the last {usage.days} days · threshold {usage.threshold} tokens a day for one API and
              agency
            </p>
          </div>
          {usage.rows.length === 0 ? (
            <p>No token in the last {usage.days} days.</p>
          ) : (
            <TokenDaysTable rows={pages.items} caption="Tokens per day" withClient={false} />
          )}
          {pages.pager('Pages of token days')}
        </>
      ) : null}
    </Page>
  );
}
