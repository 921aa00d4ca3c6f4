/* The token report of every client (what `immogate clients report` prints): tokens, how many for one API and agency at most, and failed authentications, per day. */
import { useState } from 'preact/hooks';
import { query } from '../../api';
import { LoadState } from '../../components/LoadState';
import { Page } from '../../components/Page';
import { useLocalPages } from '../../components/Pager';
import { TokenDaysTable } from '../../components/TokenDays';
import { fieldsOf } from '../../forms';
import { useGet } from '../../hooks/useGet';
import type { TokenReport } from '../../types';

export function TokenReportPage() {
  const [options, setOptions] = useState({ days: '7', threshold: '5', flaggedOnly: false });
  const loaded = useGet<TokenReport>(`/admin/tokens/report${query({ days: options.days, threshold: options.threshold })}`);
  const rows = (loaded.data?.rows ?? []).filter((row) => !options.flaggedOnly || !row.reusesTokens);
  const pages = useLocalPages(rows);
  return (
    <Page title="Token report">
      <form
        class="filters"
        aria-label="Report options"
        onSubmit={(event) => {
          const fields = fieldsOf(event);
          setOptions({ days: fields.days ?? '7', threshold: fields.threshold ?? '5', flaggedOnly: fields.flaggedOnly === 'on' });
        }}
      >
        <div class="field">
          <label for="report-days">Days</label>
          <input id="report-days" name="days" type="number" min={1} max={90} defaultValue={options.days} required />
        </div>
        <div class="field">
          <label for="report-threshold">Threshold</label>
          <input
            id="report-threshold"
            name="threshold"
            type="number"
            min={1}
            defaultValue={options.threshold}
            required
            aria-describedby="threshold-hint"
          />
        </div>
        <label class="check">
          <input type="checkbox" name="flaggedOnly" defaultChecked={options.flaggedOnly} />
          Flagged only
        </label>
        <button type="submit">Show</button>
        <p id="threshold-hint" class="hint">
          More tokens than this in a day for one API and agency flags the day: the client does not cache its tokens.
        </p>
      </form>
      <LoadState loaded={loaded} what="the report" />
      {loaded.data ? (
        rows.length === 0 ? (
          <p>Nothing to report.</p>
        ) : (
          <TokenDaysTable rows={pages.items} caption="Tokens per client and day" withClient />
        )
      ) : null}
      {pages.pager('Pages of the token report')}
    </Page>
  );
}
