/* The pipeline at a glance: webhook deliveries pending, failed and delivered today, and each work queue's backlog (the classifieds' processing among them). */
import { LoadState } from '../../components/LoadState';
import { Page } from '../../components/Page';
import { TableRegion } from '../../components/Table';
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
          <section class="card" aria-labelledby="pipeline-streams">
            <h2 id="pipeline-streams">Work queues</h2>
            <TableRegion label="Work queues">
              <table>
                <caption class="visually-hidden">Work queues</caption>
                <thead>
                  <tr>
                    <th scope="col">Queue</th>
                    <th scope="col" class="num">
                      Ready
                    </th>
                    <th scope="col" class="num">
                      Retrying
                    </th>
                    <th scope="col" class="num">
                      Running
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {pipeline.streams.map((stream) => (
                    <tr key={stream.name}>
                      <th scope="row">
                        <code>{stream.name}</code>
                      </th>
                      <td class="num">{stream.ready}</td>
                      <td class="num">{stream.scheduled}</td>
                      <td class="num">{stream.locked}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
            <p class="muted small">Ready: waiting for a worker; retrying: waiting after a failed run; running: held by a worker now.</p>
          </section>
        </div>
      ) : null}
    </Page>
  );
}
