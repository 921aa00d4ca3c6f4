/* One webhook delivery of the integrator's (a status webhook or a lead notification), with Redeliver. */
import { post, seg } from '../api';
import { DeliveryDetails, usePollWhilePending } from '../components/DeliveryDetails';
import { Page } from '../components/Page';
import { ProblemView } from '../components/Problem';
import { useAction } from '../hooks/useAction';
import { useGet } from '../hooks/useGet';
import { type Delivery, type Redelivery, redeliveryOutcome } from '../types';

const SOURCE_NAMES: Record<string, string> = { caas: 'status webhook', leads: 'lead notification' };

export function DeliveryPage({ source, id }: { source: string; id: string }) {
  const loaded = useGet<Delivery>(`/${seg(source)}/deliveries/${seg(id)}`);
  usePollWhilePending(loaded);
  const redelivery = useAction<Redelivery>();
  const result = redelivery.result && redeliveryOutcome(redelivery.result);
  return (
    <Page title={`Delivery of a ${SOURCE_NAMES[source] ?? 'webhook'}`}>
      <p>
        <a href="/console/webhooks">← Webhooks</a>
      </p>
      <DeliveryDetails
        loaded={loaded}
        actions={
          <>
            <button
              type="button"
              class="primary"
              disabled={redelivery.busy}
              onClick={async () => {
                await redelivery.run(() => post<Redelivery>(`/${seg(source)}/deliveries/${seg(id)}/redeliveries`));
                loaded.reload();
              }}
            >
              Redeliver
            </button>
            <button type="button" onClick={loaded.reload}>
              Refresh
            </button>
            <div aria-live="polite" class="outcome">
              {redelivery.error !== undefined ? <ProblemView error={redelivery.error} /> : null}
              {result ? (
                <p class={result.queued ? 'ok' : 'warn'}>
                  {result.queued
                    ? 'Redelivery queued: a worker sends it again now, under the same webhook-id.'
                    : `Not redelivered: ${result.reason ?? 'skipped'}.`}
                </p>
              ) : null}
            </div>
          </>
        }
      />
    </Page>
  );
}
