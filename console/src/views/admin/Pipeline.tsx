/* The pipeline at a glance: classifieds waiting to be processed and failed today, webhook deliveries pending, failed and delivered today. */
import { LoadState } from '../../components/LoadState';
import { Page } from '../../components/Page';
import { Time } from '../../components/Time';
import { useGet } from '../../hooks/useGet';
import type { Pipeline } from '../../types';

function Count({ label, value, bad }: { label: string; value: number; bad?: boolean }) {
  return (
    <div class={`count${bad && value > 0 ? ' count-bad' : ''}`}>
      <dt>{label}</dt>
      <dd>{value.toLocaleString()}</dd>
    </div>
  );
}

export function PipelinePage() {
  const loaded = useGet<Pipeline>('/admin/pipeline');
  const pipeline = loaded.data;
  return (
    <Page
      title="Pipeline"
      actions={
        <button type="button" onClick={loaded.reload}>
          Refresh
        </button>
      }
    >
      <LoadState loaded={loaded} what="the pipeline" />
      {pipeline ? (
        <div class="cards" aria-live="polite">
          <section class="card" aria-labelledby="pipeline-classifieds">
            <h2 id="pipeline-classifieds">Classifieds</h2>
            <dl class="counts">
              <Count label="Queued" value={pipeline.classifieds.queued} />
              <Count label="Failed today" value={pipeline.classifieds.failedToday} bad />
            </dl>
            <p class="muted small">
              Oldest queued: {pipeline.classifieds.oldestQueuedAt ? <Time value={pipeline.classifieds.oldestQueuedAt} /> : 'none'}
            </p>
          </section>
          <section class="card" aria-labelledby="pipeline-deliveries">
            <h2 id="pipeline-deliveries">Webhook deliveries</h2>
            <dl class="counts">
              <Count label="Pending" value={pipeline.deliveries.pending} />
              <Count label="Failed" value={pipeline.deliveries.failed} bad />
              <Count label="Delivered today" value={pipeline.deliveries.deliveredToday} />
            </dl>
            <p class="muted small">
              Oldest pending: {pipeline.deliveries.oldestPendingAt ? <Time value={pipeline.deliveries.oldestPendingAt} /> : 'none'}
            </p>
            <p>
              <a href="/console/admin/deliveries">See the deliveries</a>
            </p>
          </section>
        </div>
      ) : null}
    </Page>
  );
}
