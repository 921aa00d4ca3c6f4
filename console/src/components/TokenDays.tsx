/* Tokens per client and day as the review counts them, for the integrator's Tokens page and the operator's report. */
import type { TokenDay } from '../types';
import { TableRegion } from './Table';

export function TokenDaysTable({ rows, caption, withClient }: { rows: TokenDay[]; caption: string; withClient: boolean }) {
  return (
    <TableRegion label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {withClient ? <th scope="col">Client</th> : null}
            <th scope="col">Day (UTC)</th>
            <th scope="col" class="num">
              Tokens
            </th>
            <th scope="col" class="num">
              API and agency pairs
            </th>
            <th scope="col" class="num">
              Most for one pair
            </th>
            <th scope="col">Reuses its tokens</th>
            <th scope="col" class="num">
              Failed authentications
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.clientId}|${row.day}`} class={row.reusesTokens ? undefined : 'flagged'}>
              {withClient ? (
                <th scope="row">
                  {row.name}
                  <br />
                  <code class="muted small">{row.clientId}</code>
                </th>
              ) : null}
              {withClient ? <td>{row.day}</td> : <th scope="row">{row.day}</th>}
              <td class="num">{row.tokens}</td>
              <td class="num">{row.targets}</td>
              <td class="num">{row.maxPerTarget}</td>
              <td>{row.reusesTokens ? 'yes' : <strong>no: flagged</strong>}</td>
              <td class="num">{row.failedAuthentications}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
