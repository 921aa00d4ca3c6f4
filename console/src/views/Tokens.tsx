/* The client's token usage over the last 7 days and the review's verdict on it (`immogate clients report`). */
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { useLocalPages } from '../components/Pager';
import { TableRegion } from '../components/Table';
import { useGet } from '../hooks/useGet';
import type { TokenUsage } from '../types';

export function TokensPage() {
  const loaded = useGet<TokenUsage>('/tokens');
  const usage = loaded.data;
  const pages = useLocalPages(usage?.days ?? []);
  return (
    <Page title="Tokens">
      <p>
        A token is valid for 24 hours: cache it and reuse it. The review counts, per day, audience and agency, the tokens your client got;
        more than the threshold flags the day.
      </p>
      <LoadState loaded={loaded} what="the token usage" />
      {usage ? (
        <>
          <div class={`verdict ${usage.days.some((day) => day.flagged) ? 'warn' : 'ok'}`} role="status">
            <p class="label">The review says</p>
            <p>
              <strong>{usage.verdict}</strong>
            </p>
            <p class="muted small">
              Client <code>{usage.clientId}</code> · threshold {usage.threshold} tokens a day per audience and agency
            </p>
          </div>
          {usage.days.length === 0 ? (
            <p>No token in the last 7 days.</p>
          ) : (
            <TableRegion label="Tokens per day">
              <table>
                <caption>Tokens per day, audience and agency</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Audience</th>
                    <th scope="col">Agency</th>
                    <th scope="col" class="num">
                      Tokens
                    </th>
                    <th scope="col" class="num">
                      Failed authentications
                    </th>
                    <th scope="col">Flagged</th>
                  </tr>
                </thead>
                <tbody>
                  {pages.items.map((day) => (
                    <tr key={`${day.day}|${day.audience}|${day.intermediary}`} class={day.flagged ? 'flagged' : undefined}>
                      <th scope="row">{day.day}</th>
                      <td class="wrap">
                        <code>{day.audience}</code>
                      </td>
                      <td>{day.intermediary}</td>
                      <td class="num">{day.tokens}</td>
                      <td class="num">{day.failedAuthentications}</td>
                      <td>{day.flagged ? <strong>flagged</strong> : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
          )}
          {pages.pager('Pages of token days')}
        </>
      ) : null}
    </Page>
  );
}
